"""31 (Otuz bir): a table of hands with antes, pot-limit raises, ebe passing and tournament stacks.

Rules of record: ../shared/spec/otuzbir.md (and economy.md for chips). The project's rules doc
docs/rules/otuzbir.md lists every [decided] point and every reading chosen here.

State layout (plain JSON). Besides the base keys (see base.py):
``hand``        index d of the current hand (the table's own count, from 0; shuffle ``d:kocok``)
``ebe``         the current hand's dealer; ``order`` play order (ebe altı first, ebe last)
``phase``       "predeal" | "predeal_answer" | "turn" | "answer" | "over"
``turn``        the seat deciding in "predeal"/"turn"
``raise``       the raise being answered: {seat, amount, kind, queue, seen, folded} or None
``status``      per seat: "out" (not in this hand) | "in" | "stood" | "31" | "folded" | "bust"
``closed``/``open``  per seat, the cards of the current hand; ``deck`` the hand's shuffled deck
                and ``pos`` the next card to deal (``deck[pos:]`` is the stock)
``contrib``/``pot``  chips put in this hand; ``net`` per-seat net chips over finished hands
``stacks``      tournament stacks at the current hand's start (None at cash tables)
"""

from __future__ import annotations

from typing import Any

from . import fairness
from .base import Engine, Event, GameSpec, IllegalMove, Move, State, copy_json, require_dict, require_int

DECK: tuple[str, ...] = fairness.OTUZBIR_DECK

# Card facts used by the scorer (and by the bots' fast simulator).
LOW_VALUE: dict[str, int] = {
    c: (1 if c[1] == "A" else 10 if c[1] in "TJQK" else int(c[1])) for c in DECK
}
EBE_VALUE: dict[str, int] = {c: (11 if c[1] == "A" else LOW_VALUE[c]) for c in DECK}

# Hand scores: higher is better. Categories have no order inside them (every 31 ties every 31).
SCORE_31 = 100
SCORE_CIN = 90
SCORE_CENGEL = 80
SCORE_YONCA = 70
SCORE_14 = 60
SCORE_NONE = 0  # a total under 26 that is not special: may not stand
SCORE_BUST = -1
STAND_MIN = 26

CATEGORY_NAMES = {SCORE_31: "31", SCORE_CIN: "cin", SCORE_CENGEL: "cengel", SCORE_YONCA: "yonca",
                  SCORE_14: "14", SCORE_NONE: "none", SCORE_BUST: "bust"}

LIVE = ("in", "stood", "31")  # statuses still competing for the pot
MOVE_KEYS = {
    "pass": {"type", "auto"}, "raise": {"type", "amount", "auto"},
    "open": {"type", "auto"}, "closed": {"type", "amount", "auto"},
    "stand": {"type", "auto"}, "raise_stand": {"type", "amount", "auto"},
    "see": {"type", "auto"}, "fold": {"type", "auto"}, "leave": {"type", "auto"},
}
PHASE_MOVES = {
    "predeal": ("pass", "raise"),
    "turn": ("open", "closed", "stand", "raise_stand"),
    "predeal_answer": ("see", "fold"),
    "answer": ("see", "fold"),
}
OPTION_KEYS = {"ante", "rake_bps", "hands", "stacks", "ante_schedule", "hand_offset", "ebe", "rules"}
# Rules revisions (option ``rules``; docs/rules/otuzbir.md, "Rules revisions"). New tables use RULES.
# Revision 1 is how tables were played before issue 20: a tournament leaver ranked with that hand's
# busts by its starting stack (so two could share a place), the result had no ``left_at`` and a move
# back in time was accepted. It is kept only so that the logs of those tables replay to their recorded
# results (proof verification, replays); a state saved before revisions existed is revision 1.
RULES = 2
LEGACY_RULES = 1
DEFAULT_CASH_HANDS = 10
DEFAULT_DOUBLE_EVERY = 5


def score_parts(low: int, aces: int, ncards: int, two_card_special: int) -> int:
    """Score from the low total (Aces as 1), the Ace count, the card count and the two-card class."""
    if low > 31:
        return SCORE_BUST
    best = low
    has14 = low == 14
    total = low
    for _ in range(aces):
        total += 10  # one more Ace counted as 11
        if total == 31:
            return SCORE_31
        if total == 14:
            has14 = True
        if total <= 31:
            best = total
    if low == 31:
        return SCORE_31
    if ncards == 2 and two_card_special:
        return two_card_special
    if has14:
        return SCORE_14
    return best if STAND_MIN <= best <= 30 else SCORE_NONE


