"""31's move handlers and the steps of a hand (``OtuzbirHand``): what each move does once
``Engine.apply`` has checked its envelope, the antes and the deal, raises and answers, the showdown,
the pot, eliminations and the table's result (../shared/spec/otuzbir.md)."""

from __future__ import annotations

from .base import Engine, Event, IllegalMove, Move, copy_json
from .otuzbir_cards import DECK, LIVE, SCORE_31, SCORE_BUST, SCORE_NONE, can_stand, category, hand_score, pick_winner
from .otuzbir_options import LEGACY_RULES, RULES, ante_for
from .states import OtuzbirState

AMOUNT_MOVES = ("raise", "closed", "raise_stand")
PHASE_MOVES = {
    "predeal": ("pass", "raise"),
    "turn": ("open", "closed", "stand", "raise_stand"),
    "predeal_answer": ("see", "fold"),
    "answer": ("see", "fold"),
}


class OtuzbirHand(Engine):
    """The handlers behind ``OtuzbirEngine.move_rules`` and the hand's steps they share; every step
    mutates the forked state ``st`` only."""

    def _start_hand(self, st: OtuzbirState, d: int, events: list[Event]) -> None:
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

    @staticmethod
    def _cards(state: OtuzbirState, seat: int) -> list[str]:
        return state["closed"][seat] + state["open"][seat]

    def _score(self, state: OtuzbirState, seat: int) -> int:
        cards = self._cards(state, seat)
        return hand_score(cards) if cards else SCORE_NONE

    # ----- the move handlers (``Engine.apply`` has checked the envelope, the seat, the turn, the clock) --
    def _move_leave(self, state: OtuzbirState, seat: int, move: Move, now_ms: int,
                    auto: bool) -> tuple[OtuzbirState, list[Event]]:
        """Leaving is a fold now and the seat is out of every later hand (``_leave``)."""
        st = self._commit(state, seat, move, now_ms)
        events: list[Event] = []
        self._leave(st, seat, events, now_ms)
        st["auto"] = None
        return st, events

    def _move_hand(self, state: OtuzbirState, seat: int, move: Move, now_ms: int,
                   auto: bool) -> tuple[OtuzbirState, list[Event]]:
        """Every move of the hand: a pre-deal pass or raise, an answer to a raise, a turn's move."""
        kind = move["type"]
        amount = None
        if kind in AMOUNT_MOVES:
            if "amount" not in move:
                raise IllegalMove("malformed", f"A {kind} move needs an amount.")
            amount = move["amount"]
            if type(amount) is not int:
                raise IllegalMove("bad_amount", "amount must be a whole number.")
        if kind not in PHASE_MOVES[state["phase"]]:
            raise IllegalMove("wrong_phase", f"A {kind} move is not possible now.")
        if amount is not None:
            if amount < 1:
                raise IllegalMove("bad_amount", "A raise is at least 1 chip.")
            if amount > state["pot"]:
                raise IllegalMove("over_pot_limit", f"A raise may be at most the pot ({state['pot']}).")
        if kind in ("stand", "raise_stand") and not can_stand(self._score(state, seat)):
            raise IllegalMove("cannot_stand", "You may not stand under 26 unless the hand is 14, Yonca, Çengel or Cin.")
        st = self._commit(state, seat, move, now_ms)
        events: list[Event] = []
        if kind in ("pass", "raise"):
            self._predeal(st, seat, amount, events)
        elif kind in ("see", "fold"):
            self._answer(st, seat, kind, events)
        else:
            self._turn(st, seat, kind, amount, events)
        # only an automatic open card continues an automatic turn (a new decision gets the full timer)
        st["auto"] = seat if auto and kind == "open" and st["phase"] == "turn" and st["turn"] == seat else None
        return st, events

    def _commit(self, state: OtuzbirState, seat: int, move: Move, now_ms: int) -> OtuzbirState:
        """The forked state with the move logged: every accepted move passes here after its checks."""
        st = self._fork(state)
        st["moves"] = list(state["moves"])
        self._log_move(st, seat, move, now_ms)
        st["last_ms"] = now_ms
        return st

    @staticmethod
    def _fork(state: OtuzbirState) -> OtuzbirState:
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
    def _predeal(self, st: OtuzbirState, seat: int, amount: int | None, events: list[Event]) -> None:
        if amount is None:
            events.append({"type": "pass", "seat": seat})
            self._deal(st, events)
        else:
            self._open_raise(st, seat, amount, "predeal", events)

    def _open_raise(self, st: OtuzbirState, seat: int, amount: int, kind: str, events: list[Event]) -> None:
        st["contrib"][seat] += amount
        st["pot"] += amount
        queue = [s for s in st["order"] if s != seat and st["status"][s] in LIVE]
        st["raise"] = {"seat": seat, "amount": amount, "kind": kind, "queue": queue, "seen": [], "folded": []}
        st["raises"] = st["raises"] + [{"seat": seat, "amount": amount, "kind": kind}]
        st["phase"] = "predeal_answer" if kind == "predeal" else "answer"
        events.append({"type": "raise", "seat": seat, "amount": amount, "kind": kind, "pot": st["pot"]})

    def _answer(self, st: OtuzbirState, seat: int, kind: str, events: list[Event]) -> None:
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

    def _finish_raise(self, st: OtuzbirState, events: list[Event]) -> None:
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

    def _deal(self, st: OtuzbirState, events: list[Event]) -> None:
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

    def _turn(self, st: OtuzbirState, seat: int, kind: str, amount: int | None, events: list[Event]) -> None:
        if kind == "open":
            self._draw(st, seat, closed=False, events=events)
        elif kind == "stand":
            st["status"][seat] = "stood"
            events.append({"type": "stand", "seat": seat})
            self._next_turn(st, events)
        else:
            assert amount is not None
            self._open_raise(st, seat, amount, "closed" if kind == "closed" else "stand", events)

    def _draw(self, st: OtuzbirState, seat: int, *, closed: bool, events: list[Event]) -> None:
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

    def _next_turn(self, st: OtuzbirState, events: list[Event]) -> None:
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

    def _one_left(self, st: OtuzbirState, events: list[Event]) -> bool:
        live = [s for s in st["order"] if st["status"][s] in LIVE]
        if len(live) == 1:
            self._end_hand(st, live[0], [], events)
            return True
        return False

    def _leave(self, st: OtuzbirState, seat: int, events: list[Event], now_ms: int) -> None:
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

    def _end_hand(self, st: OtuzbirState, winner: int, compared: list[int], events: list[Event]) -> None:
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
    def _next_in_table(st: OtuzbirState, seat: int) -> int:
        n = st["seats"]
        for k in range(1, n + 1):
            s = (seat + k) % n
            if st["in_table"][s]:
                return s
        return seat

    def _result(self, st: OtuzbirState) -> dict:
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
    def _rules(state: OtuzbirState) -> int:
        """The rules revision the table is played by (a state saved before revisions: 1)."""
        return state["options"].get("rules", LEGACY_RULES)

    @staticmethod
    def _tournament_key(st: OtuzbirState, s: int, left: dict | None) -> tuple:
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
