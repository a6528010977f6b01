"""Lembar: the rules of ../shared/spec/lembar.md (batik-card shedding game, 2-6 seats).

Docs for clients: docs/rules/lembar.md (move formats, error codes, every reading chosen).

Speed matters (random playouts, bots): ``apply`` copies the top-level dict and only the
lists a move touches; card facts come from precomputed tables; no deepcopy per move.
A play or a draw goes from ``apply`` straight to its handler, which inlines the helpers.
The one copy that grows with the game is the move log's: the contract returns the whole
log in a new state and leaves the argument's alone, and a Python list cannot share its
storage, so each move copies the references (~1-3 ns each; the platform hands in an empty
log, see docs/benchmarks/engines.md).
"""

from __future__ import annotations

from typing import Any

from . import fairness
from .base import Engine, Event, GameSpec, IllegalMove, Move, State, competition_ranks, require_dict

DECK: tuple[str, ...] = fairness.LEMBAR_DECK
MOTIFS: tuple[str, ...] = fairness.LEMBAR_MOTIFS
HAND_SIZE = 7
CATCH_MS = 3000  # the seed's 3-second catch window: a catch is in time while now_ms <= since + CATCH_MS
CATCH_PENALTY = 2
TIMEOUTS_TO_REMOVE = 3
DEFAULT_TURN_SECONDS = 20

# Precomputed card facts. Canonical order = first index of the code in the deck.
CANON: dict[str, int] = {}
for _i, _c in enumerate(DECK):
    CANON.setdefault(_c, _i)
CARD_SET: frozenset[str] = frozenset(DECK)
WILDS: frozenset[str] = frozenset({"W", "F"})
MOTIF_OF: dict[str, str | None] = {c: (None if c in WILDS else c[0]) for c in CARD_SET}
SYMBOL_OF: dict[str, str | None] = {c: (None if c in WILDS else c[1:]) for c in CARD_SET}
VALUE_OF: dict[str, int] = {
    c: 50 if c in WILDS else (int(c[1]) if c[1].isdigit() else 20) for c in CARD_SET
}
IS_NUMBER: dict[str, bool] = {c: (c not in WILDS and c[1].isdigit()) for c in CARD_SET}
# What a played card does: None (a number or W: the next seat plays), "S", "R", "D" or "F".
EFFECT_OF: dict[str, str | None] = {c: ("F" if c == "F" else None if c == "W" or IS_NUMBER[c] else c[1])
                                    for c in CARD_SET}

_PLAY_KEYS = frozenset({"type", "card", "motif", "call", "auto"})
_AUTO_ONLY_KEYS = frozenset({"type", "auto"})
_TYPE_ONLY = frozenset({"type"})
_CATCH_KEYS = frozenset({"type", "target"})


def hand_value(hand: list[str]) -> int:
    """Penalty value of cards left in hand (number = its number, action 20, wild 50)."""
    return sum(map(VALUE_OF.__getitem__, hand))


def canonical_sorted(cards: list[str]) -> list[str]:
    return sorted(cards, key=CANON.__getitem__)


def _matching(motif: str, top: str) -> frozenset[str]:
    """Codes that may go on ``top`` while ``motif`` is current (F's hand condition aside)."""
    top_symbol = SYMBOL_OF[top]
    return frozenset(c for c in CARD_SET if MOTIF_OF[c] is None or MOTIF_OF[c] == motif
                     or (top_symbol is not None and SYMBOL_OF[c] == top_symbol))


# MATCH[motif][top]: precomputed so legal_moves/apply test a card with one set lookup.
MATCH: dict[str, dict[str, frozenset[str]]] = {m: {t: _matching(m, t) for t in CARD_SET} for m in MOTIFS}
MOTIF_CARDS: dict[str, frozenset[str]] = {m: frozenset(c for c in CARD_SET if MOTIF_OF[c] == m) for m in MOTIFS}


def is_playable(card: str, top: str, motif: str, hand: list[str]) -> bool:
    """Whether ``card`` may be played on ``top`` (current ``motif``) from ``hand``."""
    if card not in MATCH[motif][top]:
        return False
    if card == "F":
        # Wild draw four: only without a card of the current motif (wilds have no motif).
        return MOTIF_CARDS[motif].isdisjoint(hand)
    return True


def playable_cards(hand: list[str], top: str, motif: str) -> list[str]:
    """Distinct playable card codes of ``hand``, in hand order (deterministic, unlike a set)."""
    ok = MATCH[motif][top]
    found = dict.fromkeys([c for c in hand if c in ok])
    if "F" in found and not MOTIF_CARDS[motif].isdisjoint(hand):
        del found["F"]
    return list(found)


