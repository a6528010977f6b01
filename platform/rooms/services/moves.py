"""The move pipeline: a player's move, the automatic moves when a deadline fires, leaving a running game.

Money hooks (``wallets.table_money``) run inside the move's transaction; the broadcast and the bots'
turns are registered with ``transaction.on_commit``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from django.db import transaction
from django.utils import timezone

from core.transactions import after_commit
from gameworkers.engines import IllegalMove, copy_json, get_engine
from live import rows
from rooms import seeds, selectors, signals
from rooms.errors import TableError
from rooms.models import Seat, SeatStatus, StopReason, Table, TableStatus
from rooms.services.base import _after_commit_broadcast, _lock, now_ms
from rooms.services.clock import _charge_bank, _due_ms, _grace_if_dropped, _is_bot_seat, _overtime_ms, _set_deadline
from rooms.services.ending import _finish_locked, _stop_locked
from rooms.services.seating import _refresh_seating
from wallets import table_money

MAX_AUTO_STEPS = 50  # bound on automatic moves applied in one deadline firing
CLOCK_SLACK_MS = 50  # clocks of the timer host and this one may differ by a little


# ----- moves ----------------------------------------------------------------------------

def table_play(*, table_id: int, seat_number: int, move: dict, expected_version: int,
               user_id: int | None = None, at_ms: int | None = None, read: Table | None = None,
               written: Callable[[Table], None] | None = None) -> int:
    """Apply one move for a seat. Stale or duplicate versions are refused; returns the new version.

    ``user_id``, when given, must be the seat's occupant (a socket acts only for its own user).
    ``read``: the table (with its room) as the caller read it moments ago, unlocked (a batch of bot
    turns): the step is then computed from it and written only if nothing changed since, in one round
    trip (``_play_unlocked``); otherwise, or when the step settles money or seats, the locked path.
    ``written``: called with the table as committed by this move (the caller may keep it as its next read).
    """
    if isinstance(move, dict) and "auto" in move:
        raise TableError("malformed", "Automatic moves are the server's to make.")
    if read is not None and read.pk == table_id:
        table = _play_unlocked(read, seat_number=seat_number, move=move, expected_version=expected_version,
                               user_id=user_id, at=at_ms or now_ms())
        if table is not None:
            if written is not None:
                written(table)
            return table.version
    with transaction.atomic():
        # The acting user's account is read with the lock (one round trip): a ban takes effect on the
        # next move even when the message closing their sockets was lost.
        table = _lock(table_id, actor_id=user_id)
        current = table.version
        if table.actor_active is False:
            raise TableError("account_inactive", "This account has been deactivated.", version=current)
        if table.status != TableStatus.RUNNING:
            raise TableError("table_not_running", "This table is not running.", version=current)
        if expected_version != current:
            raise TableError("stale_version", "The table moved on; here is the current state.",
                             version=current)
        entry = selectors.seating_entry(table=table, seat_number=seat_number)
        if entry is None or (user_id is not None and entry["user_id"] != user_id):
            raise TableError("not_seated", "That seat is not in the game.", version=current)
        engine = get_engine(table.game)
        try:
            events = _apply(table, engine, seat_number, move, at_ms or now_ms())
        except TableError as exc:
            exc.version = current
            raise
        # _apply may have rewritten the seating (a seat marked out): look the entry up again.
        entry = selectors.seating_entry(table=table, seat_number=seat_number)
        if entry is not None and entry["timeouts"]:
            entry["timeouts"] = 0
            Seat.objects.filter(table=table, number=seat_number, status=SeatStatus.SEATED).update(
                consecutive_timeouts=0)
        # The move's writes are the transaction's last statements: COMMIT goes with them.
        _after_move(table, engine, events, commit=True)
    if written is not None:
        written(table)
    return table.version


def table_fire_deadline(*, table_id: int, expected_version: int) -> bool:
    """Apply the automatic move(s) whose deadline is due; a no-op when the version moved on."""
    with transaction.atomic():
        table = _lock(table_id)
        if table.status != TableStatus.RUNNING or table.version != expected_version:
            return False
        if table.deadline_at is None or table.deadline_at > timezone.now():
            return False
        engine = get_engine(table.game)
        if _is_bot_seat(table, table.deadline_seat):
            due = engine.deadline(table.state)
            if due is not None and _due_ms(table, due) > now_ms() + CLOCK_SLACK_MS:
                return False  # only the bot's rescue look (_set_deadline): its own turn timer still runs
        elif _grace_if_dropped(table, engine):
            return False  # the player's connection is down: the grace first, once per turn
        # How late the automatic move is, for the timer benchmarks and the fault harness.
        late_ms = now_ms() - int(table.deadline_at.timestamp() * 1000)
        # Written with the step's own rows in _after_move (no round trip of its own).
        table.last_event_seq += 1
        table.unsaved_log = rows.log_statements(table, [], [(table.last_event_seq, {
            "type": "timer", "seat": table.deadline_seat, "late_ms": late_ms})])
        events: list[dict] = []
        timed_out: set[int] = set()
        for _ in range(MAX_AUTO_STEPS):
            due = engine.deadline(table.state)
            if due is None or engine.is_over(table.state):
                break
            due_at = _due_ms(table, due) + _overtime_ms(table, due)
            if due_at > now_ms() and events:
                break
            seat = due["seat"]
            move = engine.timeout_move(table.state, seat)
            # A system step is never applied before it is due (Lembar refuses to close a catch window
            # early); the timer's clock may read a millisecond short of the deadline that fired.
            at = max(now_ms(), due_at) if seat is None else now_ms()
            events += _apply(table, engine, seat, move, at)
            if seat is not None and not _is_bot_seat(table, seat):
                timed_out.add(seat)  # a bot's timeout is the platform's doing, never counted against it
            follow = engine.deadline(table.state)
            if not follow or follow.get("limit_ms") != 0 or follow.get("seat") != seat:
                break
        for number in timed_out:
            # A seat removed by this very timeout (Lembar's third) counts it too: one number everywhere.
            table.unsaved_log.append(rows.seat_timeout_statement(table, number))
            for entry in table.seating:
                if entry["seat"] == number and entry["status"] in (SeatStatus.SEATED, SeatStatus.REMOVED):
                    entry["timeouts"] += 1
        _after_move(table, engine, events)
        return True


def _at_rest(state: dict, engine) -> dict:
    """The state as the row keeps it: a running game's without its seed (sealed in ``seed_sealed``, opened
    for each step), an ended one's with it (revealed: views and proofs show it). ``state`` is a fresh dict."""
    if not engine.is_over(state):
        state.pop("seed", None)
    return state


