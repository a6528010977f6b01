"""Baloot's per-move handlers: the legal moves of each phase, and bidding, doubling, declaring
projects, playing a card and Sawa (../shared/spec/baloot.md; docs/rules/baloot.md)."""

from __future__ import annotations

from .baloot_cards import (
    LEGACY_RULES,
    SUITS,
    card_points,
    hand_sorted,
    legal_cards,
    position,
    rules_revision,
    team_of,
    trick_winner,
)
from .baloot_deal import BalootDeal
from .baloot_projects import PROJECT_KINDS, classify_project, declaration_problem, held_runs
from .baloot_sawa import sawa_possible
from .base import Event, IllegalMove, Move
from .states import BalootState

LADDER = ("double", "triple", "four", "gahwa")
LADDER_LEVEL = {"double": 2, "triple": 3, "four": 4}


class BalootMoves(BalootDeal):
    """One handler per phase; ``Engine.apply`` checks the envelope and the turn, then dispatches here."""

    # ----- legal moves ----------------------------------------------------------------
    def _bidding_moves(self, state: BalootState, seat: int) -> list[Move]:
        b = state["bidding"]
        stage = b["stage"]
        if stage == "bid":
            moves = [{"type": "pass"}, {"type": "sun"}, {"type": "hokum"}]
            if position(state, seat) >= 3:
                moves.append({"type": "ashkal"})
            return moves
        if stage in ("ashkal_answer", "overcall"):
            return [{"type": "pass"}, {"type": "sun"}]
        # the Hokum caller's choice
        if b["round"] == 1:
            return [{"type": "confirm"}, {"type": "sun"}]
        return [{"type": "confirm", "trump": s} for s in SUITS if s != state["exposed"][0]] + [{"type": "sun"}]

    def _doubling_moves(self, state: BalootState) -> list[Move]:
        dbl = state["doubling"]
        step = dbl["step"]
        if step == "double" and state["contract"]["kind"] == "hokum":
            return [{"type": "pass"}, {"type": "double", "lock": False}, {"type": "double", "lock": True}]
        return [{"type": "pass"}, {"type": step}]

    def _baloot_eligible(self, state: BalootState, seat: int, card: str) -> bool:
        """Second of trump K/Q, the first played earlier in this deal by the same seat."""
        trump = self._trump(state)
        if trump is None or card[0] != trump or card[1] not in "KQ" or seat in state["baloot"]:
            return False
        other = trump + ("Q" if card[1] == "K" else "K")
        return any(p["seat"] == seat and p["card"] == other
                   for t in state["tricks"] for p in t["cards"]) or \
            any(p["seat"] == seat and p["card"] == other for p in state["trick"])

    def _play_moves(self, state: BalootState, seat: int) -> list[Move]:
        c = state["contract"]
        cards = legal_cards(state["hands"][seat], state["trick"], c["trump"],
                            lock=bool(state["doubling"] and state["doubling"].get("lock")),
                            overtrump=state["options"]["overtrump"])
        moves: list[Move] = []
        for card in cards:
            moves.append({"type": "play", "card": card})
            if self._baloot_eligible(state, seat, card):
                moves.append({"type": "play", "card": card, "baloot": True})
        if state["sawa"] and not state["trick"] and seat == state["leader"]:
            moves.append({"type": "sawa"})
            if self._legacy_sawa_baloot(state, seat):
                moves.append({"type": "sawa", "baloot": True})
        return moves

    def _legacy_sawa_baloot(self, state: BalootState, seat: int) -> bool:
        """Rules revision 1 only: a Sawa could claim Baloot when trump K and Q were both this seat's
        this deal, one still in hand, and it was not claimed yet. Under the current rules a Sawa
        plays no card, so it never carries the claim made "when playing the second of the two"."""
        if rules_revision(state) != LEGACY_RULES:
            return False
        trump = self._trump(state)
        if trump is None or seat in state["baloot"]:
            return False
        hand = state["hands"][seat]
        played = {p["card"] for t in state["tricks"] for p in t["cards"] if p["seat"] == seat}
        kq = [trump + "K", trump + "Q"]
        return all(x in hand or x in played for x in kq) and any(x in hand for x in kq)

    # ----- bidding -------------------------------------------------------------------
    def _apply_bid(self, state: BalootState, seat: int, move: Move, now_ms: int) -> tuple[BalootState, list[Event]]:
        b = state["bidding"]
        stage, mtype = b["stage"], move["type"]
        if stage == "choice" and mtype == "confirm":
            self._check_keys(move, {"trump"})
            trump = move.get("trump")
            if b["round"] == 1:
                if trump is not None and trump != state["exposed"][0]:
                    raise IllegalMove("bad_trump", "In round 1 trump is the exposed card's suit.")
                trump = state["exposed"][0]
            elif trump not in tuple(SUITS) or trump == state["exposed"][0]:
                raise IllegalMove("bad_trump", "Name a trump suit other than the exposed card's suit.")
        else:
            self._check_keys(move, set())
            allowed = {m["type"] for m in self._bidding_moves(state, seat)}
            if mtype not in allowed:
                raise IllegalMove("illegal_bid", f"'{mtype}' is not allowed now.")
        new = self._start(state, seat, move, now_ms)
        nb = new["bidding"]
        new["bids"].append({"seat": seat, "round": b["round"], "stage": stage, "bid": mtype,
                            **({"trump": trump} if mtype == "confirm" else {})})
        events: list[Event] = [{"type": "bid", "seat": seat, "bid": mtype, "round": b["round"],
                                **({"trump": trump} if mtype == "confirm" else {})}]
        dealer = new["dealer"]
        if stage == "bid":
            if mtype == "pass":
                if seat == dealer:
                    if b["round"] == 1:
                        nb.update({"round": 2, "turn": (dealer + 1) % 4})
                    else:
                        events.append({"type": "void_deal", "deal": new["deal_no"]})
                        new["deals"].append({"deal": new["deal_no"], "dealer": dealer, "void": True})
                        new["last_deal"] = new["deals"][-1]
                        self._next_deal(new)
                        events.append(self._deal_event(new))
                        return new, events
                else:
                    nb["turn"] = (seat + 1) % 4
            elif mtype == "sun":
                self._settle(new, "sun", seat, None, seat, events)
            elif mtype == "ashkal":
                nb.update({"stage": "ashkal_answer", "ashkal": seat, "turn": (seat - 1) % 4})
            else:  # hokum
                nb.update({"stage": "overcall", "hokum": seat, "turn": (seat + 1) % 4, "overcalls": 0})
        elif stage == "ashkal_answer":
            if mtype == "sun":
                self._settle(new, "sun", seat, None, seat, events)
            else:
                caller = b["ashkal"]
                self._settle(new, "ashkal", caller, None, (caller + 2) % 4, events)
        elif stage == "overcall":
            if mtype == "sun":
                self._settle(new, "sun", seat, None, seat, events)
            else:
                nb["overcalls"] += 1
                nb["turn"] = b["hokum"] if nb["overcalls"] == 3 else (seat + 1) % 4
                if nb["overcalls"] == 3:
                    nb["stage"] = "choice"
        else:  # choice
            if mtype == "sun":
                self._settle(new, "sun", seat, None, seat, events)
            else:
                self._settle(new, "hokum", seat, trump, seat, events)
        return new, events

    def _settle(self, state: BalootState, kind: str, player: int, trump: str | None, taker: int,
                events: list[Event]) -> None:
        """The contract is fixed: deal the rest, then doubling or projects (mutates ``state``)."""
        rnd = state["bidding"]["round"]
        team = team_of(player)
        state["contract"] = {"kind": kind, "player": player, "team": team, "trump": trump,
                             "round": rnd, "taker": taker}
        dealer = state["dealer"]
        stock = state["stock"]
        pos = 0
        for k in range(4):  # from card 21 on, P1..P4 each a packet of 3 (taker: exposed + 2)
            seat = (dealer + 1 + k) % 4
            if seat == taker:
                state["hands"][seat] = hand_sorted(state["hands"][seat] + [state["exposed"]] + stock[pos:pos + 2])
                pos += 2
            else:
                state["hands"][seat] = hand_sorted(state["hands"][seat] + stock[pos:pos + 3])
                pos += 3
        state["stock"] = []
        events.append({"type": "contract", **state["contract"]})
        doubling = None
        if kind == "hokum":
            doubling = "hokum"
        elif rnd == 1 and state["scores"][team] > 100:
            doubling = "sun"
        if doubling:
            state["phase"] = "doubling"
            state["doubling"] = {"style": doubling, "step": "double", "team": 1 - team, "level": 1,
                                 "passed": [], "lock": False, "gahwa": False, "since": state["since"],
                                 "by": None}
        else:
            state["doubling"] = {"style": None, "step": None, "team": None, "level": 1, "passed": [],
                                 "lock": False, "gahwa": False, "since": state["since"], "by": None}
            self._start_projects(state)

    # ----- doubling ------------------------------------------------------------------
    def _apply_double(self, state: BalootState, seat: int, move: Move, now_ms: int) -> tuple[BalootState, list[Event]]:
        dbl = state["doubling"]
        mtype = move["type"]
        hokum_double = dbl["step"] == "double" and dbl["style"] == "hokum"
        if mtype == "double" and hokum_double:
            self._check_keys(move, {"lock"})
            if not isinstance(move.get("lock"), bool):
                raise IllegalMove("lock_required", "Doubling a Hokum: say 'lock': true or false.")
        else:
            self._check_keys(move, set())
        if mtype != "pass" and mtype != dbl["step"]:
            raise IllegalMove("illegal_double", f"'{mtype}' is not the step offered now.")
        new = self._start(state, seat, move, now_ms)
        nd = new["doubling"]
        events: list[Event] = [{"type": "doubling", "seat": seat, "call": mtype,
                                **({"lock": move["lock"]} if mtype == "double" and hokum_double else {})}]
        if mtype == "pass":
            nd["passed"].append(seat)
            if len(nd["passed"]) == 2:
                nd["step"] = None
                self._start_projects(new)
            return new, events
        nd["by"] = seat
        if mtype == "gahwa":
            nd["gahwa"] = True
        else:
            nd["level"] = LADDER_LEVEL[mtype]
        if hokum_double:
            nd["lock"] = move["lock"]
        step_index = LADDER.index(mtype)
        if nd["style"] == "hokum" and step_index + 1 < len(LADDER):
            nd.update({"step": LADDER[step_index + 1], "team": 1 - nd["team"], "passed": [], "since": now_ms})
        else:
            nd["step"] = None
            self._start_projects(new)
        return new, events

    # ----- projects ------------------------------------------------------------------
    def _start_projects(self, state: BalootState) -> None:
        state["phase"] = "projects"
        state["declare_turn"] = 0

    def _apply_declare(self, state: BalootState, seat: int, move: Move, now_ms: int) -> tuple[BalootState, list[Event]]:
        if move["type"] != "declare":
            raise IllegalMove("declare_required", "Declare your projects (an empty list for none).")
        self._check_keys(move, {"projects"})
        projects = move.get("projects")
        if not isinstance(projects, list) or len(projects) > 8:
            raise IllegalMove("malformed", "'projects' must be a list.")
        hand = state["hands"][seat]
        sun = self._is_sun(state)
        clean: list[dict] = []
        for p in projects:
            if not isinstance(p, dict) or set(p) != {"kind", "cards"} or p["kind"] not in PROJECT_KINDS \
                    or not isinstance(p["cards"], list) or not all(isinstance(c, str) for c in p["cards"]):
                raise IllegalMove("malformed", "A project is {'kind': ..., 'cards': [...]}.")
            if not all(c in hand for c in p["cards"]):
                raise IllegalMove("card_not_held", "A project's cards must be in your hand.")
            kind = classify_project(p["cards"], sun)
            if kind != p["kind"]:
                raise IllegalMove("bad_project", f"Those cards do not form a {p['kind']}.")
            clean.append({"kind": kind, "cards": hand_sorted(p["cards"])})
        problem = declaration_problem(clean)
        if problem:
            raise IllegalMove("bad_project", problem)
        runs = held_runs(hand)
        for run in runs:
            if sum(1 for p in clean if set(p["cards"]) <= set(run) and p["cards"][0][1] != p["cards"][1][1]) > 1:
                raise IllegalMove("bad_project", "A held run yields at most one project.")
        new = self._start(state, seat, move, now_ms)
        new["projects"][seat] = clean
        events: list[Event] = [{"type": "declared", "seat": seat, "kinds": [p["kind"] for p in clean]}]
        new["declare_turn"] += 1
        if new["declare_turn"] == 4:
            new["phase"] = "play"
            new["leader"] = (new["dealer"] + 1) % 4
            new["trick"] = []
            self._update_sawa(new)
        return new, events

    # ----- play ----------------------------------------------------------------------
    def _update_sawa(self, state: BalootState) -> None:
        """Cached once per trick start: may the leader take Sawa?"""
        c = state["contract"]
        lock = bool(state["doubling"] and state["doubling"].get("lock"))
        state["sawa"] = sawa_possible(state["hands"], state["leader"], c["trump"], lock)

    def _apply_play(self, state: BalootState, seat: int, move: Move, now_ms: int) -> tuple[BalootState, list[Event]]:
        mtype = move["type"]
        if mtype not in ("play", "sawa"):
            raise IllegalMove("play_required", "Play a card.")
        self._check_keys(move, {"card", "baloot"} if mtype == "play" else {"baloot"})
        claim = move.get("baloot", False)
        if not isinstance(claim, bool):
            raise IllegalMove("malformed", "'baloot' must be true or false.")
        if mtype == "sawa":
            if not (state["sawa"] and not state["trick"] and seat == state["leader"]):
                raise IllegalMove("sawa_not_offered", "Sawa is not offered now.")
            if claim and not self._legacy_sawa_baloot(state, seat):
                raise IllegalMove("baloot_not_allowed", "Sawa plays no card, so it carries no Baloot claim.")
            return self._apply_sawa(state, seat, move, now_ms, claim)
        card = move.get("card")
        if not isinstance(card, str):
            raise IllegalMove("malformed", "'card' must be a card code.")
        if card not in state["hands"][seat]:
            raise IllegalMove("card_not_held", "You do not hold that card.")
        c = state["contract"]
        legal = legal_cards(state["hands"][seat], state["trick"], c["trump"],
                            lock=bool(state["doubling"] and state["doubling"].get("lock")),
                            overtrump=state["options"]["overtrump"])
        if card not in legal:
            raise IllegalMove("illegal_card", "That card may not be played now.")
        if claim and not self._baloot_eligible(state, seat, card):
            raise IllegalMove("baloot_not_allowed", "Baloot is claimed with the second of the trump K and Q.")
        new = self._start(state, seat, move, now_ms)
        new["hands"][seat].remove(card)
        new["trick"].append({"seat": seat, "card": card})
        new["sawa"] = False
        events: list[Event] = [{"type": "play", "seat": seat, "card": card}]
        if claim:
            new["baloot"].append(seat)
            events.append({"type": "baloot", "seat": seat})
        if len(new["trick"]) < 4:
            return new, events
        trump = c["trump"]
        w = new["trick"][trick_winner(new["trick"], trump)]["seat"]
        pts = sum(card_points(p["card"], trump) for p in new["trick"])
        new["tricks"].append({"leader": new["leader"], "cards": new["trick"], "winner": w, "points": pts})
        events.append({"type": "trick", "winner": w, "points": pts, "cards": new["trick"]})
        new["trick"] = []
        new["leader"] = w
        new["revealed"] = True  # declared projects are shown once the first trick is over
        if len(new["tricks"]) == 8:
            self._end_deal(new, events)
        else:
            self._update_sawa(new)
        return new, events

    def _apply_sawa(self, state: BalootState, seat: int, move: Move, now_ms: int,
                    claim: bool) -> tuple[BalootState, list[Event]]:
        new = self._start(state, seat, move, now_ms)
        pile = [c for h in new["hands"] for c in h]
        new["sawa_pile"] = hand_sorted(pile)
        new["hands"] = [[], [], [], []]
        new["sawa_by"] = seat
        new["revealed"] = True
        events: list[Event] = [{"type": "sawa", "seat": seat, "cards": new["sawa_pile"]}]
        if claim:  # rules revision 1 only (refused before this point otherwise)
            new["baloot"].append(seat)
            events.append({"type": "baloot", "seat": seat})
        self._end_deal(new, events)
        return new, events
