"""31 (Otuz bir) bots: Monte Carlo simulation of the rest of the hand from the seat's view only.

A bot sees what its view shows: its own cards, everyone's open cards, card counts and statuses,
the pot and the raise being answered. For every decision it samples the unseen cards (others'
closed cards and the stock, which are exchangeable) hundreds of times, conditioned on what the
players' statuses reveal (a player who stood can stand, a player who made 31 holds 31), plays the
rest of the hand in play order with a simple drawing policy, and counts how often it wins.

Bluff learning: after each showdown the bot records, per opponent, how often a raise of theirs
(closed card or raise-and-stand) came with a weak final hand (a total of 28 or less). When it answers
that opponent's raise, the simulated deals are re-weighted so the raiser's hand is weak with the
learned probability. The model is plain JSON in ``memory`` (persisted per bot by the platform):
``{"version": 1, "opponents": {key: {"raised": n, "weak": k}}, "last": "<commitment>:<hand>"}``.
The opponent key is the player id from ``view["player_ids"]`` when the runtime provides it, else
``"seat<n>"``.
"""

from __future__ import annotations

import random
from typing import Any

from gameworkers.bots import Bot
from gameworkers.engines import otuzbir as rules

Move = dict[str, Any]

DECK = rules.DECK
LOW = rules.LOW_VALUE
ACE = {c: (1 if c[1] == "A" else 0) for c in DECK}
PAIR = {(a, b): rules.two_card_class(a, b) for a in DECK for b in DECK if a != b}
WEAK_BELOW = 29  # a revealed raiser's hand under 29 (and not special) counts as a bluff
STRONG_CATEGORIES = {"31", "cin", "cengel", "yonca", "14", "29", "30"}
PRIOR_WEAK, PRIOR_N = 1.2, 4.0  # Beta prior: a 30% bluff rate worth four observations

_SCORES: dict[tuple[int, int, int, int], int] = {}


def _score(low: int, aces: int, n: int, sp: int) -> int:
    key = (low, aces, n if n < 3 else 3, sp if n == 2 else 0)
    s = _SCORES.get(key)
    if s is None:
        s = _SCORES[key] = rules.score_parts(low, aces, n, sp if n == 2 else 0)
    return s


def _add(h: tuple[int, int, int, str | None, int], c: str) -> tuple[int, int, int, str | None, int]:
    low, aces, n, first, sp = h
    n += 1
    if n == 1:
        first = c
    elif n == 2:
        sp = PAIR[(first, c)]
    return low + LOW[c], aces + ACE[c], n, first, sp


def _hand(cards: list[str]) -> tuple[int, int, int, str | None, int]:
    h: tuple[int, int, int, str | None, int] = (0, 0, 0, None, 0)
    for c in cards:
        h = _add(h, c)
    return h


def _play(h: tuple[int, int, int, str | None, int], stream: list[str], p: int, need: int,
          stand_total: int) -> tuple[int, int]:
    """Take ``need`` cards, then draw until 31, bust, a special hand or ``stand_total``; (score, p)."""
    low, aces, n, first, sp = h
    while True:
        if need > 0:
            need -= 1
        else:
            sc = _score(low, aces, n, sp)
            if sc < 0 or sc >= stand_total:
                return sc, p
        c = stream[p]
        p += 1
        low += LOW[c]
        aces += ACE[c]
        n += 1
        if n == 1:
            first = c
        elif n == 2:
            sp = PAIR[(first, c)]


def _ok(kind: str, score: int) -> bool:
    """Is a sampled hand consistent with the player's public status?"""
    if kind == "31":
        return score == rules.SCORE_31
    if kind == "stood":
        return rules.can_stand(score)
    return score != rules.SCORE_BUST and score != rules.SCORE_31  # still playing