def _play_unlocked(read: Table, *, seat_number: int, move: dict, expected_version: int, user_id: int | None,
                   at: int) -> Table | None:
    """The move computed from ``read`` without the row lock and written in one statement that applies only
    if the row, its room and the account are still as read (``rows.write_step_if_unchanged``): one round
    trip instead of two, no lock held while the engine runs. The table as written, or None (nothing
    written) whenever the locked
    path must decide: the row changed, a check fails (its error carries the current version), or the
    step ends the game, settles a hand's money, removes a seat or clears a timeout count."""
    if read.version != expected_version or read.status != TableStatus.RUNNING or not rows.unlocked_writes():
        return None
    entry = selectors.seating_entry(table=read, seat_number=seat_number)
    if entry is None or entry["timeouts"] or (user_id is not None and entry["user_id"] != user_id):
        return None
    table = copy.copy(read)  # the step writes to this one; ``read`` keeps what the row must still hold
    table.seating = copy_json(read.seating)
    engine = get_engine(table.game)
    try:
        events, moves, numbered = _step(table, engine, seat_number, move, at)
    except TableError:
        return None
    if engine.is_over(table.state) or any(e.get("type") in _SETTLING_EVENTS for e in events):
        return None
    _set_deadline(table, engine)
    if not rows.write_step_if_unchanged(read, table, moves, numbered, actor_id=user_id):
        return None
    # Written and committed (one statement): the announcements go now.
    _after_commit_bots(table, engine)
    _after_commit_broadcast(table, events)
    return table


_SETTLING_EVENTS = ("hand_over", "removed")  # _apply's side effects: money and seats, under the lock only