def two_card_class(a: str, b: str) -> int:
    """Cin, Çengel, Yonca (or 0) for a two-card hand."""
    if a[1] == "A" and b[1] == "A":
        return SCORE_CIN
    if a[1] == "J" and b[1] == "J":
        return SCORE_CENGEL
    if a[0] == "C" and b[0] == "C":
        return SCORE_YONCA
    return 0


def hand_score(cards: list[str]) -> int:
    """The hand's best category over every way of counting its Aces (see the spec's list)."""
    low = sum(LOW_VALUE[c] for c in cards)
    aces = sum(1 for c in cards if c[1] == "A")
    special = two_card_class(cards[0], cards[1]) if len(cards) == 2 else 0
    return score_parts(low, aces, len(cards), special)


def category(score: int) -> str:
    """Public name of a score: "31", "cin", "cengel", "yonca", "14", "26".."30", "none", "bust"."""
    return CATEGORY_NAMES.get(score, str(score))


def can_stand(score: int) -> bool:
    """Standing needs 26 or more, or a special hand (31 ends the turn by itself)."""
    return score >= STAND_MIN and score != SCORE_31


def totals(cards: list[str]) -> list[int]:
    """Every total the hand can count (for displays)."""
    low = sum(LOW_VALUE[c] for c in cards)
    aces = sum(1 for c in cards if c[1] == "A")
    return [low + 10 * k for k in range(aces + 1)]


