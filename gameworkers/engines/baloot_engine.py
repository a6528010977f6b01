"""The Baloot engine: the contract of ``base.Engine`` (setup, who acts, ``apply``'s dispatch to the
handlers of ``BalootMoves``, timers, views, results and proofs)."""

from __future__ import annotations

from typing import Any

from . import fairness
from .baloot_cards import FAST_START, LEGACY_RULES, RULES, hand_sorted, legal_cards, position, rules_revision, team_of
from .baloot_moves import BalootMoves
from .baloot_projects import candidate_projects
from .base import Event, GameSpec, IllegalMove, Move, MoveRule
from .states import BalootState

BIDDING_LIMIT_MS = 8000
AUTO_TRUMP_ORDER = "SHDC"  # round-2 automatic confirm names the first suit that is allowed


class BalootEngine(BalootMoves):
    # Seats 0 & 2 play against 1 & 3; a bracket table is two pairs.
    spec = GameSpec(name="baloot", label="Baloot", min_seats=4, max_seats=4, stake_kinds=("casual", "pot"),
                    partnerships=((0, 2), (1, 3)), bracket_size=2)

    # The envelope (docs/rules/moves.md): every move but a leave is the seat's to act (``to_act``); a
    # move of another phase keeps the phase's own code (``_apply_phase``). ``auto`` only on the moves
    # ``timeout_move`` makes.
    move_rules = {
        **{t: MoveRule("_apply_phase") for t in ("sun", "hokum", "ashkal", "triple", "four", "gahwa")},
        "pass": MoveRule("_apply_phase", auto=True),
        "confirm": MoveRule("_apply_phase", keys=("trump",), auto=True),
        "double": MoveRule("_apply_phase", keys=("lock",)),
        "declare": MoveRule("_apply_phase", keys=("projects",), auto=True, structured=("projects",)),
        "play": MoveRule("_apply_phase", keys=("card", "baloot"), auto=True),
        "sawa": MoveRule("_apply_phase", keys=("baloot",)),
        "leave": MoveRule("_apply_leave", turn=False),
    }

    def normal_options(self, options: dict | None, seats: int) -> dict:
        if options is not None and not isinstance(options, dict):
            raise ValueError("options must be a JSON object")
        return self._options(options)

    # ----- setup ----------------------------------------------------------------------
    def new(self, seed: bytes, seats: int, options: dict | None = None) -> BalootState:
        opts = self._options(options)
        state = self._base_state(seed, seats, opts)
        state["first"] = fairness.first_player(self._seed(state), 4)
        start = FAST_START if opts["mode"] == "fast" else 0
        state.update({
            "scores": [start, start],
            "deal_no": -1,
            "dealer": (state["first"] - 1) % 4,  # _next_deal moves it to ``first``
            "left": [False] * 4,
            "deals": [],
            "last_deal": None,
            "result": None,
            "forfeit": None,
            "since": None,
        })
        self._next_deal(state, first=True)
        return state

    @staticmethod
    def _options(options: dict | None) -> dict:
        options = dict(options or {})
        mode = options.get("mode", "classic")
        overtrump = options.get("overtrump", False)
        rules = options.get("rules", RULES)
        if mode not in ("classic", "fast"):
            raise ValueError("mode must be 'classic' or 'fast'")
        if not isinstance(overtrump, bool):
            raise ValueError("overtrump must be true or false")
        if isinstance(rules, bool) or rules not in (LEGACY_RULES, RULES):
            raise ValueError(f"rules must be {LEGACY_RULES} or {RULES}")
        unknown = set(options) - {"mode", "overtrump", "rules"}
        if unknown:
            raise ValueError(f"unknown options {sorted(unknown)}")
        # The revision is stored with the options, so a replay started from them (proof, replays)
        # plays by the rules the game was played by.
        return {"mode": mode, "overtrump": overtrump, "rules": rules}

    # ----- contract: who acts --------------------------------------------------------
    def is_over(self, state: BalootState) -> bool:
        return state["phase"] == "over"

    def _player_to_play(self, state: BalootState) -> int:
        return (state["leader"] + len(state["trick"])) % 4

    def to_act(self, state: BalootState) -> list[int]:
        phase = state["phase"]
        if phase == "bidding":
            return [state["bidding"]["turn"]]
        if phase == "doubling":
            dbl = state["doubling"]
            return [s for s in self._team_order(state, dbl["team"]) if s not in dbl["passed"]]
        if phase == "projects":
            return [(state["dealer"] + 1 + state["declare_turn"]) % 4]
        if phase == "play":
            return [self._player_to_play(state)]
        return []

    def _team_order(self, state: BalootState, team: int) -> list[int]:
        """The team's two seats, the one nearer the dealer's right first."""
        return sorted((team, team + 2), key=lambda s: position(state, s))

    def legal_moves(self, state: BalootState, seat: int) -> list[Move]:
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in self.to_act(state):
            return []
        phase = state["phase"]
        if phase == "bidding":
            return self._bidding_moves(state, seat)
        if phase == "doubling":
            return self._doubling_moves(state)
        if phase == "projects":
            sun = self._is_sun(state)
            return [{"type": "declare", "projects": ps} for ps in candidate_projects(state["hands"][seat], sun)]
        return self._play_moves(state, seat)
    # ----- apply ----------------------------------------------------------------------
    def _apply_phase(self, state: BalootState, seat: int, move: Move, now_ms: int,
                     auto: bool) -> tuple[BalootState, list[Event]]:
        """A move of the phase's: a type another phase has is refused with this phase's code."""
        phase = state["phase"]
        if phase == "bidding":
            return self._apply_bid(state, seat, move, now_ms)
        if phase == "doubling":
            return self._apply_double(state, seat, move, now_ms)
        if phase == "projects":
            return self._apply_declare(state, seat, move, now_ms)
        return self._apply_play(state, seat, move, now_ms)

    def _clock_runs_forward(self, state: BalootState) -> bool:
        # Rules revision 1 tables logged whatever clock they were given and still replay as played.
        return rules_revision(state) != LEGACY_RULES

    def _apply_leave(self, state: BalootState, seat: int, move: Move, now_ms: int,
                     auto: bool) -> tuple[BalootState, list[Event]]:
        if state["left"][seat]:
            raise IllegalMove("already_left", "This seat has already left.")
        new = self._start(state, seat, move, now_ms)
        new["left"][seat] = True
        events: list[Event] = [{"type": "left", "seat": seat}]
        team = team_of(seat)
        if new["left"][team] and new["left"][team + 2]:
            # A team with nobody left forfeits: the other team wins at once.
            new["forfeit"] = team
            new["phase"] = "over"
            new["result"] = self._make_result(new, winner=1 - team)
            events.append({"type": "game_over", "result": new["result"]})
        return new, events
    # ----- result and proof -----------------------------------------------------------
    def result(self, state: BalootState) -> dict:
        if state["result"] is None:
            raise ValueError("the game is not over")
        return state["result"]

    def replay_start(self, seed: bytes, seats: int, options: dict | None, moves: list) -> BalootState:
        """A logged game's options without ``rules`` were saved before revisions existed: it was
        played by revision 1 (a proof or a stored state from then), so it is replayed by it."""
        return self.new(seed, seats, {"rules": LEGACY_RULES, **(options or {})})

    def proof(self, state: BalootState) -> dict:
        doc = super().proof(state)
        # The verifier replays from these options: name the revision even for a state saved before
        # revisions existed (it was played by revision 1), so its log replays to its recorded result.
        doc["options"] = {**doc["options"], "rules": rules_revision(state)}
        return doc

    # ----- timers --------------------------------------------------------------------
    def timeout_move(self, state: BalootState, seat: int | None) -> Move:
        if seat not in self.to_act(state):
            raise IllegalMove("not_your_turn", "That seat has no pending step.")
        phase = state["phase"]
        if phase == "bidding":
            b = state["bidding"]
            if b["stage"] == "choice":
                if b["round"] == 1:
                    return {"type": "confirm", "auto": True}
                trump = next(s for s in AUTO_TRUMP_ORDER if s != state["exposed"][0])
                return {"type": "confirm", "trump": trump, "auto": True}
            return {"type": "pass", "auto": True}
        if phase == "doubling":
            return {"type": "pass", "auto": True}
        if phase == "projects":
            return {"type": "declare", "projects": [], "auto": True}
        c = state["contract"]
        cards = legal_cards(state["hands"][seat], state["trick"], c["trump"],
                            lock=bool(state["doubling"] and state["doubling"].get("lock")),
                            overtrump=state["options"]["overtrump"])
        return {"type": "play", "card": cards[0], "auto": True}

    def deadline(self, state: BalootState) -> dict | None:
        acting = self.to_act(state)
        if not acting:
            return None
        for s in acting:
            if state["left"][s]:
                return {"seat": s, "since_ms": state["since"], "limit_ms": 0}
        seat = acting[0]
        phase = state["phase"]
        if phase == "bidding":
            return {"seat": seat, "since_ms": state["since"], "limit_ms": BIDDING_LIMIT_MS}
        if phase == "doubling":
            # one timer per step, from when the step was offered to the team
            return {"seat": seat, "since_ms": state["doubling"]["since"], "limit_ms": None}
        return {"seat": seat, "since_ms": state["since"], "limit_ms": None}

    # ----- views ---------------------------------------------------------------------
    def _public_projects(self, state: BalootState) -> list[list[dict] | None]:
        out: list[list[dict] | None] = []
        for ps in state["projects"]:
            if ps is None:
                out.append(None)
            elif state["revealed"]:
                out.append([{"kind": p["kind"], "cards": list(p["cards"])} for p in ps])
            else:
                out.append([{"kind": p["kind"]} for p in ps])
        return out

    def view(self, state: BalootState, seat: int | None) -> dict:
        over = self.is_over(state)
        c = state["contract"]
        v: dict[str, Any] = {
            "game": self.name,
            "seat": seat,
            "to_act": self.to_act(state),
            "over": over,
            "phase": state["phase"],
            "options": dict(state["options"]),
            "deal_no": state["deal_no"],
            "dealer": state["dealer"],
            "scores": list(state["scores"]),
            "counts": [len(h) for h in state["hands"]],
            "hand": hand_sorted(state["hands"][seat]) if seat is not None and 0 <= seat < 4 else None,
            "exposed": state["exposed"],
            "exposed_taker": c["taker"] if c else None,
            "bidding": {k: state["bidding"][k] for k in ("round", "stage", "turn", "hokum", "ashkal")},
            "bids": [dict(b) for b in state["bids"]],
            "contract": dict(c) if c else None,
            "doubling": ({k: v2 for k, v2 in state["doubling"].items() if k != "since"}
                         if state["doubling"] else None),
            "projects": self._public_projects(state),
            "leader": state["leader"],
            "trick": [dict(p) for p in state["trick"]],
            "tricks": [{"leader": t["leader"], "winner": t["winner"], "points": t["points"],
                        "cards": [dict(p) for p in t["cards"]]} for t in state["tricks"]],
            "baloot": list(state["baloot"]),
            "sawa_by": state["sawa_by"],
            "sawa_pile": list(state["sawa_pile"]),
            "left": list(state["left"]),
            "last_deal": state["last_deal"],
            "commitment": state["commitment"],
        }
        if seat is not None and seat == state["leader"] and state["phase"] == "play" and not state["trick"]:
            v["sawa_offered"] = state["sawa"]
        if seat is not None and 0 <= seat < 4 and state["projects"][seat] is not None:
            v["my_projects"] = [{"kind": p["kind"], "cards": list(p["cards"])} for p in state["projects"][seat]]
        if over:
            v["result"] = state["result"]
        return v

    def replay_view(self, state: BalootState) -> dict:
        v = self.view(state, None)
        v["hands"] = [list(h) for h in state["hands"]]
        v["stock"] = list(state["stock"])
        v["projects"] = [None if ps is None else [dict(p) for p in ps] for ps in state["projects"]]
        v["deals"] = list(state["deals"])
        v["seed"] = state["seed"] if self.is_over(state) else None
        return v

    # ----- card accounting -----------------------------------------------------------
    def all_cards(self, state: BalootState) -> list[str]:
        cards = [c for h in state["hands"] for c in h] + list(state["stock"])
        if state["contract"] is None:
            cards.append(state["exposed"])
        cards += [p["card"] for p in state["trick"]]
        cards += [p["card"] for t in state["tricks"] for p in t["cards"]]
        cards += state["sawa_pile"]
        return cards

    def hidden_cards(self, state: BalootState, seat: int | None) -> list[str]:
        """Others' hands and the stock, less what is public: the exposed card (known to be with
        its taker) and declared projects once shown."""
        public: set[str] = set()
        if state["contract"] is not None:
            public.add(state["exposed"])
        if state["revealed"]:
            public |= {c for ps in state["projects"] if ps for p in ps for c in p["cards"]}
        hidden = [c for s in range(4) if s != seat for c in state["hands"][s] if c not in public]
        return hidden + list(state["stock"])