def _step(table: Table, engine, seat: int | None, move: dict,
          at: int) -> tuple[list[dict], list[dict], list[tuple[int, dict]]]:
    """The step on ``table`` in memory (state, bank, version, event numbers): its events, the move-log
    entries it appended and the events with their numbers. No query."""
    # Time never runs backwards (the engines refuse an earlier now_ms): a clock a little behind the
    # one that made the previous step (another host, a clock step) is taken as that step's time.
    last = table.state.get("last_move_ms") if isinstance(table.state, dict) else None
    if isinstance(last, int) and not isinstance(last, bool) and at < last:
        at = last
    before = engine.deadline(table.state)  # whose clock ran: charged to its bank below
    try:
        state, events = engine.apply(seeds.playable(table), seat, move, now_ms=at)
    except IllegalMove as exc:
        raise TableError(exc.code, exc.message) from exc
    # The log entries this step appended go to their own rows; the row keeps a state without them.
    table.state = _at_rest({**state, "moves": []}, engine)
    _charge_bank(table, engine, before, move, at)
    # The protocol's change counter: +1 per applied step. Not the engine's move count, which numbers
    # only moves (closing a Lembar catch window is a step the clients must see, but not a move).
    table.version += 1
    numbered = []
    for event in events:
        table.last_event_seq += 1
        numbered.append((table.last_event_seq, event))
    return events, state["moves"], numbered


def _apply(table: Table, engine, seat: int | None, move: dict, at: int) -> list[dict]:
    """The step under the row lock, with what it settles (money, seats)."""
    events, moves, numbered = _step(table, engine, seat, move, at)
    # Written with the table's update in _after_move (one round trip); dropped with the transaction
    # if anything in between fails.
    table.unsaved_log = [*getattr(table, "unsaved_log", []), *rows.log_statements(table, moves, numbered)]
    for event in events:
        if event.get("type") == "removed" and isinstance(event.get("seat"), int):
            _mark_out(table, event["seat"], SeatStatus.REMOVED if event.get("reason") != "left" else SeatStatus.LEFT)
        elif event.get("type") == "hand_over":
            table_money.on_hand_over(table=table, event=event)
    return events


def _mark_out(table: Table, number: int, status: str) -> None:
    seat = table.seats.filter(number=number, status=SeatStatus.SEATED).first()
    if seat is not None:
        seat.status = status
        seat.left_at = timezone.now()
        seat.save(update_fields=["status", "left_at"])
        table_money.on_forfeit(table=table, seat=seat)
        _refresh_seating(table)


def _after_move(table: Table, engine, events: list[dict], *, commit: bool = False) -> None:
    """Write the step and register its announcements. ``commit``: the caller's transaction ends with
    this step's writes (``rows.execute`` may then send COMMIT with them, after the on-commit hooks
    are registered); a finished game still settles first, in the same transaction."""
    log, table.unsaved_log = getattr(table, "unsaved_log", []), []
    if engine.is_over(table.state):
        rows.execute(log)
        _finish_locked(table, engine)
        _after_commit_broadcast(table, events)
        return
    _set_deadline(table, engine)
    _after_commit_bots(table, engine)
    _after_commit_broadcast(table, events)
    rows.execute([*log, rows.update_statement(table, list(rows.STEP_FIELDS)), rows.deadline_statement(table)],
                 commit=commit)


def _leave_running(table: Table, seat: Seat) -> None:
    engine = get_engine(table.game)
    events = _apply(table, engine, seat.number, {"type": "leave"}, now_ms())
    _mark_out(table, seat.number, SeatStatus.LEFT)
    _after_move(table, engine, events)
    if table.status == TableStatus.RUNNING and not any(
            e["status"] == SeatStatus.SEATED and not e["bot"] for e in table.seating):
        _stop_locked(table, StopReason.DESERTED)


def table_announce(*, table_id: int) -> None:
    """Broadcast the table as it is now and queue its bots' turns (both version-checked downstream):
    for a move whose commit went through although its connection broke before the reply, so its own
    after-commit announcements were dropped with the attempt."""
    table = Table.objects.select_related("room", "host").filter(pk=table_id).first()
    if table is None:
        return
    # Outside a transaction the after-commit hooks run at once.
    if table.status == TableStatus.RUNNING:
        _after_commit_bots(table, get_engine(table.game))
    _after_commit_broadcast(table, [])


# ----- bots ----------------------------------------------------------------------------

def _after_commit_bots(table: Table, engine) -> None:
    """Queue a turn for every bot seat that may act now (after commit)."""
    if table.status != TableStatus.RUNNING:
        return
    acting = set(engine.to_act(table.state))
    bot_seats = [e["seat"] for e in table.seating
                 if e["bot"] and e["status"] == SeatStatus.SEATED and e["seat"] in acting]
    if not bot_seats:
        return
    table_id, version = table.pk, table.version

    def enqueue() -> None:
        for number in bot_seats:
            signals.bot_turn_due.send(sender=Table, table_id=table_id, seat=number, version=version)

    after_commit(enqueue)