class SimModel:
    """The hand as one seat sees it, ready for fast repeated sampling."""

    def __init__(self, view: dict) -> None:
        self.me: int = view["seat"]
        self.order: list[int] = list(view["order"])
        self.ebe: int = view["ebe"]
        players = view["players"]
        self.status = {p["seat"]: p["status"] for p in players}
        known: list[str] = []
        for p in players:
            known += p["open"]
        mine = players[self.me]
        self.my_cards: list[str] = list(mine.get("closed", [])) + list(mine["open"])
        known += mine.get("closed", [])
        seen = set(known)
        self.pool: list[str] = [c for c in DECK if c not in seen]
        # opponents whose hidden cards the public status constrains, and the rest
        self.hidden: list[tuple[int, tuple, int, str]] = []
        r = view.get("raise")
        for s in self.order:
            if s == self.me or self.status[s] not in rules.LIVE:
                continue
            p = players[s]
            k = p["closed_count"]
            kind = self.status[s]
            if r is not None and r["seat"] == s and r["kind"] == "stand":
                kind = "stood"  # a raise-and-stand is only allowed on a hand that may stand
            self.hidden.append((s, _hand(p["open"]), k, kind))
        self.index = {s: i for i, s in enumerate(self.order)}

    def deal(self, rng: random.Random) -> tuple[list[str], dict[int, tuple], int]:
        """One sample: the unseen cards in random order, with each live opponent's closed cards."""
        stream = self.pool[:]
        rng.shuffle(stream)
        p = 0
        hands: dict[int, tuple] = {}
        for s, base, k, kind in self.hidden:
            if k == 0:
                hands[s] = base
                continue
            if k == 1:
                # the first fitting card of a random order is a uniform pick among fitting cards
                j = p
                while j < len(stream):
                    h = _add(base, stream[j])
                    if _ok(kind, _score(h[0], h[1], h[2], h[4])):
                        break
                    j += 1
                else:
                    j = p
                    h = _add(base, stream[p])
                stream[p], stream[j] = stream[j], stream[p]
                p += 1
                hands[s] = h
                continue
            h = base
            for _ in range(12):  # rejection for several closed cards; the last try stands
                picks = rng.sample(range(p, len(stream)), k)
                h = base
                for j in picks:
                    h = _add(h, stream[j])
                if _ok(kind, _score(h[0], h[1], h[2], h[4])):
                    break
            chosen = set(picks)
            picked = [stream[j] for j in picks]
            rest = [c for j, c in enumerate(stream) if j >= p and j not in chosen]
            stream = stream[:p] + picked + rest
            p += k
            hands[s] = h
        return stream, hands, p

    def winner(self, scores: dict[int, int]) -> int | None:
        live = [s for s, sc in scores.items() if sc >= 0]
        if not live:
            return None
        return rules.pick_winner(live, scores, self.ebe, self.order)


