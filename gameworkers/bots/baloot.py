"""Baloot bots. They decide from their seat's view and the legal moves only.

``pimc``: bids and doubles from hand strength; plays cards by perfect-information Monte
Carlo: it deals the unseen cards many times at random, consistent with what the seat has
seen (played cards, shown voids, the exposed card's taker, shown projects), plays each
candidate card out with a fast full-information heuristic, and keeps the best average.
``greedy``: the same bidding, but plays the heuristic directly (no sampling).
"""

from __future__ import annotations

import random
from typing import Any

from gameworkers.bots import Bot
from gameworkers.engines.baloot import SUITS, card_points, strength
from gameworkers.engines.fairness import BALOOT_DECK

Move = dict[str, Any]

SUN_BID = 23  # thresholds on the hand-strength scores below (tuned by self-play against random)
HOKUM_BID = 24
SUN_OVERCALL = 27
DOUBLE_AT = 20


# ----- hand strength -----------------------------------------------------------------------------
def sun_strength(cards: list[str]) -> float:
    """Rough trick-taking value without trumps: aces, guarded tens, long suits."""
    score = 0.0
    for s in SUITS:
        ranks = {c[1] for c in cards if c[0] == s}
        if "A" in ranks:
            score += 9
            if "T" in ranks:
                score += 6
        elif "T" in ranks and len(ranks) >= 2:
            score += 3
        if "K" in ranks and ("A" in ranks or "T" in ranks):
            score += 2
        score += max(0, len(ranks) - 3) * 2
    return score


def hokum_strength(cards: list[str], trump: str) -> float:
    """Value as trump holder: top trumps, trump length, side aces."""
    value = {"J": 10, "9": 8, "A": 5, "T": 4, "K": 2, "Q": 2, "8": 1.5, "7": 1.5}
    trumps = [c for c in cards if c[0] == trump]
    score = sum(value[c[1]] for c in trumps)
    if len(trumps) < 2:
        score -= 6
    score += sum(4 for c in cards if c[0] != trump and c[1] == "A")
    return score


def defence_strength(cards: list[str], trump: str | None) -> float:
    """How well this hand beats a contract: trump honours against Hokum, aces/tens against Sun."""
    if trump is None:
        return sun_strength(cards)
    return hokum_strength(cards, trump) * 0.9


# ----- fast full-information play ----------------------------------------------------------------
class World:
    """Plain lists for fast rollouts: hands per seat, the trick so far, the contract."""

    __slots__ = ("hands", "trick", "leader", "trump", "lock", "overtrump", "points")

    def __init__(self, hands: list[list[str]], trick: list[tuple[int, str]], leader: int,
                 trump: str | None, lock: bool, overtrump: bool) -> None:
        self.hands = hands
        self.trick = trick
        self.leader = leader
        self.trump = trump
        self.lock = lock
        self.overtrump = overtrump
        self.points = [0, 0]


def legal(hand: list[str], trick: list[tuple[int, str]], trump: str | None, lock: bool, overtrump: bool) -> list[str]:
    if not trick:
        if lock and trump is not None:
            side = [c for c in hand if c[0] != trump]
            if side:
                return side
        return hand
    led = trick[0][1][0]
    follow = [c for c in hand if c[0] == led]
    if trump is None:
        return follow or hand
    if follow and led != trump:
        return follow
    pool = follow or [c for c in hand if c[0] == trump]
    if not pool:
        return hand
    if overtrump:
        top = max((strength(c, trump) for _, c in trick if c[0] == trump), default=-1)
        higher = [c for c in pool if strength(c, trump) > top]
        if higher:
            return higher
    return pool


def winning_index(trick: list[tuple[int, str]], trump: str | None) -> int:
    best = 0
    for i in range(1, len(trick)):
        c, b = trick[i][1], trick[best][1]
        if c[0] == b[0]:
            if strength(c, trump) > strength(b, trump):
                best = i
        elif c[0] == trump:
            best = i
    return best


def beats(card: str, best: str, trump: str | None) -> bool:
    if card[0] == best[0]:
        return strength(card, trump) > strength(best, trump)
    return card[0] == trump