def favourite_motif(hand: list[str]) -> str:
    """The motif held most (ties P, K, T, M): the automatic move's choice for a wild."""
    counts = dict.fromkeys(MOTIFS, 0)
    for c in hand:
        m = MOTIF_OF[c]
        if m is not None:
            counts[m] += 1
    best = MOTIFS[0]
    for m in MOTIFS[1:]:
        if counts[m] > counts[best]:
            best = m
    return best


class LembarEngine(Engine):
    spec = GameSpec(name="lembar", label="Lembar", min_seats=2, max_seats=6, stake_kinds=("casual", "pot"))

    # A validated Lembar move is a flat dict of scalars, so a shallow copy is a full copy
    # (deepcopy per move was the engine's biggest cost).
    _copy_logged_move = staticmethod(dict)

    # ----- setup -----------------------------------------------------------------
    def normal_options(self, options: dict | None, seats: int) -> dict:
        opts = super().normal_options(options, seats)
        turn_seconds = opts.get("turn_seconds", DEFAULT_TURN_SECONDS)
        if isinstance(turn_seconds, bool) or not isinstance(turn_seconds, int) or not 5 <= turn_seconds <= 600:
            raise ValueError("turn_seconds must be a whole number from 5 to 600")
        return opts

    def new(self, seed: bytes, seats: int, options: dict | None = None) -> State:
        opts = self.normal_options(options, seats)
        turn_seconds = opts.get("turn_seconds", DEFAULT_TURN_SECONDS)
        state = self._base_state(seed, seats, opts)
        seed_bytes = self._seed(state)
        stock = self._shuffle(state, 0, "kocok", list(DECK))
        first = fairness.first_player(seed_bytes, seats)
        state["first"] = first
        # Deal one card at a time, starting with the first player, in increasing seat order.
        # (The k-th seat from the first gets every seats-th card from position k.)
        dealt = HAND_SIZE * seats
        hands: list[list[str]] = [[] for _ in range(seats)]
        for k in range(seats):
            hands[(first + k) % seats] = stock[k:dealt:seats]
        stock = stock[dealt:]
        # The starter must be a number card; others go to the bottom of the stock.
        while not IS_NUMBER[stock[0]]:
            stock.append(stock.pop(0))
        starter = stock.pop(0)
        state.update({
            "turn_ms": turn_seconds * 1000,
            "hands": hands,
            "stock": stock,
            "pile": [starter],
            "motif": MOTIF_OF[starter],
            "direction": 1,
            "turn": first,
            "turn_since": None,   # None: the table's start
            "phase": "play",      # play | drawn | over
            "drawn": None,        # the card just drawn while phase == "drawn"
            "active": [True] * seats,
            "removed": [],        # seats in order of removal
            "timeouts": [0] * seats,
            "auto_pending": False,  # an automatic turn needs its second step
            "calls": [None] * seats,  # None | "missing" | "called" (for a one-card hand)
            "windows": [],        # open catch windows: {"seat", "since"}
            "passes": 0,          # consecutive turns that found nothing to draw
            "end": None,          # win | stalemate | last_standing
            "winner": None,
        })
        return state

    def replay_start(self, seed: bytes, seats: int, options: dict | None, moves: list) -> State:
        """``new``, under the numbering the log was recorded with. Until issue 20 the close step was a
        numbered move: a log with such an entry (seat None, ``close_window``) is replayed with it
        numbered, every later sequence number and reshuffle round one higher per close. That entry
        identifies the old rules exactly: a game in which no window was closed by the step numbers
        its moves the same either way, and expired windows never change a move's outcome."""
        state = self.new(seed, seats, options)
        if any(isinstance(m, dict) and m.get("seat") is None and isinstance(m.get("move"), dict)
               and m["move"].get("type") == "close_window" for m in moves):
            state["numbered_close"] = True
        return state

    # ----- queries ---------------------------------------------------------------
    def is_over(self, state: State) -> bool:
        return state["phase"] == "over"

    def to_act(self, state: State) -> list[int]:
        if state["phase"] == "over":
            return []
        acts = {state["turn"]}
        active = state["active"]
        for i, c in enumerate(state["calls"]):
            if c == "missing" and active[i]:
                acts.add(i)
        for w in state["windows"]:
            target = w["seat"]
            for i in range(state["seats"]):
                if active[i] and i != target:
                    acts.add(i)
        return sorted(acts)

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        if state["phase"] == "over" or type(seat) is not int or not 0 <= seat < state["seats"]:
            return []
        if not state["active"][seat]:
            return []
        moves: list[Move] = []
        if seat == state["turn"]:
            hand = state["hands"][seat]
            leaves_one = len(hand) == 2
            drawn = state["phase"] == "drawn"
            if drawn:
                cards = [state["drawn"]]
            else:
                # Inlined ``playable_cards`` (hot path): distinct playable codes in hand order
                # (``filter`` runs no Python frame, unlike a comprehension).
                motif = state["motif"]
                cards = dict.fromkeys(filter(MATCH[motif][state["pile"][-1]].__contains__, hand))
                if "F" in cards and not MOTIF_CARDS[motif].isdisjoint(hand):
                    del cards["F"]
            append = moves.append
            for c in cards:
                if c in WILDS:
                    for m in MOTIFS:
                        append({"type": "play", "card": c, "motif": m})
                        if leaves_one:
                            append({"type": "play", "card": c, "motif": m, "call": True})
                else:
                    append({"type": "play", "card": c})
                    if leaves_one:
                        append({"type": "play", "card": c, "call": True})
            append({"type": "keep"} if drawn else {"type": "draw"})
        if state["calls"][seat] == "missing":
            moves.append({"type": "call"})
        windows = state["windows"]
        if windows:
            for w in windows:
                if w["seat"] != seat:
                    moves.append({"type": "catch", "target": w["seat"]})
        return moves

    def timeout_move(self, state: State, seat: int | None) -> Move:
        if seat is None:
            return {"type": "close_window", "auto": True}
        if state["phase"] == "over" or seat != state["turn"]:
            raise IllegalMove("not_your_turn", "Only the seat on turn has an automatic move.")
        hand = state["hands"][seat]
        if state["phase"] == "drawn":
            card: str | None = state["drawn"]
        else:
            cards = playable_cards(hand, state["pile"][-1], state["motif"])
            card = min(cards, key=CANON.__getitem__) if cards else None  # first in canonical order
        if card is None:
            return {"type": "draw", "auto": True}
        if card in WILDS:
            return {"type": "play", "card": card, "motif": favourite_motif(hand), "auto": True}
        return {"type": "play", "card": card, "auto": True}

    def deadline(self, state: State) -> dict | None:
        if state["phase"] == "over":
            return None
        since = state["turn_since"]
        pending = state["auto_pending"]
        if not state["windows"]:
            return {"seat": state["turn"], "since_ms": since, "limit_ms": 0 if pending else None}
        best = {"seat": state["turn"], "since_ms": since, "limit_ms": 0 if pending else None}
        best_due = (since if since is not None else 0) + (0 if pending else state["turn_ms"])
        for w in state["windows"]:
            # The window closes *after* 3 s: a catch at since + 3000 is still in time.
            due = w["since"] + CATCH_MS + 1
            if due <= best_due:
                best, best_due = {"seat": None, "since_ms": w["since"], "limit_ms": CATCH_MS + 1}, due
        return best

    def all_cards(self, state: State) -> list[str]:
        cards = list(state["stock"]) + list(state["pile"])
        for h in state["hands"]:
            cards.extend(h)
        return cards

    def hidden_cards(self, state: State, seat: int | None) -> list[str]:
        hidden = list(state["stock"])
        if state["phase"] == "over":
            return hidden  # hands are shown at the end for the scoring
        for i, h in enumerate(state["hands"]):
            if i != seat:
                hidden.extend(h)
        return hidden

    def result(self, state: State) -> dict:
        n = state["seats"]
        if state["phase"] != "over":
            # Nothing settled yet (and no hand values: they are hidden information).
            return {"ranks": [None] * n, "winners": [], "end": None, "values": [None] * n,
                    "removed": list(state["removed"])}
        active = state["active"]
        values: list[int | None] = [hand_value(state["hands"][i]) if active[i] else None for i in range(n)]
        ranks = [0] * n
        playing = [i for i in range(n) if active[i]]
        end = state["end"]
        if end == "stalemate":
            for i, r in zip(playing, competition_ranks([values[i] for i in playing]), strict=True):
                ranks[i] = r
        else:
            winner = state["winner"]
            ranks[winner] = 1
            others = [i for i in playing if i != winner]
            for i, r in zip(others, competition_ranks([values[i] for i in others]), strict=True):
                ranks[i] = r + 1
        # Removed players rank below everyone still in, the last removed highest.
        for k, i in enumerate(reversed(state["removed"])):
            ranks[i] = len(playing) + 1 + k
        return {
            "ranks": ranks,
            "winners": [i for i in range(n) if ranks[i] == 1],
            "end": end,
            "values": values,
            "removed": list(state["removed"]),
        }

    def view(self, state: State, seat: int | None) -> dict:
        over = state["phase"] == "over"
        n = state["seats"]
        mine = isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n
        v: dict[str, Any] = {
            "game": self.name,
            "seat": seat if mine else None,
            "seats": n,
            "to_act": self.to_act(state),
            "over": over,
            "phase": state["phase"],
            "turn": state["turn"],
            "turn_since_ms": state["turn_since"],
            "turn_seconds": state["turn_ms"] // 1000,
            "direction": state["direction"],
            "top": state["pile"][-1],
            "motif": state["motif"],
            "pile": list(state["pile"]),
            "stock_count": len(state["stock"]),
            "hand_counts": [len(h) for h in state["hands"]],
            "active": list(state["active"]),
            "removed": list(state["removed"]),
            "timeouts": list(state["timeouts"]),
            "calls": list(state["calls"]),
            "windows": [{"seat": w["seat"], "since_ms": w["since"], "until_ms": w["since"] + CATCH_MS}
                        for w in state["windows"]],
            "commitment": state["commitment"],
            "first": state["first"],
            "moves_count": state["move_count"],
            "deadline": self.deadline(state),
        }
        if mine:
            hand = state["hands"][seat]
            v["hand"] = list(hand)
            v["hand_value"] = hand_value(hand)
            v["drawn"] = state["drawn"] if (state["phase"] == "drawn" and state["turn"] == seat) else None
            v["legal"] = self.legal_moves(state, seat)
        if over:
            v["hands"] = [list(h) for h in state["hands"]]
            v["result"] = self.result(state)
        return v

    def replay_view(self, state: State) -> dict:
        v = self.view(state, None)
        v.update({
            "hands": [list(h) for h in state["hands"]],
            "stock": list(state["stock"]),
            "drawn": state["drawn"],
            "passes": state["passes"],
            "auto_pending": state["auto_pending"],
        })
        if state["phase"] == "over":
            v["seed"] = state["seed"]
        return v

    # ----- moves -----------------------------------------------------------------
    def apply(self, state: State, seat: int | None, move: Move, *, now_ms: int) -> tuple[State, list[Event]]:
        if type(move) is not dict or type(mtype := move.get("type")) is not str:
            require_dict(move)  # raises the standard "malformed" error
            raise IllegalMove("malformed", "A move must be a plain object.")
        if type(now_ms) is not int:
            raise IllegalMove("malformed", "now_ms must be a whole number.")
        if state["phase"] == "over":
            raise IllegalMove("game_over", "The game is over.")
        last = state["last_move_ms"]
        if last is not None and now_ms < last:
            raise IllegalMove("time_backwards", "now_ms is earlier than the last step's: time never runs backwards.")
        auto = "auto" in move
        if auto and move["auto"] is not True:
            raise IllegalMove("malformed", "'auto' may only be true.")
        if seat is None:
            return self._system(state, move, now_ms)
        if type(seat) is not int or not 0 <= seat < state["seats"]:
            raise IllegalMove("bad_seat", "No such seat.")
        if not state["active"][seat]:
            raise IllegalMove("not_in_game", "This seat is no longer in the game.")
        if state["windows"] and not state.get("numbered_close"):
            # A window past its 3 s is closed whether or not the close step ran (the step is not in
            # the move log, so a replay never runs it): the states agree from this move on.
            keep = [w for w in state["windows"] if now_ms <= w["since"] + CATCH_MS]
            if len(keep) != len(state["windows"]):
                closed = [w["seat"] for w in state["windows"] if w not in keep]
                state = {**state, "windows": keep}
                s, events = self._apply_seat(state, seat, move, mtype, now_ms, auto)
                return s, [*({"type": "window_closed", "seat": t} for t in closed), *events]
        # The two moves of almost every turn go straight to their handler (the same checks).
        if mtype == "play":
            if _PLAY_KEYS.issuperset(move):
                return self._play(state, seat, move, now_ms, auto)
        elif mtype == "draw" and _AUTO_ONLY_KEYS.issuperset(move):
            return self._draw_move(state, seat, move, now_ms, auto)
        return self._apply_seat(state, seat, move, mtype, now_ms, auto)

    def _apply_seat(self, state: State, seat: int, move: Move, mtype: str, now_ms: int,
                    auto: bool) -> tuple[State, list[Event]]:
        if mtype == "play":
            if not _PLAY_KEYS.issuperset(move):
                self._check_keys(move, _PLAY_KEYS)
            return self._play(state, seat, move, now_ms, auto)
        if mtype == "draw":
            if not _AUTO_ONLY_KEYS.issuperset(move):
                self._check_keys(move, _AUTO_ONLY_KEYS)
            return self._draw_move(state, seat, move, now_ms, auto)
        if mtype == "keep":
            self._check_keys(move, _AUTO_ONLY_KEYS)
            return self._keep(state, seat, move, now_ms, auto)
        if mtype == "call":
            self._check_keys(move, _TYPE_ONLY)
            return self._call(state, seat, move, now_ms)
        if mtype == "catch":
            self._check_keys(move, _CATCH_KEYS)
            return self._catch(state, seat, move, now_ms)
        if mtype == "leave":
            self._check_keys(move, _TYPE_ONLY)
            s = self._begin(state)
            self._log_move(s, seat, move, now_ms)
            events: list[Event] = [{"type": "leave", "seat": seat}]
            self._remove(s, state, seat, "left", now_ms, events)
            return s, events
        if mtype == "close_window":
            raise IllegalMove("bad_seat", "Closing a catch window is a system step.")
        raise IllegalMove("unknown_move", f"Unknown move type {mtype!r}.")

    @staticmethod
    def _check_keys(move: Move, allowed: frozenset[str]) -> None:
        if not allowed.issuperset(move):
            extra = sorted(k for k in move if k not in allowed)
            raise IllegalMove("malformed", f"Unexpected key(s) {extra} in a {move['type']} move.")

    @staticmethod
    def _begin(state: State) -> State:
        """A shallow copy; lists are copied on first write (``_w``/``_whand``), the move log now."""
        s = dict(state)
        s["moves"] = list(state["moves"])
        return s

    def _require_turn(self, state: State, seat: int) -> None:
        if seat != state["turn"]:
            raise IllegalMove("not_your_turn", "It is not your turn.")

    # --- play
    def _play(self, state: State, seat: int, move: Move, now_ms: int, auto: bool) -> tuple[State, list[Event]]:
        if seat != state["turn"]:
            raise IllegalMove("not_your_turn", "It is not your turn.")
        card = move.get("card")
        hand = state["hands"][seat]
        if card not in hand:  # (a held card is a valid code: the detailed checks only on failure)
            if type(card) is not str:
                raise IllegalMove("malformed", "A play needs a 'card' code.")
            if card not in CARD_SET:
                raise IllegalMove("unknown_card", f"{card!r} is not a Lembar card.")
            if state["phase"] == "drawn":
                raise IllegalMove("must_play_drawn", "After drawing you may play only the drawn card (or keep it).")
            raise IllegalMove("card_not_held", f"You do not hold {card}.")
        if state["phase"] == "drawn" and card != state["drawn"]:
            raise IllegalMove("must_play_drawn", "After drawing you may play only the drawn card (or keep it).")
        wild = card in WILDS
        if len(move) == 2 and not wild:
            motif, call = None, False  # the common {"type", "card"}: nothing more to check
        else:
            motif = move.get("motif")
            if wild:
                if motif is None:
                    raise IllegalMove("motif_required", "A wild card needs a motif: P, K, T or M.")
                if type(motif) is not str or motif not in MOTIFS:
                    raise IllegalMove("bad_motif", "The motif must be P, K, T or M.")
            elif motif is not None:
                raise IllegalMove("motif_not_allowed", "Only a wild card names a motif.")
            call = move.get("call", False)
            if type(call) is not bool:
                raise IllegalMove("malformed", "'call' must be true or false.")
            if call:
                if auto:
                    raise IllegalMove("malformed", "An automatic move never calls Lembar.")
                if len(hand) != 2:
                    raise IllegalMove("call_not_allowed",
                                      "Lembar! may be called only on a play that leaves one card.")
        current = state["motif"]
        pile = state["pile"]
        if card not in MATCH[current][pile[-1]] or (
                card == "F" and not MOTIF_CARDS[current].isdisjoint(hand)):
            if card == "F":
                raise IllegalMove("illegal_card", "Wild Draw Four only without a card of the current motif.")
            raise IllegalMove("illegal_card", f"{card} does not match the motif or the symbol on top.")

        # Hot path (random playouts): helpers inlined, lists copied only where written.
        s = dict(state)
        seq = s["move_count"] = state["move_count"] + 1  # inlined ``_log_move``
        s["last_move_ms"] = now_ms
        s["moves"] = [*state["moves"], {"seq": seq, "seat": seat, "move": move.copy(), "now_ms": now_ms}]
        events: list[Event] = []
        if auto:
            counted = self._own_or_auto(s, state, seat, auto, events)
        else:
            counted = False
            if state["timeouts"][seat]:
                _w(s, state, "timeouts")[seat] = 0
        hands = s["hands"] = list(state["hands"])
        my_hand = hands[seat] = list(hand)
        my_hand.remove(card)
        s["pile"] = [*pile, card]
        if not wild:
            motif = MOTIF_OF[card]
        s["motif"] = motif
        s["passes"] = 0
        left = len(my_hand)
        if call:
            events.append({"type": "play", "seat": seat, "card": card, "motif": motif, "left": left, "call": True})
        else:
            events.append({"type": "play", "seat": seat, "card": card, "motif": motif, "left": left})
        if not left:
            self._finish(s, "win", seat, events)
            return s, events
        if left == 1:
            if call:
                _w(s, state, "calls")[seat] = "called"
            else:
                _w(s, state, "calls")[seat] = "missing"
                s["windows"] = [*s["windows"], {"seat": seat, "since": now_ms}]
                events.append({"type": "window", "seat": seat, "since_ms": now_ms, "until_ms": now_ms + CATCH_MS})
        # Effects of the card; the next seat in play order (removed seats are skipped).
        n, d, active = s["seats"], s["direction"], s["active"]
        nxt = (seat + d) % n
        while not active[nxt]:
            nxt = (nxt + d) % n
        effect = EFFECT_OF[card]
        if effect is None:  # a number or W
            turn = nxt
        elif effect == "S" or (effect == "R" and sum(active) == 2):
            events.append({"type": "skip", "seat": nxt})
            turn = self._next(s, nxt)
        elif effect == "R":
            s["direction"] = -d
            events.append({"type": "reverse", "direction": -d})
            turn = self._next(s, seat)
        else:  # "D" draw two, "F" wild draw four
            got = self._draw_into(s, state, nxt, 2 if effect == "D" else 4, seq, events)
            events.append({"type": "penalty", "seat": nxt, "count": got,
                           "reason": "draw_two" if effect == "D" else "draw_four"})
            turn = self._next(s, nxt)
        s["turn"] = turn
        s["turn_since"] = now_ms
        s["phase"] = "play"
        s["drawn"] = None
        s["auto_pending"] = False
        events.append({"type": "turn", "seat": turn})
        if counted:
            self._maybe_remove_after_timeout(s, state, seat, now_ms, events)
        return s, events

    # --- draw
    def _draw_move(self, state: State, seat: int, move: Move, now_ms: int, auto: bool) -> tuple[State, list[Event]]:
        if seat != state["turn"]:
            raise IllegalMove("not_your_turn", "It is not your turn.")
        if state["phase"] != "play":
            raise IllegalMove("already_drawn", "You have already drawn this turn: play the drawn card or keep it.")
        s = dict(state)
        seq = s["move_count"] = state["move_count"] + 1  # inlined ``_log_move``
        s["last_move_ms"] = now_ms
        s["moves"] = [*state["moves"], {"seq": seq, "seat": seat, "move": move.copy(), "now_ms": now_ms}]
        events: list[Event] = []
        if auto:
            counted = self._own_or_auto(s, state, seat, auto, events)
        else:
            counted = False
            if state["timeouts"][seat]:
                _w(s, state, "timeouts")[seat] = 0
        stock = state["stock"]
        if stock and state["calls"][seat] is None:
            # Hot path: a card on the stock, no call status to reset.
            hands = s["hands"] = list(state["hands"])
            hands[seat] = [*hands[seat], stock[0]]
            s["stock"] = stock[1:]
            s["passes"] = 0
            got = 1
        else:
            got = self._draw_into(s, state, seat, 1, seq, events)
        events.append({"type": "draw", "seat": seat, "count": got})
        if got == 0:
            # Nothing left anywhere: the draw is a pass. A full cycle of passes ends the game.
            s["passes"] += 1
            events.append({"type": "pass", "seat": seat})
            if s["passes"] >= sum(s["active"]):
                self._finish(s, "stalemate", None, events)
                return s, events
            self._set_turn(s, self._next(s, seat), now_ms, events)
        else:
            hand = s["hands"][seat]
            card = hand[-1]
            motif = s["motif"]
            if card in MATCH[motif][s["pile"][-1]] and (card != "F" or MOTIF_CARDS[motif].isdisjoint(hand)):
                s["phase"] = "drawn"  # (``is_playable`` inlined)
                s["drawn"] = card
                # An automatic turn continues at once with the play of the drawn card.
                s["auto_pending"] = auto
                if auto:
                    s["turn_since"] = now_ms
                return s, events
            # Inlined ``_set_turn(s, self._next(s, seat), ...)``: the seat drawing is still in play,
            # so the search stops at the latest there.
            n, d, active = s["seats"], s["direction"], s["active"]
            turn = (seat + d) % n
            while not active[turn]:
                turn = (turn + d) % n
            s["turn"] = turn
            s["turn_since"] = now_ms
            s["phase"] = "play"
            s["drawn"] = None
            s["auto_pending"] = False
            events.append({"type": "turn", "seat": turn})
        if counted:
            self._maybe_remove_after_timeout(s, state, seat, now_ms, events)
        return s, events

    def _keep(self, state: State, seat: int, move: Move, now_ms: int, auto: bool) -> tuple[State, list[Event]]:
        self._require_turn(state, seat)
        if state["phase"] != "drawn":
            raise IllegalMove("nothing_drawn", "Keep is only for a card you have just drawn.")
        s = self._begin(state)
        self._log_move(s, seat, move, now_ms)
        events: list[Event] = []
        counted = self._own_or_auto(s, state, seat, auto, events)
        events.append({"type": "keep", "seat": seat})
        self._set_turn(s, self._next(s, seat), now_ms, events)
        if counted:
            self._maybe_remove_after_timeout(s, state, seat, now_ms, events)
        return s, events

    # --- "Lembar!" and catching
    def _call(self, state: State, seat: int, move: Move, now_ms: int) -> tuple[State, list[Event]]:
        if state["calls"][seat] != "missing":
            raise IllegalMove("call_not_needed", "Lembar! is called only with one card left and not yet called.")
        s = self._begin(state)
        self._log_move(s, seat, move, now_ms)
        if state["timeouts"][seat]:
            _w(s, state, "timeouts")[seat] = 0
        _w(s, state, "calls")[seat] = "called"
        s["windows"] = [w for w in state["windows"] if w["seat"] != seat]
        return s, [{"type": "call", "seat": seat}]

    def _catch(self, state: State, seat: int, move: Move, now_ms: int) -> tuple[State, list[Event]]:
        target = move.get("target")
        if type(target) is not int or not 0 <= target < state["seats"]:
            raise IllegalMove("bad_target", "The target must be a seat number.")
        if target == seat:
            raise IllegalMove("bad_target", "You cannot catch yourself.")
        if not state["active"][target]:
            raise IllegalMove("bad_target", "That seat is no longer in the game.")
        if state["calls"][target] != "missing":
            raise IllegalMove("no_missing_call", "That player has no missing Lembar! call to catch.")
        window = next((w for w in state["windows"] if w["seat"] == target), None)
        if window is None or now_ms > window["since"] + CATCH_MS:
            raise IllegalMove("catch_window_closed", "Too late: a catch must come within 3 seconds of the play.")
        s = self._begin(state)
        seq = self._log_move(s, seat, move, now_ms)
        if state["timeouts"][seat]:
            _w(s, state, "timeouts")[seat] = 0
        events: list[Event] = [{"type": "catch", "seat": seat, "target": target}]
        got = self._draw_into(s, state, target, CATCH_PENALTY, seq, events)
        # Caught: no call is possible any more for this one-card spell.
        if s["calls"][target] is not None:
            _w(s, state, "calls")[target] = None
        s["windows"] = [w for w in s["windows"] if w["seat"] != target]
        events.append({"type": "penalty", "seat": target, "count": got, "reason": "caught"})
        return s, events

    def _system(self, state: State, move: Move, now_ms: int) -> tuple[State, list[Event]]:
        """Close the catch windows past their 3 s. Not a move (the spec numbers none): no sequence
        number, no log entry, so no later shuffle depends on whether or when it ran. It only
        advances the clock floor (``last_move_ms``), so no later move can be earlier than a close
        that already happened; the next move sets the same floor in a replay without it."""
        if move["type"] != "close_window" or move.get("auto") is not True:
            raise IllegalMove("bad_seat", "Only the system step 'close_window' has no seat.")
        self._check_keys(move, _AUTO_ONLY_KEYS)
        if not state["windows"]:
            raise IllegalMove("nothing_due", "No catch window is open.")
        if state.get("numbered_close"):
            return self._system_numbered(state, move, now_ms)
        keep = [w for w in state["windows"] if now_ms <= w["since"] + CATCH_MS]
        if len(keep) == len(state["windows"]):
            # Closing a window early would refuse a catch that a replay (which never runs this
            # step) accepts.
            raise IllegalMove("nothing_due", "No catch window has passed its 3 seconds yet.")
        closed = [w["seat"] for w in state["windows"] if w not in keep]
        s = dict(state)
        s["windows"] = keep
        s["last_move_ms"] = now_ms
        return s, [{"type": "window_closed", "seat": t} for t in closed]

    def _system_numbered(self, state: State, move: Move, now_ms: int) -> tuple[State, list[Event]]:
        """The close step as a numbered, logged move: only to replay logs recorded before it stopped
        being one (``replay_start``), with that engine's rule exactly (closed at since + 3000,
        and the earliest window when applied early)."""
        s = self._begin(state)
        self._log_move(s, None, move, now_ms)
        keep = [w for w in state["windows"] if w["since"] + CATCH_MS > now_ms]
        if len(keep) == len(state["windows"]):
            keep = keep[1:]
        closed = [w["seat"] for w in state["windows"] if w not in keep]
        s["windows"] = keep
        return s, [{"type": "window_closed", "seat": t} for t in closed]

    # ----- helpers (write only to the new state ``s``; ``old`` is the argument state) ------
    @staticmethod
    def _next(s: State, frm: int) -> int:
        n, d, active = s["seats"], s["direction"], s["active"]
        i = frm
        for _ in range(n):
            i = (i + d) % n
            if active[i]:
                return i
        return frm

    @staticmethod
    def _set_turn(s: State, turn: int, now_ms: int, events: list[Event]) -> None:
        s["turn"] = turn
        s["turn_since"] = now_ms
        s["phase"] = "play"
        s["drawn"] = None
        s["auto_pending"] = False
        events.append({"type": "turn", "seat": turn})

    @staticmethod
    def _own_or_auto(s: State, old: State, seat: int, auto: bool, events: list[Event]) -> bool:
        """Count a timeout (once per automatic turn) or reset the count; True if counted."""
        if not auto:
            if old["timeouts"][seat]:
                _w(s, old, "timeouts")[seat] = 0
            return False
        if s["auto_pending"]:
            return True  # the second step of an automatic turn already counted
        timeouts = _w(s, old, "timeouts")
        timeouts[seat] += 1
        events.append({"type": "timeout", "seat": seat, "count": timeouts[seat]})
        return True

    def _maybe_remove_after_timeout(self, s: State, old: State, seat: int, now_ms: int,
                                    events: list[Event]) -> None:
        if s["phase"] != "over" and s["timeouts"][seat] >= TIMEOUTS_TO_REMOVE and s["active"][seat]:
            self._remove(s, old, seat, "timeouts", now_ms, events)

    def _draw_into(self, s: State, old: State, seat: int, count: int, seq: int, events: list[Event]) -> int:
        """Move up to ``count`` stock cards to ``seat``'s hand, reshuffling the pile when empty."""
        stock = s["stock"]
        if len(stock) >= count:
            # Enough on the stock (almost always): new lists, nothing copied twice.
            s["stock"] = stock[count:]
            hands = s["hands"]
            if hands is old["hands"]:
                hands = s["hands"] = list(hands)
            hands[seat] = [*hands[seat], *stock[:count]]
            got = count
        else:
            got = self._draw_slow(s, old, seat, count, seq, events)
            if not got:
                return 0
        s["passes"] = 0
        if s["calls"][seat] is not None:
            # The hand grew: a new one-card spell will need its own call; the window closes.
            _w(s, old, "calls")[seat] = None
            s["windows"] = [w for w in s["windows"] if w["seat"] != seat]
        return got

    def _draw_slow(self, s: State, old: State, seat: int, count: int, seq: int, events: list[Event]) -> int:
        """``_draw_into`` through a reshuffle of the pile (or until everything is in hands)."""
        stock = _w(s, old, "stock")
        hand = _whand(s, old, seat)
        got = 0
        while got < count:
            if not stock:
                pile = s["pile"]
                if len(pile) <= 1:
                    break  # everything is in hands: take what there is
                initial = pile[:-1]
                s["pile"] = [pile[-1]]
                _w(s, old, "shuffles")
                stock.extend(self._shuffle(s, seq, "kocok-ulang", initial))
                events.append({"type": "reshuffle", "round": seq, "cards": len(initial)})
            take = min(count - got, len(stock))
            hand.extend(stock[:take])
            del stock[:take]
            got += take
        return got

    def _remove(self, s: State, old: State, seat: int, reason: str, now_ms: int, events: list[Event]) -> None:
        """Take ``seat`` out: cards to the stock bottom (canonical order), play passes on."""
        hand = s["hands"][seat]
        _w(s, old, "stock").extend(canonical_sorted(hand))
        _w(s, old, "hands")[seat] = []
        _w(s, old, "active")[seat] = False
        s["removed"] = s["removed"] + [seat]
        if s["calls"][seat] is not None:
            _w(s, old, "calls")[seat] = None
        s["windows"] = [w for w in s["windows"] if w["seat"] != seat]
        # The timeout count stays as it was (3 after a removal for timeouts): the seat's last word.
        s["passes"] = 0
        events.append({"type": "removed", "seat": seat, "reason": reason, "returned": len(hand)})
        still = [i for i in range(s["seats"]) if s["active"][i]]
        if len(still) == 1:
            self._finish(s, "last_standing", still[0], events)
            return
        if s["turn"] == seat:
            self._set_turn(s, self._next(s, seat), now_ms, events)

    def _finish(self, s: State, end: str, winner: int | None, events: list[Event]) -> None:
        s["phase"] = "over"
        s["end"] = end
        s["winner"] = winner
        s["drawn"] = None
        s["auto_pending"] = False
        s["windows"] = []
        events.append({"type": "game_over", "end": end, "result": self.result(s)})


def _w(s: State, old: State, key: str) -> list:
    """``s[key]`` made safe to mutate: copied once if still shared with the old state."""
    v = s[key]
    if v is old[key]:
        v = s[key] = list(v)
    return v


def _whand(s: State, old: State, seat: int) -> list[str]:
    """``seat``'s hand in ``s`` made safe to mutate (outer list and that hand copied once)."""
    hands = s["hands"]
    if hands is old["hands"]:
        hands = s["hands"] = list(hands)
    h = hands[seat]
    if h is old["hands"][seat]:
        h = hands[seat] = list(h)
    return h


ENGINE = LembarEngine()
