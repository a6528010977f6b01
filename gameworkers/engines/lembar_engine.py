"""The Lembar engine: the contract of ``base.Engine`` (setup, who acts, the move table behind the
template ``apply``, timers, views, results and proofs); the handlers live in ``lembar_moves``."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from . import fairness
from .base import GameSpec, IllegalMove, Move, MoveRule, competition_ranks
from .lembar_cards import (
    CANON,
    CATCH_MS,
    DECK,
    DEFAULT_TURN_SECONDS,
    HAND_SIZE,
    IS_NUMBER,
    MATCH,
    MOTIF_CARDS,
    MOTIF_OF,
    MOTIFS,
    WILDS,
    favourite_motif,
    hand_value,
    playable_cards,
)
from .lembar_moves import LembarMoves
from .states import LembarState


class LembarEngine(LembarMoves):
    spec = GameSpec(name="lembar", label="Lembar", min_seats=2, max_seats=6, stake_kinds=("casual", "pot"))

    # The envelope (docs/rules/moves.md): the seat on turn plays, draws and keeps; a call, a catch and
    # a leave have their own rules; closing a catch window is the system's step.
    move_rules = {
        "play": MoveRule("_play", keys=("card", "motif", "call"), auto=True),
        "draw": MoveRule("_draw_move", auto=True),
        "keep": MoveRule("_keep"),
        "call": MoveRule("_call", turn=False),
        "catch": MoveRule("_catch", keys=("target",), turn=False),
        "leave": MoveRule("_leave", turn=False),
        "close_window": MoveRule("_system", auto=True, system=True),
    }
    turn_key = "turn"
    in_game_key = "active"  # a removed seat sends nothing (not_in_game)

    # A Lembar move is a flat dict of scalars (the envelope refuses anything else), so a shallow copy
    # is a full copy (deepcopy per move was the engine's biggest cost).
    _copy_logged_move = staticmethod(dict)

    # ----- setup -----------------------------------------------------------------
    def normal_options(self, options: dict | None, seats: int) -> dict:
        opts = super().normal_options(options, seats)
        turn_seconds = opts.get("turn_seconds", DEFAULT_TURN_SECONDS)
        if isinstance(turn_seconds, bool) or not isinstance(turn_seconds, int) or not 5 <= turn_seconds <= 600:
            raise ValueError("turn_seconds must be a whole number from 5 to 600")
        return opts

    def new(self, seed: bytes, seats: int, options: dict | None = None) -> LembarState:
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

    def replay_start(self, seed: bytes, seats: int, options: dict | None, moves: list) -> LembarState:
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
    def is_over(self, state: LembarState) -> bool:
        return state["phase"] == "over"

    def to_act(self, state: LembarState) -> list[int]:
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

    def legal_moves(self, state: LembarState, seat: int) -> list[Move]:
        if state["phase"] == "over" or type(seat) is not int or not 0 <= seat < state["seats"]:
            return []
        if not state["active"][seat]:
            return []
        moves: list[Move] = []
        if seat == state["turn"]:
            hand = state["hands"][seat]
            leaves_one = len(hand) == 2
            if state["phase"] == "drawn":
                cards: Collection[str] = (state["drawn"],)
                ok: Collection[str] = cards  # only the drawn card (it was playable when drawn)
                f_ok = True
                last: Move = {"type": "keep"}
            else:
                cards = hand
                motif = state["motif"]
                ok = MATCH[motif][state["pile"][-1]]
                f_ok = "F" not in hand or MOTIF_CARDS[motif].isdisjoint(hand)  # F: none of the motif held
                last = {"type": "draw"}
            # Inlined ``playable_cards`` (hot path): each distinct playable code once, in hand order,
            # its moves built in the same loop.
            seen: list[str] = []
            for c in cards:
                if c in ok and c not in seen:
                    seen.append(c)
                    if c not in WILDS:
                        moves.append({"type": "play", "card": c})
                        if leaves_one:
                            moves.append({"type": "play", "card": c, "call": True})
                    elif f_ok or c == "W":
                        for m in MOTIFS:
                            moves.append({"type": "play", "card": c, "motif": m})
                            if leaves_one:
                                moves.append({"type": "play", "card": c, "motif": m, "call": True})
            moves.append(last)
        if state["calls"][seat] == "missing":
            moves.append({"type": "call"})
        windows = state["windows"]
        if windows:
            for w in windows:
                if w["seat"] != seat:
                    moves.append({"type": "catch", "target": w["seat"]})
        return moves

    def timeout_move(self, state: LembarState, seat: int | None) -> Move:
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

    def deadline(self, state: LembarState) -> dict | None:
        if state["phase"] == "over":
            return None
        if not state["windows"]:  # (hot: one step in a random playout)
            return {"seat": state["turn"], "since_ms": state["turn_since"],
                    "limit_ms": 0 if state["auto_pending"] else None}
        since = state["turn_since"]
        pending = state["auto_pending"]
        best = {"seat": state["turn"], "since_ms": since, "limit_ms": 0 if pending else None}
        best_due = (since if since is not None else 0) + (0 if pending else state["turn_ms"])
        for w in state["windows"]:
            # The window closes *after* 3 s: a catch at since + 3000 is still in time.
            due = w["since"] + CATCH_MS + 1
            if due <= best_due:
                best, best_due = {"seat": None, "since_ms": w["since"], "limit_ms": CATCH_MS + 1}, due
        return best

    def all_cards(self, state: LembarState) -> list[str]:
        cards = list(state["stock"]) + list(state["pile"])
        for h in state["hands"]:
            cards.extend(h)
        return cards

    def hidden_cards(self, state: LembarState, seat: int | None) -> list[str]:
        hidden = list(state["stock"])
        if state["phase"] == "over":
            return hidden  # hands are shown at the end for the scoring
        for i, h in enumerate(state["hands"]):
            if i != seat:
                hidden.extend(h)
        return hidden

    def result(self, state: LembarState) -> dict:
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

    def view(self, state: LembarState, seat: int | None) -> dict:
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

    def replay_view(self, state: LembarState) -> dict:
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