def heuristic_card(world: World, seat: int, options: list[str]) -> str:
    """A cheap sensible play with every hand known."""
    trump = world.trump
    if len(options) == 1:
        return options[0]
    trick = world.trick
    others = [c for s in range(4) if s != seat for c in world.hands[s]]
    if not trick:
        # lead a card nobody can beat now, the most valuable first; else the cheapest card
        tops = []
        for c in options:
            higher = any(o[0] == c[0] and strength(o, trump) > strength(c, trump) for o in others)
            if higher:
                continue
            if trump is not None and c[0] != trump:
                ruff = False
                for s in range(4):
                    if s == seat or (s - seat) % 2 == 0:
                        continue
                    h = world.hands[s]
                    if not any(x[0] == c[0] for x in h) and any(x[0] == trump for x in h):
                        ruff = True
                        break
                if ruff:
                    continue
            tops.append(c)
        if tops:
            return max(tops, key=lambda c: (card_points(c, trump), strength(c, trump)))
        return min(options, key=lambda c: (c[0] == trump, card_points(c, trump), strength(c, trump)))
    wi = winning_index(trick, trump)
    best_seat, best = trick[wi]
    partner_winning = (best_seat - seat) % 2 == 0
    last = len(trick) == 3
    if partner_winning:
        safe = last or not any(beats(o, best, trump) for s in range(4) if (s - seat) % 2 == 1
                               for o in world.hands[s])
        if safe:
            return max(options, key=lambda c: (card_points(c, trump) if not beats(c, best, trump) else -1,
                                               -strength(c, trump)))
        return min(options, key=lambda c: (card_points(c, trump), strength(c, trump)))
    winners = [c for c in options if beats(c, best, trump)]
    if winners:
        return min(winners, key=lambda c: (c[0] == trump, strength(c, trump)))
    return min(options, key=lambda c: (card_points(c, trump), strength(c, trump)))


def play_out(world: World, me: int, first: str | None = None) -> int:
    """Finish the deal from ``world`` (mutated); returns my team's points minus theirs."""
    trump = world.trump
    hands = world.hands
    pts = world.points
    tricks_left = len(hands[(world.leader + len(world.trick)) % 4])  # the current trick included
    while True:
        seat = (world.leader + len(world.trick)) % 4
        hand = hands[seat]
        if first is not None:
            card = first
            first = None
        else:
            card = heuristic_card(world, seat, legal(hand, world.trick, trump, world.lock, world.overtrump))
        hand.remove(card)
        world.trick.append((seat, card))
        if len(world.trick) == 4:
            wseat = world.trick[winning_index(world.trick, trump)][0]
            pts[wseat % 2] += sum(card_points(c, trump) for _, c in world.trick)
            world.trick = []
            world.leader = wseat
            tricks_left -= 1
            if tricks_left == 0:
                pts[wseat % 2] += 10
                break
    mine = me % 2
    return pts[mine] - pts[1 - mine]


# ----- sampling the unseen cards ----------------------------------------------------------------
def knowledge(view: dict, me: int) -> tuple[list[str], list[set[str]], dict[str, int]]:
    """Unseen cards, each seat's known voids, and cards known to sit with a seat."""
    trump = view["contract"]["trump"] if view["contract"] else None
    seen = set(view["hand"])
    voids: list[set[str]] = [set(), set(), set(), set()]
    tricks = [t["cards"] for t in view["tricks"]] + ([view["trick"]] if view["trick"] else [])
    for cards in tricks:
        led = cards[0]["card"][0]
        for p in cards:
            seen.add(p["card"])
            if p["card"][0] != led:
                voids[p["seat"]].add(led)
                if trump is not None and p["card"][0] != trump:
                    voids[p["seat"]].add(trump)
    known: dict[str, int] = {}
    taker = view.get("exposed_taker")
    if taker is not None and taker != me and view["exposed"] not in seen:
        known[view["exposed"]] = taker
    for seat, ps in enumerate(view.get("projects") or []):
        if seat == me or not ps:
            continue
        for p in ps:
            for c in p.get("cards", []):
                if c not in seen:
                    known[c] = seat
    unseen = [c for c in BALOOT_DECK if c not in seen]
    return unseen, voids, known


def sample_hands(view: dict, me: int, rng: random.Random, unseen: list[str], voids: list[set[str]],
                 known: dict[str, int]) -> list[list[str]]:
    """Deal ``unseen`` to the other seats: their counts, known cards, voids (relaxed if stuck)."""
    counts = view["counts"]
    for attempt in range(30):
        hands: list[list[str]] = [[], [], [], []]
        hands[me] = list(view["hand"])
        need = [counts[s] if s != me else 0 for s in range(4)]
        free = []
        for c in unseen:
            s = known.get(c)
            if s is not None and need[s] > 0:
                hands[s].append(c)
                need[s] -= 1
            else:
                free.append(c)
        rng.shuffle(free)
        relax = attempt >= 20
        allowed = {c: [s for s in range(4) if s != me and (relax or c[0] not in voids[s])] for c in free}
        free.sort(key=lambda c: len(allowed[c]))
        ok = True
        for c in free:
            seats = [s for s in allowed[c] if need[s] > 0]
            if not seats:
                ok = False
                break
            s = rng.choice(seats)
            hands[s].append(c)
            need[s] -= 1
        if ok:
            return hands
    # last resort: ignore every inference
    hands = [[], [], [], []]
    hands[me] = list(view["hand"])
    pool = list(unseen)
    rng.shuffle(pool)
    for s in range(4):
        if s != me:
            hands[s] = pool[:counts[s]]
            pool = pool[counts[s]:]
    return hands