class SimBot(Bot):
    """Base for the simulating styles; the class attributes are the style's parameters."""

    style = "balanced"
    description = "Weighs every decision by simulating the hand hundreds of times; raises good hands, rarely bluffs."
    sims = 300
    stand_total = 27       # the bot's own drawing policy in simulations: stand at this total or better
    margin = 0.0           # stand unless drawing wins this much more often
    raise_at = 0.62        # raise for value at this win chance or more
    raise_size = 0.5       # fraction of the pot
    slowplay = 0.2         # chance to hide a strong hand by not raising
    bluff = 0.05           # chance to raise with a weak hand (win chance under bluff_below)
    bluff_below = 0.3
    call_mult = 1.0        # see when win chance >= call_mult * amount / (pot + amount)
    closed_pref = 0.0      # chance to buy a card closed with a minimum raise when not raising
    predeal_raise = 0.1    # chance that ebe altı raises before the deal
    learn = True           # use the learned bluff rates when answering

    # ----- memory -------------------------------------------------------------------
    def _mem(self) -> dict:
        mem = self.memory
        if mem.get("version") != 1:
            mem.clear()
            mem.update({"version": 1, "opponents": {}, "last": None})
        return mem

    @staticmethod
    def _key(view: dict, seat: int) -> str:
        ids = view.get("player_ids")
        if isinstance(ids, list) and seat < len(ids) and ids[seat] is not None:
            return str(ids[seat])
        return f"seat{seat}"

    def bluff_rate(self, view: dict, seat: int) -> float:
        stats = self._mem()["opponents"].get(self._key(view, seat), {"raised": 0, "weak": 0})
        return (stats["weak"] + PRIOR_WEAK) / (stats["raised"] + PRIOR_N)

    def _learn(self, view: dict, summary: dict | None) -> None:
        """Count, per opponent, raises shown down and how many came with a weak hand."""
        if not summary:
            return
        mem = self._mem()
        mark = f"{view.get('commitment')}:{summary['hand']}"
        if mem["last"] == mark:
            return
        mem["last"] = mark
        shown = {e["seat"]: e["category"] for e in summary.get("showdown", [])}
        raisers = {r["seat"] for r in summary.get("raises", []) if r["kind"] in ("closed", "stand")}
        for s in raisers:
            if s == view["seat"] or s not in shown:
                continue
            stats = mem["opponents"].setdefault(self._key(view, s), {"raised": 0, "weak": 0})
            stats["raised"] += 1
            if shown[s] not in STRONG_CATEGORIES:
                stats["weak"] += 1

    def observe(self, view: dict, events: list[dict]) -> None:
        for e in events:
            if e.get("type") == "hand_over":
                self._learn(view, e)

    # ----- simulation -----------------------------------------------------------------
    def simulate_turn(self, view: dict, rng: random.Random) -> tuple[float, float]:
        """Win chances (stand now, draw one card then play on) for the seat whose turn it is."""
        model = SimModel(view)
        me = model.me
        mine = _hand(model.my_cards)
        later = [s for s in model.order[model.index[me] + 1:] if model.status[s] == "in"]
        wins_stand = wins_draw = 0
        stand_score = _score(mine[0], mine[1], mine[2], mine[4])
        for _ in range(self.sims):
            stream, hands, p0 = model.deal(rng)
            fixed = {s: _score(h[0], h[1], h[2], h[4]) for s, h in hands.items() if s not in later}
            for option in (0, 1):
                scores = dict(fixed)
                if option == 0:
                    scores[me] = stand_score
                    p = p0
                else:
                    scores[me], p = _play(mine, stream, p0, 1, self.stand_total)
                for s in later:
                    scores[s], p = _play(hands[s], stream, p, 0, rules.STAND_MIN)
                if model.winner(scores) == me:
                    if option == 0:
                        wins_stand += 1
                    else:
                        wins_draw += 1
        return wins_stand / self.sims, wins_draw / self.sims

    def simulate_answer(self, view: dict, rng: random.Random, use_bluffs: bool) -> float:
        """Win chance if this seat sees the raise, with the raiser's bluffing learned (or not)."""
        model = SimModel(view)
        me = model.me
        r = view["raise"]
        raiser, kind = r["seat"], r["kind"]
        mine = _hand(model.my_cards)
        my_status = model.status[me]
        start = model.index[raiser] if kind != "predeal" else 0
        to_play = [s for s in model.order[start:] if model.status[s] == "in"]
        weak_wins = strong_wins = weak_n = 0
        for _ in range(self.sims):
            stream, hands, p = model.deal(rng)
            hands[me] = mine
            scores = {s: _score(h[0], h[1], h[2], h[4]) for s, h in hands.items()}
            for s in to_play:
                if s == raiser and kind == "stand":
                    continue
                need = 1 if (s == raiser and kind == "closed") else 0
                stand = self.stand_total if s == me else rules.STAND_MIN
                scores[s], p = _play(hands[s], stream, p, need, stand)
            if my_status != "in":
                scores[me] = _score(mine[0], mine[1], mine[2], mine[4])
            won = model.winner(scores) == me
            if kind != "predeal" and scores[raiser] < WEAK_BELOW:
                weak_n += 1
                weak_wins += won
            else:
                strong_wins += won
        n = self.sims
        w0 = weak_n / n
        if not use_bluffs or kind == "predeal" or w0 in (0.0, 1.0):
            return (weak_wins + strong_wins) / n
        b = self.bluff_rate(view, raiser)
        # re-weight the deals so that the raiser is weak with the learned probability b
        return b * (weak_wins / weak_n) + (1 - b) * (strong_wins / (n - weak_n))

    # ----- decisions -------------------------------------------------------------------
    @staticmethod
    def _amount(legal: list[Move], kind: str, want: int) -> Move:
        options = [m for m in legal if m["type"] == kind]
        return min(options, key=lambda m: (abs(m["amount"] - want), m["amount"]))

    def _size(self, view: dict) -> int:
        return max(1, round(view["pot"] * self.raise_size))

    def choose(self, view: dict, legal: list[Move], rng: random.Random, *, optional: bool = False) -> Move | None:
        if not legal:
            return None
        self._learn(view, view.get("last_hand"))
        phase = view["phase"]
        if phase == "predeal":
            if rng.random() < self.predeal_raise:
                return self._amount(legal, "raise", self._size(view))
            return {"type": "pass"}
        if phase in ("predeal_answer", "answer"):
            p = self.simulate_answer(view, rng, self.learn)
            a = view["raise"]["amount"]
            need = self.call_mult * a / (view["pot"] + a)
            return {"type": "see"} if p >= need else {"type": "fold"}
        return self._turn(view, legal, rng)

    def _turn(self, view: dict, legal: list[Move], rng: random.Random) -> Move:
        can_stand = any(m["type"] == "stand" for m in legal)
        p_stand, p_draw = self.simulate_turn(view, rng)
        stand = can_stand and p_stand >= p_draw - self.margin
        p = p_stand if stand else p_draw
        value = p >= self.raise_at and rng.random() >= self.slowplay
        bluff = p < self.bluff_below and rng.random() < self.bluff
        if stand:
            if value or bluff:
                return self._amount(legal, "raise_stand", self._size(view))
            return {"type": "stand"}
        if value or bluff:
            return self._amount(legal, "closed", self._size(view))
        if rng.random() < self.closed_pref:
            return self._amount(legal, "closed", 1)
        return {"type": "open"}


