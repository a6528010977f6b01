"""Lembar's move handlers (``LembarMoves``): what each move does once ``Engine.apply`` has checked its
envelope (shape, keys, seat, turn, clock), and the helpers they share (../shared/spec/lembar.md).

Speed matters (random playouts, bots): a handler copies the top-level dict and only the lists the
move touches (``_w``/``_whand``); a play or a draw inlines its helpers. The one copy that grows with
the game is the move log's: the contract returns the whole log in a new state and leaves the
argument's alone, and a Python list cannot share its storage, so each move copies the references
(~1-3 ns each; the platform hands in an empty log, see docs/benchmarks/engines.md).
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Engine, Event, IllegalMove, Move
from .lembar_cards import (
    CARD_SET,
    CATCH_MS,
    CATCH_PENALTY,
    EFFECT_OF,
    MATCH,
    MOTIF_CARDS,
    MOTIF_OF,
    MOTIFS,
    TIMEOUTS_TO_REMOVE,
    WILDS,
    canonical_sorted,
)
from .states import LembarState


class LembarMoves(Engine):
    """The handlers behind ``LembarEngine.move_rules``; every one writes only to a copy of the state."""

    @staticmethod
    def _begin(state: LembarState) -> LembarState:
        """A shallow copy; lists are copied on first write (``_w``/``_whand``), the move log now."""
        s = dict(state)
        s["moves"] = list(state["moves"])
        return s

    def _close_late_windows(self, handler: Callable[..., tuple[LembarState, list[Event]]], state: LembarState,
                            seat: int, move: Move, now_ms: int,
                            auto: bool) -> tuple[LembarState, list[Event]] | None:
        """A window past its 3 s is closed whether or not the close step ran (the step is not in the
        move log, so a replay never runs it): the states agree from this move on. Returns the
        ``handler``'s answer on the state without those windows, or None when none is late (or the
        log numbers the close step: ``replay_start``)."""
        if state.get("numbered_close"):
            return None
        keep = [w for w in state["windows"] if now_ms <= w["since"] + CATCH_MS]
        if len(keep) == len(state["windows"]):
            return None
        closed = [w["seat"] for w in state["windows"] if w not in keep]
        s, events = handler(self, {**state, "windows": keep}, seat, move, now_ms, auto)
        return s, [*({"type": "window_closed", "seat": t} for t in closed), *events]

    # --- play
    def _play(self, state: LembarState, seat: int, move: Move, now_ms: int,
              auto: bool) -> tuple[LembarState, list[Event]]:
        if state["windows"] and (late := self._close_late_windows(LembarMoves._play, state, seat, move, now_ms, auto)):
            return late
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
    def _draw_move(self, state: LembarState, seat: int, move: Move, now_ms: int,
                   auto: bool) -> tuple[LembarState, list[Event]]:
        if state["windows"] and (late := self._close_late_windows(LembarMoves._draw_move, state, seat, move, now_ms,
                                                                  auto)):
            return late
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

    def _keep(self, state: LembarState, seat: int, move: Move, now_ms: int,
              auto: bool) -> tuple[LembarState, list[Event]]:
        if state["windows"] and (late := self._close_late_windows(LembarMoves._keep, state, seat, move, now_ms, auto)):
            return late
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
    def _call(self, state: LembarState, seat: int, move: Move, now_ms: int,
              auto: bool) -> tuple[LembarState, list[Event]]:
        if state["windows"] and (late := self._close_late_windows(LembarMoves._call, state, seat, move, now_ms, auto)):
            return late
        if state["calls"][seat] != "missing":
            raise IllegalMove("call_not_needed", "Lembar! is called only with one card left and not yet called.")
        s = self._begin(state)
        self._log_move(s, seat, move, now_ms)
        if state["timeouts"][seat]:
            _w(s, state, "timeouts")[seat] = 0
        _w(s, state, "calls")[seat] = "called"
        s["windows"] = [w for w in state["windows"] if w["seat"] != seat]
        return s, [{"type": "call", "seat": seat}]

    def _catch(self, state: LembarState, seat: int, move: Move, now_ms: int,
               auto: bool) -> tuple[LembarState, list[Event]]:
        if state["windows"] and (late := self._close_late_windows(LembarMoves._catch, state, seat, move, now_ms, auto)):
            return late
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

    def _leave(self, state: LembarState, seat: int, move: Move, now_ms: int,
               auto: bool) -> tuple[LembarState, list[Event]]:
        if state["windows"] and (late := self._close_late_windows(LembarMoves._leave, state, seat, move, now_ms, auto)):
            return late
        s = self._begin(state)
        self._log_move(s, seat, move, now_ms)
        events: list[Event] = [{"type": "leave", "seat": seat}]
        self._remove(s, state, seat, "left", now_ms, events)
        return s, events

    def _system(self, state: LembarState, seat: None, move: Move, now_ms: int,
                auto: bool) -> tuple[LembarState, list[Event]]:
        """Close the catch windows past their 3 s. Not a move (the spec numbers none): no sequence
        number, no log entry, so no later shuffle depends on whether or when it ran. It only
        advances the clock floor (``last_move_ms``), so no later move can be earlier than a close
        that already happened; the next move sets the same floor in a replay without it."""
        if not auto:
            raise IllegalMove("bad_seat", "Only the system step 'close_window' (automatic) has no seat.")
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

    def _system_numbered(self, state: LembarState, move: Move, now_ms: int) -> tuple[LembarState, list[Event]]:
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
    def _next(s: LembarState, frm: int) -> int:
        n, d, active = s["seats"], s["direction"], s["active"]
        i = frm
        for _ in range(n):
            i = (i + d) % n
            if active[i]:
                return i
        return frm

    @staticmethod
    def _set_turn(s: LembarState, turn: int, now_ms: int, events: list[Event]) -> None:
        s["turn"] = turn
        s["turn_since"] = now_ms
        s["phase"] = "play"
        s["drawn"] = None
        s["auto_pending"] = False
        events.append({"type": "turn", "seat": turn})

    @staticmethod
    def _own_or_auto(s: LembarState, old: LembarState, seat: int, auto: bool, events: list[Event]) -> bool:
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

    def _maybe_remove_after_timeout(self, s: LembarState, old: LembarState, seat: int, now_ms: int,
                                    events: list[Event]) -> None:
        if s["phase"] != "over" and s["timeouts"][seat] >= TIMEOUTS_TO_REMOVE and s["active"][seat]:
            self._remove(s, old, seat, "timeouts", now_ms, events)

    def _draw_into(self, s: LembarState, old: LembarState, seat: int, count: int, seq: int, events: list[Event]) -> int:
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

    def _draw_slow(self, s: LembarState, old: LembarState, seat: int, count: int, seq: int, events: list[Event]) -> int:
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

    def _remove(self, s: LembarState, old: LembarState, seat: int, reason: str, now_ms: int, events: list[Event]) -> None:
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

    def _finish(self, s: LembarState, end: str, winner: int | None, events: list[Event]) -> None:
        s["phase"] = "over"
        s["end"] = end
        s["winner"] = winner
        s["drawn"] = None
        s["auto_pending"] = False
        s["windows"] = []
        events.append({"type": "game_over", "end": end, "result": self.result(s)})


def _w(s: LembarState, old: LembarState, key: str) -> list:
    """``s[key]`` made safe to mutate: copied once if still shared with the old state."""
    v = s[key]
    if v is old[key]:
        v = s[key] = list(v)
    return v


def _whand(s: LembarState, old: LembarState, seat: int) -> list[str]:
    """``seat``'s hand in ``s`` made safe to mutate (outer list and that hand copied once)."""
    hands = s["hands"]
    if hands is old["hands"]:
        hands = s["hands"] = list(hands)
    h = hands[seat]
    if h is old["hands"][seat]:
        h = hands[seat] = list(h)
    return h