# ----- the bots -----------------------------------------------------------------------------------
class GreedyBot(Bot):
    game = "baloot"
    style = "greedy"
    description = "Bids from hand strength and plays a fixed card-by-card heuristic without looking ahead."

    # bidding and doubling shared by both styles
    def choose(self, view: dict, legal_moves: list[Move], rng: random.Random, *,
               optional: bool = False) -> Move | None:
        if not legal_moves:
            return None
        phase = view["phase"]
        if phase == "bidding":
            return self._bid(view, legal_moves)
        if phase == "doubling":
            move = self._double(view, legal_moves)
            if optional and move["type"] == "pass":
                return None  # a pass is left to our own turn, so the partner may still take the step
            return move
        if phase == "projects":
            return max(legal_moves, key=lambda m: sum(_PROJECT_VALUE[p["kind"]] for p in m["projects"]))
        if optional:
            return None
        return self._play(view, legal_moves, rng)

    def _bid(self, view: dict, moves: list[Move]) -> Move:
        types = {m["type"] for m in moves}
        hand = list(view["hand"]) + [view["exposed"]]
        exposed_suit = view["exposed"][0]
        sun = sun_strength(hand)
        stage = view["bidding"]["stage"]
        rnd = view["bidding"]["round"]
        if stage == "choice":
            if sun >= SUN_BID + 2:
                return {"type": "sun"}
            confirms = [m for m in moves if m["type"] == "confirm"]
            if rnd == 1:
                return confirms[0]
            return max(confirms, key=lambda m: hokum_strength(hand, m["trump"]))
        if stage in ("overcall", "ashkal_answer"):
            return {"type": "sun"} if sun >= SUN_OVERCALL else {"type": "pass"}
        if "sun" in types and sun >= SUN_BID:
            return {"type": "sun"}
        if "hokum" in types:
            if rnd == 1:
                best = hokum_strength(hand, exposed_suit)
            else:
                best = max(hokum_strength(hand, s) for s in SUITS if s != exposed_suit)
            if best >= HOKUM_BID:
                return {"type": "hokum"}
        return {"type": "pass"}

    def _double(self, view: dict, moves: list[Move]) -> Move:
        contract = view["contract"]
        me = view["seat"]
        step = view["doubling"]["step"]
        hand = view["hand"]
        trump = contract["trump"]
        if contract["team"] != me % 2:  # defenders: double / four
            need = DOUBLE_AT if step == "double" else DOUBLE_AT + 12
            if defence_strength(hand, trump) >= need:
                for m in moves:
                    if m["type"] == step:
                        return {**m, "lock": False} if "lock" in m else m
        else:  # bidders: triple only with a very strong hand; never Gahwa
            if step == "triple" and trump is not None and hokum_strength(hand, trump) >= 34:
                return {"type": "triple"}
        return {"type": "pass"}

    def _play(self, view: dict, moves: list[Move], rng: random.Random) -> Move:
        for m in moves:
            if m["type"] == "sawa":  # only a rules-1 table still lists a Sawa carrying a Baloot claim
                return next((x for x in moves if x["type"] == "sawa" and x.get("baloot")), m)
        cards = sorted({m["card"] for m in moves if m["type"] == "play"}, key=BALOOT_DECK.index)
        card = cards[0] if len(cards) == 1 else self._pick_card(view, cards, rng)
        claim = [m for m in moves if m["type"] == "play" and m["card"] == card and m.get("baloot")]
        return claim[0] if claim else {"type": "play", "card": card}

    def _world(self, view: dict, hands: list[list[str]]) -> World:
        contract = view["contract"]
        dbl = view.get("doubling") or {}
        return World(hands, [(p["seat"], p["card"]) for p in view["trick"]], view["leader"],
                     contract["trump"], bool(dbl.get("lock")), bool(view["options"]["overtrump"]))

    def _pick_card(self, view: dict, cards: list[str], rng: random.Random) -> str:
        me = view["seat"]
        unseen, voids, known = knowledge(view, me)
        hands = sample_hands(view, me, rng, unseen, voids, known)
        return heuristic_card(self._world(view, hands), me, cards)


_PROJECT_VALUE = {"sira": 20, "fifty": 50, "hundred": 100, "four_hundred": 200}


class PimcBot(GreedyBot):
    style = "pimc"
    description = ("Bids from hand strength and picks each card by dealing the unseen cards many times "
                   "and playing every option out (perfect-information Monte Carlo).")
    rollouts = 120  # total play-outs per decision, shared between the candidate cards

    def _pick_card(self, view: dict, cards: list[str], rng: random.Random) -> str:
        me = view["seat"]
        unseen, voids, known = knowledge(view, me)
        samples = max(6, self.rollouts // len(cards))
        totals = dict.fromkeys(cards, 0)
        for _ in range(samples):
            hands = sample_hands(view, me, rng, unseen, voids, known)
            for c in cards:
                world = self._world(view, [list(h) for h in hands])
                totals[c] += play_out(world, me, first=c)
        return max(cards, key=lambda c: (totals[c], -cards.index(c)))


STYLES: dict[str, type[Bot]] = {"pimc": PimcBot, "greedy": GreedyBot}