class TightPassiveBot(SimBot):
    style = "tight-passive"
    description = "Careful: stands early, sees raises only with a clear edge, raises rarely and small, never bluffs."
    stand_total = 26
    raise_at = 0.78
    raise_size = 0.25
    slowplay = 0.4
    bluff = 0.0
    call_mult = 1.4
    predeal_raise = 0.0


class LooseAggressiveBot(SimBot):
    style = "loose-aggressive"
    description = "Pushy: raises often and big, sees most raises, bluffs now and then and raises before the deal."
    stand_total = 28
    raise_at = 0.45
    raise_size = 0.75
    slowplay = 0.0
    bluff = 0.2
    bluff_below = 0.35
    call_mult = 0.75
    predeal_raise = 0.4


class TrickyBot(SimBot):
    style = "tricky"
    description = "Deceptive: buys closed cards to hide its hand, slow-plays strong hands and bluffs weak ones."
    raise_at = 0.55
    raise_size = 0.5
    slowplay = 0.5
    bluff = 0.3
    bluff_below = 0.35
    call_mult = 0.9
    closed_pref = 0.4
    predeal_raise = 0.2


STYLES: dict[str, type[Bot]] = {
    "balanced": SimBot,
    "tight-passive": TightPassiveBot,
    "loose-aggressive": LooseAggressiveBot,
    "tricky": TrickyBot,
}
