"""The 31 engine: the contract of ``base.Engine`` (the move table behind the template ``apply``,
setup, who acts, timers, results, proofs and views); the hand's steps live in ``otuzbir_hand``."""

from __future__ import annotations

from typing import Any

from .base import GameSpec, IllegalMove, Move, MoveRule, copy_json
from .otuzbir_cards import DECK, SCORE_14, can_stand, category, ebe_draw, hand_score, raise_amounts, totals
from .otuzbir_hand import OtuzbirHand
from .otuzbir_options import LEGACY_RULES, RULES, _normal_options
from .states import OtuzbirState


class OtuzbirEngine(OtuzbirHand):
    spec = GameSpec(name="otuzbir", label="31 (Otuz bir)", min_seats=2, max_seats=7,
                    stake_kinds=("casual", "ante"), tournament="freezeout")

    # The envelope (docs/rules/moves.md): every move but a leave is the seat's to act (``to_act``); a
    # seat out of the table (left, or out of chips) sends nothing. ``auto`` only on the moves
    # ``timeout_move`` makes.
    move_rules = {
        "pass": MoveRule("_move_hand", auto=True),
        "raise": MoveRule("_move_hand", keys=("amount",)),
        "open": MoveRule("_move_hand", auto=True),
        "closed": MoveRule("_move_hand", keys=("amount",)),
        "stand": MoveRule("_move_hand", auto=True),
        "raise_stand": MoveRule("_move_hand", keys=("amount",)),
        "see": MoveRule("_move_hand", auto=True),
        "fold": MoveRule("_move_hand", auto=True),
        "leave": MoveRule("_move_leave", turn=False),
    }
    in_game_key = "in_table"

    # A 31 move is a flat dict of scalars (the envelope refuses anything else): a shallow copy is a full one.
    _copy_logged_move = staticmethod(dict)

    def _clock_runs_forward(self, state: OtuzbirState) -> bool:
        # Rules revision 1 tables accepted a move back in time; their logs replay as recorded.
        return self._rules(state) >= RULES

    def normal_options(self, options: dict | None, seats: int) -> dict:
        return _normal_options(options, seats)

    def stake_options(self, *, stake_kind: str, stake: int, rake_bps: int) -> dict:
        if stake_kind == "ante":
            return {"ante": stake, "rake_bps": rake_bps}
        return {"ante": 1, "rake_bps": 0}  # a free table plays for score: the pot is never raked

    # ----- setup ------------------------------------------------------------------
    def new(self, seed: bytes, seats: int, options: dict | None = None) -> OtuzbirState:
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

    # ----- queries ----------------------------------------------------------------
    def is_over(self, state: OtuzbirState) -> bool:
        return state["phase"] == "over"

    def to_act(self, state: OtuzbirState) -> list[int]:
        phase = state["phase"]
        if phase in ("predeal", "turn"):
            return [state["turn"]]
        if phase in ("predeal_answer", "answer"):
            return [state["raise"]["queue"][0]]
        return []

    def legal_moves(self, state: OtuzbirState, seat: int) -> list[Move]:
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

    def timeout_move(self, state: OtuzbirState, seat: int | None) -> Move:
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

    def deadline(self, state: OtuzbirState) -> dict | None:
        acting = self.to_act(state)
        if not acting:
            return None
        seat = acting[0]
        # the rest of an automatic turn follows at once
        limit = 0 if state["auto"] == seat and state["phase"] == "turn" else None
        return {"seat": seat, "since_ms": state["last_ms"], "limit_ms": limit}

    def replay_start(self, seed: bytes, seats: int, options: dict | None, moves: list) -> OtuzbirState:
        """A logged table's options without ``rules`` were saved before revisions existed: it was
        played by revision 1 (a proof or a stored state from then), so it is replayed by it."""
        return self.new(seed, seats, {"rules": LEGACY_RULES, **(options or {})})

    def proof(self, state: OtuzbirState) -> dict:
        doc = super().proof(state)
        # The verifier replays from these options: name the revision even for a state saved before
        # revisions existed, so its log replays to its recorded result.
        doc["options"] = {**doc["options"], "rules": self._rules(state)}
        return doc

    def result(self, state: OtuzbirState) -> dict:
        if state["result"] is not None:
            return state["result"]
        return self._result(state)

    # ----- views --------------------------------------------------------------------
    def _visible_closed(self, state: OtuzbirState, seat: int | None, s: int) -> bool:
        return s == seat or state["revealed"][s]

    def view(self, state: OtuzbirState, seat: int | None) -> dict:
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

    def replay_view(self, state: OtuzbirState) -> dict:
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

    def all_cards(self, state: OtuzbirState) -> list[str]:
        cards: list[str] = []
        for s in range(state["seats"]):
            cards += state["closed"][s] + state["open"][s]
        return cards + list(state["deck"][state["pos"]:])

    def hidden_cards(self, state: OtuzbirState, seat: int | None) -> list[str]:
        hidden = list(state["deck"][state["pos"]:])
        for s in range(state["seats"]):
            if not self._visible_closed(state, seat, s):
                hidden += state["closed"][s]
        return hidden
