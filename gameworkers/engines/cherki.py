"""Cherki: the rules of record are ../shared/spec/cherki.md; docs/rules/cherki.md documents
every reading this engine takes where the spec leaves a choice.

Three seats; the player on a seat's left is ``(s + 1) % 3``. A game is a sequence of deals
that ends with the first deal that has a winner, or after three void deals in a row.

CherkiState layout (plain JSON; ``apply`` copies only what it changes, the lists of log entries are
shared between states because entries are never mutated once appended):

``deal`` index, ``dealer``, ``turn`` (seat to act), ``phase`` ("draw" | "discard" | "over"),
``hands`` (three lists kept in canonical face order), ``stock`` (the undealt part of the
deal's shuffle, top = index 0) with ``stock_pos`` (cards already drawn), ``pile`` (discards,
bottom first), ``known`` (per seat: cards taken from the pile and still publicly known to be
held), ``called``, ``left``, ``drawn`` / ``took`` (the card that started this turn, if any),
``auto_turn`` (this turn's draw was automatic: its discard is due at once), ``turn_since``
(now_ms at which the turn started; None = table start), ``turns`` (completed turns in the deal),
``void_deals`` (void deals so far, all in a row since any win ends the game), ``past_deals``,
``win`` (the winning hand once won), ``over``.
"""

from __future__ import annotations

from typing import Any

from . import fairness
from .base import Engine, Event, GameSpec, IllegalMove, Move, MoveRule
from .states import CherkiState

SEATS = 3
DEAL_ROUNDS = 4          # two cards at a time, four times: eight each
CARDS_PER_PACKET = 2
HAND = 8
TURN_LIMIT = 200         # a deal reaching 200 completed turns is void [decided]
VOID_LIMIT = 3           # three void deals in a row end the game [decided]

FACES: tuple[str, ...] = fairness.CHERKI_FACES
FACE_INDEX: dict[str, int] = {f: i for i, f in enumerate(FACES)}
HONOURS = ("WF", "RF", "OT")


def key_of(card: str) -> str:
    """The set key: the number for number cards (suits do not matter), the face for honours."""
    return card if card in HONOURS else card[1]


KEY: dict[str, str] = {f: key_of(f) for f in FACES}  # precomputed: wait_key runs on every move