def raise_amounts(pot: int) -> list[int]:
    """Concrete raises offered: the minimum, a quarter, a half, three quarters and the whole pot."""
    return sorted({1, max(1, pot // 4), max(1, pot // 2), max(1, 3 * pot // 4), max(1, pot)})


def pick_winner(candidates: list[int], scores: dict[int, int], ebe: int, order: list[int]) -> int:
    """Best score wins; equal hands: the ebe, else the first in play order from ebe altı."""
    best = max(scores[s] for s in candidates)
    tied = [s for s in candidates if scores[s] == best]
    if ebe in tied:
        return ebe
    return min(tied, key=order.index)


def ebe_draw(seed: bytes, n: int) -> tuple[int, list[list[dict]], list[str]]:
    """High open card from shuffle 0:ebe; only tied players draw again, in seat order."""
    cards = fairness.shuffle(seed, 0, "ebe", list(DECK))
    pos, contenders, rounds = 0, list(range(n)), []
    while True:
        drawn = []
        for s in contenders:
            drawn.append({"seat": s, "card": cards[pos]})
            pos += 1
        rounds.append(drawn)
        best = max(EBE_VALUE[d["card"]] for d in drawn)
        contenders = [d["seat"] for d in drawn if EBE_VALUE[d["card"]] == best]
        if len(contenders) == 1:
            return contenders[0], rounds, cards


def _normal_options(options: dict | None, n: int) -> dict:
    """Validate options and fill every default, so the stored options replay identically."""
    raw = dict(options or {})
    unknown = set(raw) - OPTION_KEYS
    if unknown:
        raise ValueError(f"unknown 31 options: {sorted(unknown)}")

    def whole(value: Any, lo: int, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < lo:
            raise ValueError(f"{what} must be a whole number >= {lo}")
        return value

    ante = whole(raw.get("ante", 1), 1, "ante")
    rake = whole(raw.get("rake_bps", 0), 0, "rake_bps")
    if rake > 10000:
        raise ValueError("rake_bps must be at most 10000")
    stacks = raw.get("stacks")
    if stacks is not None:
        if not isinstance(stacks, list) or len(stacks) != n:
            raise ValueError("stacks must list one starting stack per seat")
        stacks = [whole(v, 1, "a stack") for v in stacks]
    hands = raw.get("hands", DEFAULT_CASH_HANDS if stacks is None else None)
    if hands is not None:
        hands = whole(hands, 1, "hands")
    if "ante_schedule" in raw:
        schedule = raw["ante_schedule"]
    else:  # tournaments double the ante every 5 hands (spec); cash tables keep a flat ante
        schedule = None if stacks is None else {"base": ante, "double_every": DEFAULT_DOUBLE_EVERY}
    if schedule is not None:
        if isinstance(schedule, list):
            if not schedule:
                raise ValueError("ante_schedule levels must not be empty")
            schedule = {"levels": [whole(v, 1, "an ante level") for v in schedule],
                        "every": DEFAULT_DOUBLE_EVERY}
        elif isinstance(schedule, dict) and set(schedule) == {"base", "double_every"}:
            schedule = {"base": whole(schedule["base"], 1, "base"),
                        "double_every": whole(schedule["double_every"], 1, "double_every")}
        elif isinstance(schedule, dict) and set(schedule) == {"levels", "every"}:
            levels = schedule["levels"]
            if not isinstance(levels, list) or not levels:
                raise ValueError("ante_schedule levels must be a non-empty list")
            schedule = {"levels": [whole(v, 1, "an ante level") for v in levels],
                        "every": whole(schedule["every"], 1, "every")}
        else:
            raise ValueError("ante_schedule must be {base, double_every}, {levels, every} or a list")
    rules = raw.get("rules", RULES)
    if isinstance(rules, bool) or rules not in (LEGACY_RULES, RULES):
        raise ValueError(f"rules must be {LEGACY_RULES} or {RULES}")
    offset = whole(raw.get("hand_offset", 0), 0, "hand_offset")
    ebe = raw.get("ebe")
    if ebe is not None:
        ebe = whole(ebe, 0, "ebe")
        if ebe >= n:
            raise ValueError("ebe must be a seat number")
    return {"ante": ante, "rake_bps": rake, "hands": hands, "stacks": stacks,
            "ante_schedule": schedule, "hand_offset": offset, "ebe": ebe, "rules": rules}


def ante_for(options: dict, level_hand: int) -> int:
    """The ante of the table's hand number ``level_hand`` (hand_offset + d)."""
    schedule = options["ante_schedule"]
    if schedule is None:
        return options["ante"]
    if "levels" in schedule:
        levels = schedule["levels"]
        return levels[min(level_hand // schedule["every"], len(levels) - 1)]
    return schedule["base"] * 2 ** (level_hand // schedule["double_every"])


class OtuzbirEngine(Engine):
    spec = GameSpec(name="otuzbir", label="31 (Otuz bir)", min_seats=2, max_seats=7,
                    stake_kinds=("casual", "ante"), tournament="freezeout")

    def normal_options(self, options: dict | None, seats: int) -> dict:
        return _normal_options(options, seats)

    def stake_options(self, *, stake_kind: str, stake: int, rake_bps: int) -> dict:
        if stake_kind == "ante":
            return {"ante": stake, "rake_bps": rake_bps}
        return {"ante": 1, "rake_bps": 0}  # a free table plays for score: the pot is never raked

    # ----- setup ------------------------------------------------------------------
    def new(self, seed: bytes, seats: int, options: dict | None = None) -> State:
        state = self._base_state(seed, seats, None)
        opts = _normal_options(options, seats)
        state["options"] = opts
        if opts["ebe"] is None:
            first, rounds, _ = ebe_draw(self._seed(state), seats)
            # record the 0:ebe shuffle in the proof like every other shuffle
            self._shuffle(state, 0, "ebe", list(DECK))
        else:  # a table formed mid-tournament keeps the tournament's ebe: no draw (rules doc)
            first, rounds = opts["ebe"], []
        state.update({
            "first": first,
            "ebe_draw": rounds,
            "ebe": first,
            "hand": -1,
            "hands_played": 0,
            "in_table": [True] * seats,
            "left": [False] * seats,
            "elim_hand": [None] * seats,   # tournament: the hand after which the seat went out
            "elim_stack": [None] * seats,  # its stack at that hand's start (ranks same-hand exits)
            "left_at": [None] * seats,     # {"ms", "seq"} of the seat's leave move (ranks leavers)
            "net": [0] * seats,
            "stacks": list(opts["stacks"]) if opts["stacks"] is not None else None,
            "history": [],
            "last_hand": None,
            "last_ms": None,
            "auto": None,
            "result": None,
        })
        self._start_hand(state, 0, [])
        return state

    def _start_hand(self, st: State, d: int, events: list[Event]) -> None:
        """Antes, the hand's shuffle and ebe altı's pre-deal decision (mutates ``st``)."""
        n = st["seats"]
        ebe = st["ebe"]
        order = []
        for k in range(1, n + 1):
            s = (ebe + k) % n
            if st["in_table"][s]:
                order.append(s)
        ante = ante_for(st["options"], st["options"]["hand_offset"] + d)
        contrib = [ante if st["in_table"][s] else 0 for s in range(n)]
        st["shuffles"] = list(st["shuffles"])
        deck = self._shuffle(st, d, "kocok", list(DECK))
        st.update({
            "hand": d,
            "order": order,
            "ante": ante,
            "contrib": contrib,
            "pot": sum(contrib),
            "status": ["in" if st["in_table"][s] else "out" for s in range(n)],
            "closed": [[] for _ in range(n)],
            "open": [[] for _ in range(n)],
            "deck": deck,
            "pos": 0,
            "phase": "predeal",
            "turn": order[0],
            "raise": None,
            "raises": [],
            "revealed": [False] * n,
            "dealt": False,
            "start_stacks": list(st["stacks"]) if st["stacks"] is not None else None,
        })
        events.append({"type": "hand_start", "hand": d, "ebe": ebe, "order": list(order),
                       "ante": ante, "pot": st["pot"]})

    # ----- queries ----------------------------------------------------------------
    def is_over(self, state: State) -> bool:
        return state["phase"] == "over"

    def to_act(self, state: State) -> list[int]:
        phase = state["phase"]
        if phase in ("predeal", "turn"):
            return [state["turn"]]
        if phase in ("predeal_answer", "answer"):
            return [state["raise"]["queue"][0]]
        return []

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        if seat not in self.to_act(state):
            return []
        phase = state["phase"]
        amounts = raise_amounts(state["pot"])
        if phase == "predeal":
            return [{"type": "pass"}] + [{"type": "raise", "amount": a} for a in amounts]
        if phase in ("predeal_answer", "answer"):
            return [{"type": "see"}, {"type": "fold"}]
        moves: list[Move] = [{"type": "open"}] + [{"type": "closed", "amount": a} for a in amounts]
        if can_stand(self._score(state, seat)):
            moves.append({"type": "stand"})
            moves += [{"type": "raise_stand", "amount": a} for a in amounts]
        return moves

    @staticmethod
    def _cards(state: State, seat: int) -> list[str]:
        return state["closed"][seat] + state["open"][seat]

    def _score(self, state: State, seat: int) -> int:
        cards = self._cards(state, seat)
        return hand_score(cards) if cards else SCORE_NONE

    def timeout_move(self, state: State, seat: int | None) -> Move:
        if seat is None or seat not in self.to_act(state):
            raise IllegalMove("not_your_turn", "No automatic move is due for this seat.")
        phase = state["phase"]
        if phase == "predeal":
            return {"type": "pass", "auto": True}
        if phase in ("predeal_answer", "answer"):
            score = self._score(state, seat)
            return {"type": "see" if score >= SCORE_14 else "fold", "auto": True}
        if can_stand(self._score(state, seat)):
            return {"type": "stand", "auto": True}
        return {"type": "open", "auto": True}

    def deadline(self, state: State) -> dict | None:
        acting = self.to_act(state)
        if not acting:
            return None
        seat = acting[0]
        # the rest of an automatic turn follows at once
        limit = 0 if state["auto"] == seat and state["phase"] == "turn" else None
        return {"seat": seat, "since_ms": state["last_ms"], "limit_ms": limit}

    # ----- apply --------------------------------------------------------------------
    def apply(self, state: State, seat: int | None, move: Move, *, now_ms: int) -> tuple[State, list[Event]]:
        if state["phase"] == "over":
            raise IllegalMove("game_over", "The table is over.")
        if seat is None:
            raise IllegalMove("bad_seat", "31 has no system steps: a move needs a seat.")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state["seats"]:
            raise IllegalMove("bad_seat", "No such seat.")
        move = require_dict(move)
        kind = move["type"]
        if kind not in MOVE_KEYS:
            raise IllegalMove("unknown_move", f"Unknown move type {kind!r}.")
        if set(move) - MOVE_KEYS[kind]:
            raise IllegalMove("malformed", f"Unexpected keys in a {kind} move.")
        if "auto" in move and move["auto"] is not True:
            raise IllegalMove("malformed", "'auto' may only be true.")
        require_int(now_ms, "malformed", "now_ms")
        amount = None
        if "amount" in MOVE_KEYS[kind]:
            if "amount" not in move:
                raise IllegalMove("malformed", f"A {kind} move needs an amount.")
            amount = require_int(move["amount"], "bad_amount", "amount")

        if kind == "leave":
            if not state["in_table"][seat]:
                raise IllegalMove("not_in_game", "This seat has already left the table.")
        else:
            if seat not in self.to_act(state):
                raise IllegalMove("not_your_turn", "It is not this seat's turn.")
            if kind not in PHASE_MOVES[state["phase"]]:
                raise IllegalMove("wrong_phase", f"A {kind} move is not possible now.")
            if amount is not None:
                if amount < 1:
                    raise IllegalMove("bad_amount", "A raise is at least 1 chip.")
                if amount > state["pot"]:
                    raise IllegalMove("over_pot_limit", f"A raise may be at most the pot ({state['pot']}).")
            if kind in ("stand", "raise_stand") and not can_stand(self._score(state, seat)):
                raise IllegalMove("cannot_stand", "You may not stand under 26 unless the hand is 14, Yonca, Çengel or Cin.")

        # The clock is the last check before a change (an illegal move keeps its own code): a move
        # stamped before the last logged one is refused, as in Cherki and Lembar.
        last = state["last_move_ms"]
        if last is not None and now_ms < last and self._rules(state) >= RULES:
            raise IllegalMove("time_backwards", "now_ms is earlier than the last move's: time never runs backwards.")
        st = self._fork(state)
        st["moves"] = list(state["moves"])
        self._log_move(st, seat, move, now_ms)
        st["last_ms"] = now_ms
        events: list[Event] = []
        auto = move.get("auto") is True
        if kind == "leave":
            self._leave(st, seat, events, now_ms)
        elif kind in ("pass", "raise"):
            self._predeal(st, seat, amount, events)
        elif kind in ("see", "fold"):
            self._answer(st, seat, kind, events)
        else:
            self._turn(st, seat, kind, amount, events)
        # only an automatic open card continues an automatic turn (a new decision gets the full timer)
        st["auto"] = seat if auto and kind == "open" and st["phase"] == "turn" and st["turn"] == seat else None
        return st, events

    @staticmethod
    def _fork(state: State) -> State:
        """Copy what a move may change; the deck, shuffles and logs are shared until appended to."""
        st = dict(state)
        for key in ("contrib", "status", "revealed", "in_table", "left", "elim_hand", "elim_stack", "net"):
            st[key] = list(state[key])
        st["closed"] = [list(c) for c in state["closed"]]
        st["open"] = [list(c) for c in state["open"]]
        if state["stacks"] is not None:
            st["stacks"] = list(state["stacks"])
        return st

    # ----- the steps of a hand (all mutate the forked ``st``) ---------------------------
    def _predeal(self, st: State, seat: int, amount: int | None, events: list[Event]) -> None:
        if amount is None:
            events.append({"type": "pass", "seat": seat})
            self._deal(st, events)
        else:
            self._open_raise(st, seat, amount, "predeal", events)

    def _open_raise(self, st: State, seat: int, amount: int, kind: str, events: list[Event]) -> None:
        st["contrib"][seat] += amount
        st["pot"] += amount
        queue = [s for s in st["order"] if s != seat and st["status"][s] in LIVE]
        st["raise"] = {"seat": seat, "amount": amount, "kind": kind, "queue": queue, "seen": [], "folded": []}
        st["raises"] = st["raises"] + [{"seat": seat, "amount": amount, "kind": kind}]
        st["phase"] = "predeal_answer" if kind == "predeal" else "answer"
        events.append({"type": "raise", "seat": seat, "amount": amount, "kind": kind, "pot": st["pot"]})

    def _answer(self, st: State, seat: int, kind: str, events: list[Event]) -> None:
        r = dict(st["raise"])
        r["queue"] = r["queue"][1:]
        if kind == "see":
            st["contrib"][seat] += r["amount"]
            st["pot"] += r["amount"]
            r["seen"] = r["seen"] + [seat]
            events.append({"type": "see", "seat": seat, "amount": r["amount"], "pot": st["pot"]})
        else:
            st["status"][seat] = "folded"
            r["folded"] = r["folded"] + [seat]
            events.append({"type": "fold", "seat": seat})
        st["raise"] = r
        if self._one_left(st, events):
            return
        if not r["queue"]:
            self._finish_raise(st, events)

    def _finish_raise(self, st: State, events: list[Event]) -> None:
        """Every answer is in: deal (pre-deal), give the raiser the closed card, or stand."""
        r = st["raise"]
        st["raise"] = None
        raiser = r["seat"]
        if r["kind"] == "predeal":
            self._deal(st, events)
        elif r["kind"] == "closed":
            st["phase"] = "turn"
            self._draw(st, raiser, closed=True, events=events)
        else:
            st["phase"] = "turn"
            st["status"][raiser] = "stood"
            events.append({"type": "stand", "seat": raiser})
            self._next_turn(st, events)

    def _deal(self, st: State, events: list[Event]) -> None:
        """One closed card to each player still in, in play order."""
        pos = st["pos"]
        dealt = []
        for s in st["order"]:
            if st["status"][s] == "in":
                st["closed"][s].append(st["deck"][pos])
                pos += 1
                dealt.append(s)
        st["pos"] = pos
        st["dealt"] = True
        st["phase"] = "turn"
        events.append({"type": "deal", "seats": dealt})
        self._next_turn(st, events)

    def _turn(self, st: State, seat: int, kind: str, amount: int | None, events: list[Event]) -> None:
        if kind == "open":
            self._draw(st, seat, closed=False, events=events)
        elif kind == "stand":
            st["status"][seat] = "stood"
            events.append({"type": "stand", "seat": seat})
            self._next_turn(st, events)
        else:
            assert amount is not None
            self._open_raise(st, seat, amount, "closed" if kind == "closed" else "stand", events)

    def _draw(self, st: State, seat: int, *, closed: bool, events: list[Event]) -> None:
        card = st["deck"][st["pos"]]
        st["pos"] += 1
        if closed:
            st["closed"][seat].append(card)
            events.append({"type": "closed_card", "seat": seat})  # the card itself stays private
        else:
            st["open"][seat].append(card)
            events.append({"type": "open_card", "seat": seat, "card": card})
        score = self._score(st, seat)
        if score == SCORE_31:
            st["status"][seat] = "31"
            events.append({"type": "made_31", "seat": seat})
            self._next_turn(st, events)
        elif score == SCORE_BUST:
            st["status"][seat] = "bust"
            events.append({"type": "bust", "seat": seat})
            if not self._one_left(st, events):
                self._next_turn(st, events)

    def _next_turn(self, st: State, events: list[Event]) -> None:
        """The next player yet to act, or the showdown once everyone has acted."""
        if self._one_left(st, events):
            return
        for s in st["order"]:
            if st["status"][s] == "in":
                st["turn"] = s
                st["phase"] = "turn"
                events.append({"type": "turn", "seat": s})
                return
        live = [s for s in st["order"] if st["status"][s] in LIVE]
        scores = {s: self._score(st, s) for s in live}
        winner = pick_winner(live, scores, st["ebe"], st["order"])
        self._end_hand(st, winner, live, events)

    def _one_left(self, st: State, events: list[Event]) -> bool:
        live = [s for s in st["order"] if st["status"][s] in LIVE]
        if len(live) == 1:
            self._end_hand(st, live[0], [], events)
            return True
        return False

    def _leave(self, st: State, seat: int, events: list[Event], now_ms: int) -> None:
        """Leaving is a fold now and the seat is out of every later hand."""
        st["in_table"][seat] = False
        st["left"][seat] = True
        # The leave's moment ranks a tournament leaver (the later ranks higher); the move is logged
        # already, so its seq is move_count. A state saved before the key existed gets it here.
        left_at = list(st.get("left_at") or [None] * st["seats"])
        left_at[seat] = {"ms": now_ms, "seq": st["move_count"]}
        st["left_at"] = left_at
        if st["stacks"] is not None:  # in a tournament leaving counts as going out in this hand
            st["elim_hand"][seat] = st["hand"]
            st["elim_stack"][seat] = st["start_stacks"][seat]
        events.append({"type": "leave", "seat": seat})
        if st["status"][seat] not in LIVE:
            return
        st["status"][seat] = "folded"
        events.append({"type": "fold", "seat": seat})
        r = st["raise"]
        if r is not None:
            if r["seat"] == seat:
                # the raiser is gone: nobody needs to answer the rest of its raise
                st["raise"] = None
                if self._one_left(st, events):
                    return
                if r["kind"] == "predeal":
                    self._deal(st, events)
                else:
                    st["phase"] = "turn"
                    self._next_turn(st, events)
                return
            if seat in r["queue"]:
                r = dict(r)
                r["queue"] = [s for s in r["queue"] if s != seat]
                r["folded"] = r["folded"] + [seat]
                st["raise"] = r
            if self._one_left(st, events):
                return
            if not r["queue"]:
                self._finish_raise(st, events)
            return
        if self._one_left(st, events):
            return
        if st["turn"] == seat:
            if st["phase"] == "predeal":
                self._deal(st, events)  # no pre-deal raise from a seat that left
            else:
                self._next_turn(st, events)

    def _end_hand(self, st: State, winner: int, compared: list[int], events: list[Event]) -> None:
        """Pay the pot, settle stacks and eliminations, move the ebe, start the next hand or end."""
        n = st["seats"]
        d = st["hand"]
        pot = st["pot"]
        rake = pot * st["options"]["rake_bps"] // 10000
        payouts = [0] * n
        payouts[winner] = pot - rake
        contributions = list(st["contrib"])
        for s in range(n):
            st["net"][s] += payouts[s] - contributions[s]
        eliminated = []
        if st["stacks"] is not None:
            for s in range(n):
                st["stacks"][s] += payouts[s] - contributions[s]
            for s in range(n):
                if st["in_table"][s] and st["stacks"][s] <= 0:
                    st["in_table"][s] = False
                    st["elim_hand"][s] = d
                    st["elim_stack"][s] = st["start_stacks"][s]
            eliminated = [s for s in range(n) if st["elim_hand"][s] == d]
        winner_score = self._score(st, winner)
        revealed = sorted(set(compared) | ({winner} if compared else set()))
        for s in revealed:
            st["revealed"][s] = True
        old_ebe = st["ebe"]
        next_ebe = winner if winner_score == SCORE_31 else old_ebe
        if not st["in_table"][next_ebe]:
            next_ebe = self._next_in_table(st, next_ebe)
        showdown = [{"seat": s, "category": category(self._score(st, s))} for s in revealed]
        summary_public = {
            "hand": d, "pot": pot, "contributions": contributions, "payouts": payouts, "rake": rake,
            "winner": winner, "winner_category": category(winner_score) if revealed else None,
            "showdown": showdown, "raises": list(st["raises"]), "eliminated": eliminated,
            "ebe": old_ebe, "next_ebe": next_ebe,
        }
        st["last_hand"] = summary_public
        st["history"] = st["history"] + [{
            **summary_public,
            "order": list(st["order"]),
            "status": list(st["status"]),
            "closed": [list(c) for c in st["closed"]],
            "open": [list(c) for c in st["open"]],
        }]
        events.append({"type": "hand_over", **summary_public,
                       "revealed": [list(st["closed"][s]) + list(st["open"][s]) if st["revealed"][s] else None
                                    for s in range(n)]})
        st["raise"] = None
        st["hands_played"] += 1
        st["ebe"] = next_ebe
        players_left = sum(st["in_table"])
        limit = st["options"]["hands"]
        if players_left < 2 or (limit is not None and st["hands_played"] >= limit):
            st["phase"] = "over"
            st["turn"] = None
            st["result"] = self._result(st)
            events.append({"type": "game_over", "result": st["result"]})
        else:
            self._start_hand(st, d + 1, events)

    @staticmethod
    def _next_in_table(st: State, seat: int) -> int:
        n = st["seats"]
        for k in range(1, n + 1):
            s = (seat + k) % n
            if st["in_table"][s]:
                return s
        return seat

    def _result(self, st: State) -> dict:
        n = st["seats"]
        left_at = st.get("left_at") or [None] * n
        legacy = self._rules(st) < RULES
        if st["stacks"] is None:
            keys: list[tuple] = [(st["net"][s],) for s in range(n)]
        elif legacy:  # revision 1: leavers ranked with the hand's busts by starting stack
            keys = [(1, 0, st["stacks"][s]) if st["elim_hand"][s] is None
                    else (0, st["elim_hand"][s], st["elim_stack"][s]) for s in range(n)]
        else:
            keys = [self._tournament_key(st, s, left_at[s]) for s in range(n)]
        ranks = [1 + sum(1 for k in keys if k > keys[s]) for s in range(n)]
        result = {
            "ranks": ranks,
            "winners": [s for s in range(n) if ranks[s] == 1],
            "net": list(st["net"]),
            "stacks": list(st["stacks"]) if st["stacks"] is not None else None,
            "hands_played": st["hands_played"],
            "eliminated": list(st["elim_hand"]),
            "left": list(st["left"]),
            "left_at": copy_json(left_at),
            "rake": sum(h["rake"] for h in st["history"]),
        }
        if legacy:  # the result as revision 1 recorded it
            del result["left_at"]
        return result

    @staticmethod
    def _rules(state: State) -> int:
        """The rules revision the table is played by (a state saved before revisions: 1)."""
        return state["options"].get("rules", LEGACY_RULES)

    def replay_start(self, seed: bytes, seats: int, options: dict | None, moves: list) -> State:
        """A logged table's options without ``rules`` were saved before revisions existed: it was
        played by revision 1 (a proof or a stored state from then), so it is replayed by it."""
        return self.new(seed, seats, {"rules": LEGACY_RULES, **(options or {})})

    def proof(self, state: State) -> dict:
        doc = super().proof(state)
        # The verifier replays from these options: name the revision even for a state saved before
        # revisions existed, so its log replays to its recorded result.
        doc["options"] = {**doc["options"], "rules": self._rules(state)}
        return doc

    @staticmethod
    def _tournament_key(st: State, s: int, left: dict | None) -> tuple:
        """Higher is better. Players still in rank by stack, above everyone eliminated; the
        eliminated by when they went out (spec, Tournament): a later hand is better; within a hand a
        leaver went out at that moment, before the busts at the hand's end, which rank by the stack at
        its start (equal stacks share); of several leavers the later (higher seq) ranks higher."""
        if st["elim_hand"][s] is None:
            return (1, 0, 0, st["stacks"][s])
        if st["left"][s]:
            # revision 2 states always carry left_at (new() makes it); 0 only for a hand-made state
            return (0, st["elim_hand"][s], 0, left["seq"] if left else 0)
        return (0, st["elim_hand"][s], 1, st["elim_stack"][s])

    def result(self, state: State) -> dict:
        if state["result"] is not None:
            return state["result"]
        return self._result(state)

    # ----- views --------------------------------------------------------------------
    def _visible_closed(self, state: State, seat: int | None, s: int) -> bool:
        return s == seat or state["revealed"][s]

    def view(self, state: State, seat: int | None) -> dict:
        n = state["seats"]
        players = []
        for s in range(n):
            entry: dict[str, Any] = {
                "seat": s,
                "in_table": state["in_table"][s],
                "left": state["left"][s],
                "status": state["status"][s],
                "open": list(state["open"][s]),
                "closed_count": len(state["closed"][s]),
                "card_count": len(state["closed"][s]) + len(state["open"][s]),
                "contribution": state["contrib"][s],
                "net": state["net"][s],
            }
            if state["stacks"] is not None:
                entry["stack"] = state["stacks"][s]  # at the hand's start
                entry["chips"] = state["stacks"][s] - (0 if state["phase"] == "over" else state["contrib"][s])
            if self._visible_closed(state, seat, s):
                entry["closed"] = list(state["closed"][s])
                cards = self._cards(state, s)
                if cards:
                    entry["category"] = category(hand_score(cards))
                    entry["totals"] = totals(cards)
            players.append(entry)
        r = state["raise"]
        view: dict[str, Any] = {
            "game": self.name,
            "seat": seat,
            "commitment": state["commitment"],
            "to_act": self.to_act(state),
            "over": self.is_over(state),
            "phase": state["phase"],
            "hand": state["hand"],
            "level_hand": state["options"]["hand_offset"] + state["hand"],
            "hands": state["options"]["hands"],
            "hands_played": state["hands_played"],
            "ebe": state["ebe"],
            "order": list(state["order"]),
            "turn": state["turn"] if state["phase"] in ("predeal", "turn") else None,
            "ante": state["ante"],
            "pot": state["pot"],
            "rake_bps": state["options"]["rake_bps"],
            "stock_count": len(state["deck"]) - state["pos"],
            "raise": None if r is None else {
                "seat": r["seat"], "amount": r["amount"], "kind": r["kind"],
                "to_answer": list(r["queue"]), "seen": list(r["seen"]), "folded": list(r["folded"])},
            "raises": list(state["raises"]),
            "players": players,
            # the 0:ebe draw was a separate, public, face-up shuffle (rank and suit, see the rules doc)
            "ebe_draw": [[{"seat": x["seat"], "rank": x["card"][1], "suit": x["card"][0]} for x in rnd]
                         for rnd in state["ebe_draw"]],
            "last_hand": copy_json(state["last_hand"]),
            "result": copy_json(state["result"]),
        }
        if seat is not None and 0 <= seat < n:
            view["can_stand"] = (state["phase"] == "turn" and state["turn"] == seat
                                 and can_stand(self._score(state, seat)))
        return view

    def replay_view(self, state: State) -> dict:
        view = self.view(state, None)
        for s, entry in enumerate(view["players"]):
            entry["closed"] = list(state["closed"][s])
            cards = self._cards(state, s)
            if cards:
                entry["category"] = category(hand_score(cards))
                entry["totals"] = totals(cards)
        view["stock"] = list(state["deck"][state["pos"]:])
        view["history"] = [dict(h) for h in state["history"]]
        view["ebe_draw_cards"] = [[dict(x) for x in rnd] for rnd in state["ebe_draw"]]
        return view

    def all_cards(self, state: State) -> list[str]:
        cards: list[str] = []
        for s in range(state["seats"]):
            cards += state["closed"][s] + state["open"][s]
        return cards + list(state["deck"][state["pos"]:])

    def hidden_cards(self, state: State, seat: int | None) -> list[str]:
        hidden = list(state["deck"][state["pos"]:])
        for s in range(state["seats"]):
            if not self._visible_closed(state, seat, s):
                hidden += state["closed"][s]
        return hidden


ENGINE = OtuzbirEngine()
