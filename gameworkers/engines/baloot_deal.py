"""What every Baloot move handler shares: dealing, copying and stamping the state for a move, and
ending a deal (its score, then the next deal or the end of the game)."""

from __future__ import annotations

from . import fairness
from .baloot_cards import TARGET, hand_sorted, team_of
from .baloot_scoring import best_project_team, score_deal
from .base import Engine, Event, IllegalMove, Move
from .states import BalootState

_MUTABLE_LISTS = ("hands", "stock", "trick", "tricks", "baloot", "scores", "left", "moves", "shuffles",
                  "deals", "projects", "bids", "sawa_pile")


class BalootDeal(Engine):
    """The deal's plumbing under the move handlers (``BalootMoves``) and the engine (``BalootEngine``)."""

    def _next_deal(self, state: BalootState, *, first: bool = False) -> None:
        """Shuffle and deal 5 each plus the exposed card (mutates ``state``)."""
        state["deal_no"] += 1
        state["dealer"] = (state["dealer"] + 1) % 4
        d = state["deal_no"]
        stock = self._shuffle(state, d, "kocok", list(fairness.BALOOT_DECK))
        dealer = state["dealer"]
        hands: list[list[str]] = [[], [], [], []]
        for k in range(4):  # P1..P4 get 3 each, then 2 each
            seat = (dealer + 1 + k) % 4
            hands[seat].extend(stock[3 * k:3 * k + 3])
            hands[seat].extend(stock[12 + 2 * k:14 + 2 * k])
        state.update({
            "phase": "bidding",
            "hands": [hand_sorted(h) for h in hands],
            "exposed": stock[20],
            "stock": stock[21:],
            "bidding": {"round": 1, "stage": "bid", "turn": (dealer + 1) % 4, "hokum": None,
                        "ashkal": None, "overcalls": 0},
            "bids": [],
            "contract": None,
            "doubling": None,
            "projects": [None, None, None, None],
            "declare_turn": 0,
            "revealed": False,
            "trick": [],
            "leader": None,
            "tricks": [],
            "baloot": [],
            "sawa": False,
            "sawa_by": None,
            "sawa_pile": [],
        })

    # ----- helpers --------------------------------------------------------------------
    @staticmethod
    def _clone(state: BalootState) -> BalootState:
        """Copy what a move may change; log entries and nested records are never mutated."""
        new = dict(state)
        for key in _MUTABLE_LISTS:
            if key in new and isinstance(new[key], list):
                new[key] = list(new[key])
        new["hands"] = [list(h) for h in state["hands"]]
        new["options"] = dict(state["options"])
        for key in ("bidding", "contract", "doubling"):
            if isinstance(new.get(key), dict):
                new[key] = dict(new[key])
        if isinstance(new.get("doubling"), dict):
            new["doubling"]["passed"] = list(new["doubling"]["passed"])
        return new

    def _trump(self, state: BalootState) -> str | None:
        c = state.get("contract")
        return c["trump"] if c else None

    def _is_sun(self, state: BalootState) -> bool:
        return state["contract"]["kind"] in ("sun", "ashkal")

    @staticmethod
    def _check_keys(move: Move, allowed: set[str]) -> None:
        extra = set(move) - allowed - {"type", "auto"}
        if extra:
            raise IllegalMove("malformed", f"Unexpected keys {sorted(extra)}.")

    def _start(self, state: BalootState, seat: int, move: Move, now_ms: int) -> BalootState:
        """Every accepted move passes here after its own checks (the envelope has checked the clock:
        ``BalootEngine._clock_runs_forward``)."""
        new = self._clone(state)
        self._log_move(new, seat, move, now_ms)
        new["since"] = now_ms
        return new

    def _deal_event(self, state: BalootState) -> Event:
        return {"type": "deal", "deal": state["deal_no"], "dealer": state["dealer"], "exposed": state["exposed"]}

    # ----- end of a deal ---------------------------------------------------------------
    def best_project_team(self, state: BalootState) -> int | None:
        """The team holding the best declared project, None if nobody declared one."""
        return best_project_team(state)

    def score_deal(self, state: BalootState) -> dict:
        """The finished deal's scoring, as a card-free summary."""
        return score_deal(state)

    def _end_deal(self, state: BalootState, events: list[Event]) -> None:
        summary = self.score_deal(state)
        scores = [state["scores"][t] + summary["deal_score"][t] for t in (0, 1)]
        state["scores"] = scores
        summary["scores"] = list(scores)
        state["deals"].append(summary)
        state["last_deal"] = summary
        events.append({"type": "deal_scored", **summary})
        if summary["gahwa"]:
            self._finish(state, summary["winner"], events)
        elif max(scores) >= TARGET and scores[0] != scores[1]:
            self._finish(state, 0 if scores[0] > scores[1] else 1, events)
        else:
            self._next_deal(state)
            events.append(self._deal_event(state))

    def _finish(self, state: BalootState, winner: int, events: list[Event]) -> None:
        state["phase"] = "over"
        state["result"] = self._make_result(state, winner=winner)
        events.append({"type": "game_over", "result": state["result"]})

    def _make_result(self, state: BalootState, *, winner: int) -> dict:
        ranks = [1 if team_of(s) == winner else 2 for s in range(4)]
        return {"ranks": ranks, "winners": [s for s in range(4) if ranks[s] == 1],
                "winning_team": winner, "scores": list(state["scores"]),
                "deals": len(state["deals"]), "forfeit": state["forfeit"]}