def _key_counts(cards: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for c in cards:
        k = KEY[c]
        counts[k] = counts.get(k, 0) + 1
    return counts


def _wait_of_counts(counts: dict[str, int]) -> str | None:
    wait = None
    for key, n in counts.items():
        r = n % 3
        if r == 1 or (r == 2 and wait is not None):
            return None
        if r == 2:
            wait = key
    return wait


def points_of(card: str) -> int:
    """Card points: a number card scores its number, each honour 1."""
    return 1 if card in HONOURS else int(card[1])


def sort_cards(cards: list[str]) -> list[str]:
    return sorted(cards, key=FACE_INDEX.__getitem__)


def wait_key(cards: list[str]) -> str | None:
    """For eight cards shaped two triples + one pair, the key that completes the third triple.

    Counts per key must all be 0 or 2 modulo 3 with exactly one 2 (e.g. 3+3+2, 5+3, 6+2, 8):
    whatever partition is chosen, that key is the only one that completes the hand.
    """
    if len(cards) != HAND:
        return None
    return _wait_of_counts(_key_counts(cards))


def ready_discards(cards: list[str]) -> set[str]:
    """Of nine cards, the keys whose discard leaves eight cards ready to call."""
    counts = _key_counts(cards)
    keys = set()
    for k in list(counts):
        counts[k] -= 1
        if _wait_of_counts(counts) is not None:
            keys.add(k)
        counts[k] += 1
    return keys


class CherkiEngine(Engine):
    # Bracket tables of three: one winner per table.
    spec = GameSpec(name="cherki", label="Cherki", min_seats=SEATS, max_seats=SEATS,
                    stake_kinds=("casual", "per_point"), bracket_size=SEATS)

    # The envelope (docs/rules/moves.md): the seat on turn draws (automatic too), takes, calls and
    # discards (automatic too); a leave is any seat's at any time.
    move_rules = {
        "draw": MoveRule("_draw", auto=True),
        "take": MoveRule("_take"),
        "call": MoveRule("_call"),
        "discard": MoveRule("_discard", keys=("card", "call"), auto=True),
        "leave": MoveRule("_leave", turn=False),
    }
    turn_key = "turn"

    # ----- setup --------------------------------------------------------------------
    def new(self, seed: bytes, seats: int, options: dict | None = None) -> CherkiState:
        state = self._base_state(seed, seats, self.normal_options(options, seats))
        state["first"] = fairness.first_player(self._seed(state), SEATS)
        state.update({
            "void_deals": 0,
            "past_deals": [],
            "left": [False] * SEATS,
            "win": None,
            "over": False,
        })
        self._start_deal(state, 0, state["first"], None)
        return state

    def _start_deal(self, state: CherkiState, d: int, dealer: int, now_ms: int | None) -> None:
        """Shuffle ``d:kocok`` and deal (mutates ``state``, which must be a fresh copy)."""
        order = self._shuffle(state, d, "kocok", list(fairness.CHERKI_DECK))
        hands: list[list[str]] = [[] for _ in range(SEATS)]
        pos = 0
        for _ in range(DEAL_ROUNDS):
            for k in range(1, SEATS + 1):  # clockwise from the dealer's left, dealer last
                hands[(dealer + k) % SEATS].extend(order[pos:pos + CARDS_PER_PACKET])
                pos += CARDS_PER_PACKET
        state.update({
            "deal": d,
            "dealer": dealer,
            "turn": (dealer + 1) % SEATS,
            "phase": "draw",
            "hands": [sort_cards(h) for h in hands],
            "stock": order[pos:],
            "stock_pos": 0,
            "pile": [],
            "known": [[] for _ in range(SEATS)],
            "called": [False] * SEATS,
            "drawn": None,
            "took": None,
            "auto_turn": False,
            "turn_since": now_ms,
            "turns": 0,
        })

    # ----- queries ------------------------------------------------------------------
    def is_over(self, state: CherkiState) -> bool:
        return bool(state["over"])

    def to_act(self, state: CherkiState) -> list[int]:
        return [] if state["over"] else [state["turn"]]

    def stock_left(self, state: CherkiState) -> int:
        return len(state["stock"]) - state["stock_pos"]

    def legal_moves(self, state: CherkiState, seat: int) -> list[Move]:
        if state["over"] or isinstance(seat, bool) or not isinstance(seat, int) or seat != state["turn"]:
            return []
        hand = state["hands"][seat]
        pile = state["pile"]
        if state["phase"] == "draw":
            moves: list[Move] = [{"type": "draw"}]
            if state["called"][seat]:
                w = wait_key(hand)
                if pile and key_of(pile[-1]) == w:
                    moves.append({"type": "take"})
                return moves
            if pile:
                moves.append({"type": "take"})
            if wait_key(hand) is not None:
                moves.append({"type": "call"})
            return moves
        moves = []
        took = state["took"]
        ready = ready_discards(hand)
        for face in dict.fromkeys(hand):  # distinct faces, canonical order
            if face == took:
                continue
            moves.append({"type": "discard", "card": face, "call": False})
            if KEY[face] in ready:
                moves.append({"type": "discard", "card": face, "call": True})
        return moves

    def all_cards(self, state: CherkiState) -> list[str]:
        cards = [c for h in state["hands"] for c in h]
        cards += state["stock"][state["stock_pos"]:]
        cards += state["pile"]
        return cards

    def hidden_cards(self, state: CherkiState, seat: int | None) -> list[str]:
        hidden = list(state["stock"][state["stock_pos"]:])
        win_seat = state["win"]["seat"] if state["win"] else None
        for s in range(SEATS):
            if s == seat or s == win_seat:
                continue
            rest = list(state["hands"][s])
            for c in state["known"][s]:  # taken publicly from the pile: everyone saw them
                rest.remove(c)
            hidden += rest
        return hidden

    # ----- moves (``Engine.apply`` checks the envelope, then calls the handler of the type) -------
    @staticmethod
    def _require_draw_phase(state: CherkiState) -> None:
        if state["phase"] != "draw":
            raise IllegalMove("wrong_phase", "You have drawn already: discard a card.")

    # The log takes a shallow copy of the move: the envelope lets only scalar values through, so
    # nothing in the logged dict can be shared and mutated.
    _copy_logged_move = staticmethod(dict)

    def _fork(self, state: CherkiState, seat: int | None, move: Move, now_ms: int) -> CherkiState:
        """A shallow copy with its own move log, the move logged (every accepted move passes here
        after its own checks; the envelope has refused a clock running backwards)."""
        new = dict(state)
        new["moves"] = list(state["moves"])
        self._log_move(new, seat, move, now_ms)
        return new

    def _leave(self, state: CherkiState, seat: int, move: Move, now_ms: int, auto: bool) -> tuple[CherkiState, list[Event]]:
        if state["left"][seat]:
            raise IllegalMove("already_left", "You have already left this game.")
        new = self._fork(state, seat, move, now_ms)
        new["left"] = list(state["left"])
        new["left"][seat] = True
        return new, [{"type": "leave", "seat": seat}]

    def _call(self, state: CherkiState, seat: int, move: Move, now_ms: int, auto: bool) -> tuple[CherkiState, list[Event]]:
        self._require_draw_phase(state)
        if state["called"][seat]:
            raise IllegalMove("already_called", "You have already called Cherki.")
        if wait_key(state["hands"][seat]) is None:
            raise IllegalMove("not_ready", "Cherki needs two triples and a pair among your eight cards.")
        new = self._fork(state, seat, move, now_ms)
        new["called"] = list(state["called"])
        new["called"][seat] = True
        return new, [{"type": "call", "seat": seat}]

    def _take(self, state: CherkiState, seat: int, move: Move, now_ms: int, auto: bool) -> tuple[CherkiState, list[Event]]:
        self._require_draw_phase(state)
        pile = state["pile"]
        if not pile:
            raise IllegalMove("pile_empty", "The discard pile is empty.")
        card = pile[-1]
        hand = state["hands"][seat]
        if state["called"][seat]:
            if key_of(card) != wait_key(hand):
                raise IllegalMove("take_not_completing",
                                  "After calling you may take the top discard only if it completes your hand.")
            new = self._fork(state, seat, move, now_ms)
            new["pile"] = pile[:-1]
            return self._win(new, seat, card, "discard", now_ms, [])
        new = self._fork(state, seat, move, now_ms)
        new["pile"] = pile[:-1]
        new["hands"] = list(state["hands"])
        new["hands"][seat] = sort_cards([*hand, card])
        new["known"] = list(state["known"])
        new["known"][seat] = [*state["known"][seat], card]
        new["took"] = card
        new["phase"] = "discard"
        return new, [{"type": "take", "seat": seat, "card": card}]

    def _draw(self, state: CherkiState, seat: int, move: Move, now_ms: int, auto: bool) -> tuple[CherkiState, list[Event]]:
        self._require_draw_phase(state)
        pos = state["stock_pos"]
        card = state["stock"][pos]  # never empty here: the discard after the last draw ends the deal
        new = self._fork(state, seat, move, now_ms)
        new["stock_pos"] = pos + 1
        hand = state["hands"][seat]
        events: list[Event] = [{"type": "draw", "seat": seat, "auto": auto}]
        if state["called"][seat]:
            if key_of(card) == wait_key(hand):
                return self._win(new, seat, card, "stock", now_ms, events)
            # The locked hand: a non-completing card is discarded straight away (same move).
            new["pile"] = [*state["pile"], card]
            events.append({"type": "discard", "seat": seat, "card": card, "forced": True})
            return self._end_turn(new, now_ms, events)
        new["hands"] = list(state["hands"])
        new["hands"][seat] = sort_cards([*hand, card])
        new["drawn"] = card
        new["phase"] = "discard"
        new["auto_turn"] = auto
        return new, events

    def _discard(self, state: CherkiState, seat: int, move: Move, now_ms: int, auto: bool) -> tuple[CherkiState, list[Event]]:
        if state["phase"] != "discard":
            raise IllegalMove("wrong_phase", "Draw from the stock or take the top discard first.")
        card = move.get("card")
        if not isinstance(card, str) or card not in FACE_INDEX:
            raise IllegalMove("malformed", "'card' must be a card code such as 'C5'.")
        call = move.get("call", False)
        if not isinstance(call, bool):
            raise IllegalMove("malformed", "'call' must be true or false.")
        hand = state["hands"][seat]
        if card not in hand:
            raise IllegalMove("card_not_held", f"You do not hold {card}.")
        if card == state["took"]:
            raise IllegalMove("taken_card", "A card of the face just taken from the pile may not be discarded this turn.")
        kept = list(hand)
        kept.remove(card)
        if call:
            if auto:
                raise IllegalMove("auto_cannot_call", "An automatic move never calls Cherki.")
            if wait_key(kept) is None:
                raise IllegalMove("not_ready", "Cherki needs two triples and a pair among the eight cards kept.")
        new = self._fork(state, seat, move, now_ms)
        new["hands"] = list(state["hands"])
        new["hands"][seat] = kept
        if card in state["known"][seat]:
            new["known"] = list(state["known"])
            known = list(state["known"][seat])
            known.remove(card)
            new["known"][seat] = known
        new["pile"] = [*state["pile"], card]
        events: list[Event] = [{"type": "discard", "seat": seat, "card": card, "auto": auto}]
        if call:
            new["called"] = list(state["called"])
            new["called"][seat] = True
            events.append({"type": "call", "seat": seat})
        return self._end_turn(new, now_ms, events)

    def _end_turn(self, new: CherkiState, now_ms: int, events: list[Event]) -> tuple[CherkiState, list[Event]]:
        """After a discard: the deal is void if the stock is out or the turn cap is reached."""
        new["turns"] = new["turns"] + 1
        new["drawn"] = None
        new["took"] = None
        new["auto_turn"] = False
        new["phase"] = "draw"
        new["turn_since"] = now_ms
        reason = None
        if new["stock_pos"] >= len(new["stock"]):
            reason = "stock_out"
        elif new["turns"] >= TURN_LIMIT:
            reason = "turn_limit"
        if reason is None:
            new["turn"] = (new["turn"] + 1) % SEATS
            return new, events
        return self._void_deal(new, reason, now_ms, events)

    def _void_deal(self, new: CherkiState, reason: str, now_ms: int, events: list[Event]) -> tuple[CherkiState, list[Event]]:
        d = new["deal"]
        new["past_deals"] = [*new["past_deals"], {
            "deal": d, "dealer": new["dealer"], "outcome": "void", "reason": reason, "turns": new["turns"],
            "hands": [list(h) for h in new["hands"]], "called": list(new["called"]),
        }]
        new["void_deals"] = new["void_deals"] + 1
        events.append({"type": "deal_void", "deal": d, "reason": reason})
        if new["void_deals"] >= VOID_LIMIT:
            new["over"] = True
            new["phase"] = "over"
            events.append({"type": "game_over", "result": self.result(new)})
            return new, events
        new["shuffles"] = list(new["shuffles"])
        self._start_deal(new, d + 1, (new["dealer"] + 1) % SEATS, now_ms)  # the next dealer: on the left
        events.append({"type": "deal", "deal": d + 1, "dealer": new["dealer"], "turn": new["turn"]})
        return new, events

    def _win(self, new: CherkiState, seat: int, card: str, source: str, now_ms: int,
             events: list[Event]) -> tuple[CherkiState, list[Event]]:
        cards = sort_cards([*new["hands"][seat], card])
        total = sum(points_of(c) for c in cards)
        deltas = [2 * total if s == seat else -total for s in range(SEATS)]
        new["hands"] = list(new["hands"])
        new["hands"][seat] = cards
        new["win"] = {"seat": seat, "card": card, "source": source, "cards": cards,
                      "points": total, "deltas": deltas}
        new["past_deals"] = [*new["past_deals"], {
            "deal": new["deal"], "dealer": new["dealer"], "outcome": "win", "seat": seat,
            "turns": new["turns"], "hands": [list(h) for h in new["hands"]], "called": list(new["called"]),
        }]
        new["over"] = True
        new["phase"] = "over"
        new["drawn"] = None
        new["took"] = None
        new["auto_turn"] = False
        events = [
            *events,
            {"type": "win", "seat": seat, "card": card, "source": source, "cards": cards,
             "points": total, "deltas": deltas},
            {"type": "game_over", "result": self.result(new)},
        ]
        return new, events

    # ----- timing -------------------------------------------------------------------
    def timeout_move(self, state: CherkiState, seat: int | None) -> Move:
        if state["over"]:
            raise IllegalMove("game_over", "The game is over.")
        if seat != state["turn"]:
            raise IllegalMove("not_your_turn", "Nothing automatic is due for that seat.")
        if state["phase"] == "draw":
            return {"type": "draw", "auto": True}
        if state["drawn"] is not None:
            card = state["drawn"]
        else:  # took the top discard: the first other card in canonical order
            card = next(c for c in state["hands"][seat] if c != state["took"])
        return {"type": "discard", "card": card, "call": False, "auto": True}

    def deadline(self, state: CherkiState) -> dict | None:
        if state["over"]:
            return None
        seat = state["turn"]
        if state["auto_turn"]:
            return {"seat": seat, "since_ms": state["last_move_ms"], "limit_ms": 0}
        if state["left"][seat]:
            return {"seat": seat, "since_ms": state["turn_since"], "limit_ms": 0}
        return {"seat": seat, "since_ms": state["turn_since"], "limit_ms": None}

    # ----- views --------------------------------------------------------------------
    def _public(self, state: CherkiState) -> dict[str, Any]:
        over = state["over"]
        return {
            "game": self.name,
            "phase": state["phase"],
            "to_act": self.to_act(state),
            "over": over,
            "deal": state["deal"],
            "dealer": state["dealer"],
            "turn": state["turn"],
            "turns": state["turns"],
            "turn_limit": TURN_LIMIT,
            "void_deals": state["void_deals"],
            "void_limit": VOID_LIMIT,
            "stock_count": self.stock_left(state),
            "pile": list(state["pile"]),
            "top": state["pile"][-1] if state["pile"] else None,
            "counts": [len(h) for h in state["hands"]],
            "called": list(state["called"]),
            "left": list(state["left"]),
            "known": [list(k) for k in state["known"]],
            "drew_from": ("stock" if state["drawn"] is not None else "pile" if state["took"] is not None else None),
            "took": state["took"],
            "win": dict(state["win"]) if state["win"] else None,
            "scores": list(state["win"]["deltas"]) if state["win"] else [0] * SEATS,
            "result": self.result(state) if over else None,
            "commitment": state["commitment"],
            "first_dealer": state["first"],
        }

    def view(self, state: CherkiState, seat: int | None) -> dict:
        out = self._public(state)
        out["seat"] = seat
        if seat is not None:
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < SEATS:
                raise ValueError("no such seat")
            hand = list(state["hands"][seat])
            out["hand"] = hand
            out["drawn"] = state["drawn"] if seat == state["turn"] else None
            # The completing key once the eight cards are shaped (own information only).
            out["wait"] = wait_key(hand) if len(hand) == HAND else None
        return out  # no seed here at all: the proof document reveals it once the table ends

    def replay_view(self, state: CherkiState) -> dict:
        out = self._public(state)
        out.update({
            "seat": None,
            "hands": [list(h) for h in state["hands"]],
            "stock": list(state["stock"][state["stock_pos"]:]),
            "drawn": state["drawn"],
            "past_deals": [dict(p) for p in state["past_deals"]],
            "seed": state["seed"] if state["over"] else None,
        })
        return out

    def result(self, state: CherkiState) -> dict:
        win = state["win"]
        if win is None:
            # No winner (three void deals, or not over yet): nothing settled, a three-way tie.
            return {"ranks": [1] * SEATS, "winners": list(range(SEATS)), "winner": None,
                    "void": bool(state["over"]), "settled": False, "cards": [], "points": 0,
                    "deltas": [0] * SEATS, "deals": len(state["past_deals"]),
                    "void_deals": state["void_deals"]}
        seat = win["seat"]
        return {"ranks": [1 if s == seat else 2 for s in range(SEATS)], "winners": [seat],
                "winner": seat, "void": False, "settled": True, "cards": list(win["cards"]),
                "points": win["points"], "deltas": list(win["deltas"]), "deals": len(state["past_deals"]),
                "void_deals": state["void_deals"]}


ENGINE = CherkiEngine()
