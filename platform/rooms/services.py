"""Table lifecycle and the move pipeline: validate and lock, then mutate, events on commit.

Every function that changes a table takes its row lock (``select_for_update``) first, so
there is exactly one writer per table; money hooks (``wallets.table_money``) run inside the
same transaction; broadcasts and task enqueues are registered with ``transaction.on_commit``.
"""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from gameworkers.engines import IllegalMove, fairness, get_engine
from rooms import rows, selectors
from rooms.errors import TableError
from rooms.models import (
    ENDED_STATUSES,
    Room,
    Seat,
    SeatStatus,
    StakeKind,
    StopReason,
    Table,
    TableEvent,
    TableStatus,
)
from wallets import table_money
from wallets.errors import WalletError

MAX_AUTO_STEPS = 50  # bound on automatic moves applied in one deadline firing
CLOCK_SLACK_MS = 50  # clocks of the timer host and this one may differ by a little


def now_ms() -> int:
    return int(time.time() * 1000)


def _ms_to_datetime(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def _lock(table_id: int, *, actor_id: int | None = None) -> Table:
    try:
        table = rows.lock_table(int(table_id), actor_id=actor_id) if not isinstance(table_id, bool) else None
    except (ValueError, TypeError, OverflowError):
        table = None
    if table is None:
        raise TableError("no_such_table", "There is no such table.", status=404)
    return table


def engine_options(room: Room) -> dict:
    """The engine options a table of this room runs with (variants plus stake where the engine needs it)."""
    options = dict(room.options or {})
    if room.game == "otuzbir":
        options.setdefault("ante", room.stake if room.stake_kind == StakeKind.ANTE else 1)
        options.setdefault("rake_bps", room.rake_bps if room.stake_kind == StakeKind.ANTE else 0)
    return options


def _record(table: Table, kind: str, payload: dict) -> TableEvent:
    """Append one event; the caller holds the row lock and saves ``last_event_seq`` with the table."""
    table.last_event_seq += 1
    Table.objects.filter(pk=table.pk).update(last_event_seq=table.last_event_seq)
    return TableEvent.objects.create(table=table, seq=table.last_event_seq, kind=kind, payload=payload,
                                     version=table.version)




_TABLE_ATTNAMES = [f.attname for f in Table._meta.concrete_fields]


def _after_commit_broadcast(table: Table, events: list[dict], *, seats_changed: bool = False) -> None:
    # The row as of this step, for the broadcast after commit (positional: Model.__init__'s fast path).
    snapshot = Table.from_db(table._state.db, _TABLE_ATTNAMES, [getattr(table, name) for name in _TABLE_ATTNAMES])
    snapshot.room = table.room
    host = selectors.host_name(table)

    def send() -> None:
        from rooms import broadcast

        broadcast.table_changed(snapshot, events=events, seats_changed=seats_changed, host=host)

    # robust: a failing broadcast or task enqueue is logged; it must not fail a move that committed.
    transaction.on_commit(send, robust=True)


def _refresh_seating(table: Table) -> None:
    """Recompute ``table.seating`` from the seat rows (the caller holds the row lock and saves the row)."""
    table.seating = [_seating_entry(s) for s in
                     table.seats.exclude(status=SeatStatus.STOOD).select_related("user").order_by("number")]


def _seating_entry(seat: Seat) -> dict:
    user = seat.user
    return {"seat": seat.number, "user_id": user.pk, "player": user.public_name, "username": user.username,
            "bot": user.is_bot, "style": user.bot_style if user.is_bot else "", "status": seat.status,
            "timeouts": seat.consecutive_timeouts}


# ----- open, sit, stand ----------------------------------------------------------------

def table_open(*, room: Room, host=None, private: bool = False, seat_count: int | None = None,
               options: dict | None = None) -> Table:
    """A new table: a fresh secret seed and its public commitment, before anyone sits.

    ``options`` (e.g. a tournament's stacks, ante schedule, hand offset and ebe) are merged over
    ``engine_options(room)``; the engine validates them when the table starts.
    """
    if options is not None and not isinstance(options, dict):
        raise TableError("bad_options", "Table options must be an object.")
    if "rules" in (options or {}) or "rules" in (room.options or {}):
        # New tables play the current rules revision (docs/rules/*.md, "Rules revisions").
        raise TableError("bad_options", "The rules revision cannot be chosen for a new table.")
    if not room.is_open:
        raise TableError("room_closed", "This room is closed.")
    count = seat_count or room.seats
    if not room.min_seats <= count <= room.seats:
        raise TableError("bad_seat_count", "That many seats is not allowed in this room.")
    seed = fairness.new_seed()
    with transaction.atomic():
        table = Table.objects.create(
            room=room, seed_hex=seed.hex(), commitment=fairness.commitment(seed),
            committed_at=timezone.now(), options={**engine_options(room), **(options or {})}, host=host,
            is_private=private, invite_code=secrets.token_urlsafe(6) if private else "",
            seat_count=count,
        )
        _record(table, "opened", {"commitment": table.commitment})
    return table


def table_sit(*, table_id: int, user, seat_number: int | None = None, invite_code: str | None = None) -> Seat:
    """Take a seat at an open table (the first free one when ``seat_number`` is None).

    A private table seats its host, staff, bots (only its host can add them) and holders of its invite code.
    """
    with transaction.atomic():
        table = _lock(table_id)
        seat = _sit_locked(table, user, seat_number=seat_number, invite_code=invite_code)
        _save_seating(table)
        _after_commit_broadcast(table, [{"type": "sat", "seat": seat.number}], seats_changed=True)
        full = len(table.seating) == table.seat_count
    if full:
        table_start(table_id=table_id)
    return seat


def table_open_seated(*, room: Room, players: list, seat_count: int | None = None,
                      options: dict | None = None) -> Table:
    """Open a table and seat ``players`` in seat order in one transaction, with the same checks and
    money hooks as ``table_sit`` and one seating broadcast; it starts when every seat is taken. For
    matchmaking and tournaments, which seat whole tables at once. A refusal that concerns one
    player names them in ``exc.player``; nothing is kept (the transaction rolls back).
    """
    with transaction.atomic():
        opened = table_open(room=room, seat_count=seat_count, options=options)
        table = _lock(opened.pk)
        for user in players:
            try:
                _sit_locked(table, user, seat_number=None)
            except TableError as exc:
                exc.player = user
                raise
        _save_seating(table)
        _after_commit_broadcast(table, [{"type": "sat", "seat": e["seat"]} for e in table.seating],
                                seats_changed=True)
        if len(table.seating) == table.seat_count:
            table = table_start(table_id=table.pk)
    return table


def _sit_locked(table: Table, user, *, seat_number: int | None, invite_code: str | None = None) -> Seat:
    """Seat ``user`` at a locked open table; the caller saves ``table.seating`` (``_save_seating``)."""
    if (table.is_private and not user.is_bot and not user.is_staff and table.host_id != user.pk
            and (not invite_code or invite_code != table.invite_code)):
        raise TableError("invite_required", "This private table needs its invite code.", status=403)
    if table.status != TableStatus.OPEN:
        raise TableError("table_not_open", "This table has already started or ended.", status=409)
    if table.room.bots_only and not user.is_bot and any(
            not e["bot"] and e["status"] == SeatStatus.SEATED for e in table.seating):
        raise TableError("bots_only", "This room seats one player against bots.", status=409)
    taken = {e["seat"] for e in table.seating}
    if any(e["user_id"] == user.pk for e in table.seating):
        raise TableError("already_seated", "You are already seated at this table.", status=409)
    if seat_number is None:
        free = [n for n in range(table.seat_count) if n not in taken]
        if not free:
            raise TableError("table_full", "Every seat is taken.", status=409)
        seat_number = free[0]
    elif isinstance(seat_number, bool) or not isinstance(seat_number, int) or not 0 <= seat_number < table.seat_count:
        raise TableError("bad_seat", "There is no such seat.")
    elif seat_number in taken:
        raise TableError("seat_taken", "That seat is taken.", status=409)
    try:
        with transaction.atomic():
            seat = Seat.objects.create(table=table, number=seat_number, user=user,
                                       bot_style=user.bot_style if user.is_bot else "")
    except IntegrityError:
        raise TableError("seat_taken", "That seat is taken.", status=409) from None
    try:
        table_money.on_sit(table=table, seat=seat)
    except WalletError as exc:
        raise TableError(exc.code, exc.message, status=402) from exc
    table.seating = sorted([*table.seating, _seating_entry(seat)], key=lambda e: e["seat"])
    table.version += 1  # every change a viewer can see is numbered (docs/protocol.md)
    table.last_event_seq += 1
    TableEvent.objects.create(table=table, seq=table.last_event_seq, kind="sat", version=table.version,
                              payload={"seat": seat_number, "player": user.public_name, "bot": user.is_bot})
    return seat


def _save_seating(table: Table) -> None:
    Table.objects.filter(pk=table.pk).update(seating=table.seating, last_event_seq=table.last_event_seq,
                                             version=table.version)


def table_stand(*, table_id: int, user) -> None:
    """Stand up: before the start the entry comes back; after the start this is leaving."""
    with transaction.atomic():
        table = _lock(table_id)
        seat = table.seats.filter(user=user, status=SeatStatus.SEATED).first()
        if seat is None:
            raise TableError("not_seated", "You are not seated at this table.", status=409)
        if table.status == TableStatus.RUNNING:
            _leave_running(table, seat)
            return
        if table.status != TableStatus.OPEN:
            raise TableError("table_ended", "This table has ended.", status=409)
        seat.status = SeatStatus.STOOD
        seat.left_at = timezone.now()
        seat.save(update_fields=["status", "left_at"])
        table_money.on_stand(table=table, seat=seat)
        _refresh_seating(table)
        table.version += 1
        _record(table, "stood", {"seat": seat.number})
        _save_seating(table)
        _after_commit_broadcast(table, [{"type": "stood", "seat": seat.number}], seats_changed=True)
        humans = table.seats.filter(status=SeatStatus.SEATED, user__is_bot=False).exists()
        if not humans and table.seats.filter(status=SeatStatus.SEATED).exists():
            # Only bots left at a table that never started: close it, everyone refunded.
            _stop_locked(table, StopReason.NEVER_STARTED)


# ----- start --------------------------------------------------------------------------

def table_start(*, table_id: int, by=None) -> Table:
    """Start when every seat is taken, or when the host starts once the minimum is seated."""
    with transaction.atomic():
        table = _lock(table_id)
        if table.status != TableStatus.OPEN:
            raise TableError("table_not_open", "This table has already started or ended.", status=409)
        seats = list(table.seats.filter(status=SeatStatus.SEATED).select_related("user").order_by("number"))
        if len(seats) < table.seat_count:
            if by is None or (by != table.host and not by.is_staff):
                raise TableError("not_host", "Only the host can start before every seat is taken.", status=403)
            if len(seats) < table.room.min_seats:
                raise TableError("not_enough_players", "Not enough players are seated to start.", status=409)
        engine = get_engine(table.game)
        # Engine seats are the seated players in seat order (fairness.md): close the gaps.
        for index, seat in enumerate(seats):
            if seat.number != index:
                seat.number = 100 + index  # two-step renumbering keeps the unique constraint happy
                seat.save(update_fields=["number"])
        for index, seat in enumerate(seats):
            if seat.number != index:
                seat.number = index
                seat.save(update_fields=["number"])
        _refresh_seating(table)
        try:
            state = engine.new(bytes.fromhex(table.seed_hex), len(seats), table.options)
        except ValueError as exc:
            raise TableError("bad_options", str(exc)) from exc
        table.state = state
        table.status = TableStatus.RUNNING
        table.started_at = timezone.now()
        # One counter for the table's whole life: the start is one more change (never back to 0, so a
        # socket that saw the seating before the start still sees a newer version).
        table.version += 1
        _set_deadline(table, engine)
        table.save()
        table_money.on_start(table=table)
        _record(table, "started", {"seats": len(seats)})
        _after_commit_broadcast(table, [{"type": "started"}], seats_changed=True)
        _after_commit_bots(table, engine)
    return table


# ----- moves ----------------------------------------------------------------------------

def table_play(*, table_id: int, seat_number: int, move: dict, expected_version: int,
               user_id: int | None = None, at_ms: int | None = None) -> int:
    """Apply one move for a seat. Stale or duplicate versions are refused; returns the new version.

    ``user_id``, when given, must be the seat's occupant (a socket acts only for its own user).
    """
    if isinstance(move, dict) and "auto" in move:
        raise TableError("malformed", "Automatic moves are the server's to make.")
    with transaction.atomic():
        # The acting user's account is read with the lock (one round trip): a ban takes effect on the
        # next move even when the message closing their sockets was lost.
        table = _lock(table_id, actor_id=user_id)
        current = table.version
        if table.actor_active is False:
            raise TableError("account_inactive", "This account has been deactivated.", status=403, version=current)
        if table.status != TableStatus.RUNNING:
            raise TableError("table_not_running", "This table is not running.", status=409, version=current)
        if expected_version != current:
            raise TableError("stale_version", "The table moved on; here is the current state.", status=409,
                             version=current)
        entry = selectors.seating_entry(table=table, seat_number=seat_number)
        if entry is None or (user_id is not None and entry["user_id"] != user_id):
            raise TableError("not_seated", "That seat is not in the game.", status=403, version=current)
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
        # How late the automatic move is, for the timer benchmarks and the fault harness.
        late_ms = now_ms() - int(table.deadline_at.timestamp() * 1000)
        _record(table, "timer", {"seat": table.deadline_seat, "late_ms": late_ms})
        events: list[dict] = []
        timed_out: set[int] = set()
        for _ in range(MAX_AUTO_STEPS):
            due = engine.deadline(table.state)
            if due is None or engine.is_over(table.state):
                break
            due_at = _due_ms(table, due)
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
            Seat.objects.filter(table=table, number=number, status__in=[SeatStatus.SEATED, SeatStatus.REMOVED]).update(
                consecutive_timeouts=F("consecutive_timeouts") + 1)
            for entry in table.seating:
                if entry["seat"] == number and entry["status"] in (SeatStatus.SEATED, SeatStatus.REMOVED):
                    entry["timeouts"] += 1
        _after_move(table, engine, events)
        return True


def _apply(table: Table, engine, seat: int | None, move: dict, at: int) -> list[dict]:
    # Time never runs backwards (the engines refuse an earlier now_ms): a clock a little behind the
    # one that made the previous step (another host, a clock step) is taken as that step's time.
    last = table.state.get("last_move_ms") if isinstance(table.state, dict) else None
    if isinstance(last, int) and not isinstance(last, bool) and at < last:
        at = last
    try:
        state, events = engine.apply(table.state, seat, move, now_ms=at)
    except IllegalMove as exc:
        raise TableError(exc.code, exc.message) from exc
    # The log entries this step appended go to their own rows; the row keeps a state without them.
    table.state = {**state, "moves": []}
    # The protocol's change counter: +1 per applied step. Not the engine's move count, which numbers
    # only moves (closing a Lembar catch window is a step the clients must see, but not a move).
    table.version += 1
    numbered = []
    for event in events:
        table.last_event_seq += 1
        numbered.append((table.last_event_seq, event))
    # Written with the table's update in _after_move (one round trip); dropped with the transaction
    # if anything in between fails.
    table.unsaved_log = [*getattr(table, "unsaved_log", []), *rows.log_statements(table, state["moves"], numbered)]
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
    rows.execute([*log, rows.update_statement(table, [
        "state", "version", "deadline_at", "deadline_seat", "deadline_enqueued_at", "last_event_seq", "seating"])],
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


# ----- deadlines -------------------------------------------------------------------------

def _is_bot_seat(table: Table, seat: int | None) -> bool:
    return seat is not None and any(e["seat"] == seat and e["bot"] and e["status"] == SeatStatus.SEATED
                                    for e in table.seating)


def _due_ms(table: Table, due: dict) -> int:
    since = due.get("since_ms")
    if since is None:
        since = int(table.started_at.timestamp() * 1000)
    limit = due.get("limit_ms")
    if limit is None:
        limit = table.room.turn_seconds * 1000
    return since + limit


def _set_deadline(table: Table, engine) -> None:
    due = engine.deadline(table.state) if table.state is not None else None
    if due is None or engine.is_over(table.state):
        table.deadline_at = None
        table.deadline_seat = None
    else:
        table.deadline_at = _ms_to_datetime(_due_ms(table, due))
        table.deadline_seat = due.get("seat")
        if _is_bot_seat(table, table.deadline_seat):
            # A bot's turn is queued as a task; one lost with a killed worker would otherwise wait for
            # the whole turn timer and end in the bot's automatic move. The timer looks again after
            # BOT_RESCUE_S and has the bot play (gameworkers.tasks.fire_deadline).
            rescue = timezone.now() + timedelta(seconds=settings.BOT_RESCUE_S)
            table.deadline_at = min(table.deadline_at, rescue)
    table.deadline_enqueued_at = None


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
        from gameworkers import tasks

        for number in bot_seats:
            tasks.schedule_bot_turn(table_id, number, version)

    transaction.on_commit(enqueue, robust=True)


# ----- finish and stop ---------------------------------------------------------------------

def _finish_locked(table: Table, engine) -> None:
    result = engine.result(table.state)
    table.status = TableStatus.FINISHED
    table.ended_at = timezone.now()
    table.result = result
    table.deadline_at = None
    table.deadline_seat = None
    table.save()
    table_money.on_finish(table=table, result=result)
    _record(table, "finished", {"result": result, "seed": table.seed_hex})
    transaction.on_commit(lambda: _notify_finished(table.pk))


def _notify_finished(table_id: int) -> None:
    from rooms import signals

    signals.table_finished.send(sender=Table, table_id=table_id)


def table_stop(*, table_id: int, reason: str, by=None) -> Table:
    """Stop a table before it finishes (host, staff, room closed, deserted)."""
    if reason not in StopReason.values:
        raise TableError("bad_reason", "Unknown stop reason.")
    with transaction.atomic():
        table = _lock(table_id)
        if table.status in ENDED_STATUSES:
            raise TableError("table_ended", "This table has already ended.", status=409)
        if reason == StopReason.HOST and (by is None or by != table.host):
            raise TableError("not_host", "Only the host can stop this table.", status=403)
        if reason == StopReason.HOST and table.status == TableStatus.RUNNING and table.room.stake:
            # economy.md [host stop]: otherwise a host could look at the cards and take the stake back.
            raise TableError("host_stop_after_start",
                             "A table with a stake cannot be stopped by its host once it has started; "
                             "you may leave it (your entry is forfeited).", status=409)
        if reason == StopReason.STAFF and (by is None or not by.is_staff):
            raise TableError("not_staff", "Only staff can stop tables.", status=403)
        _stop_locked(table, reason)
    return table


def _stop_locked(table: Table, reason: str) -> None:
    table.version += 1
    table.status = TableStatus.STOPPED
    table.stop_reason = reason
    table.ended_at = timezone.now()
    table.deadline_at = None
    table.deadline_seat = None
    table.save()
    table_money.on_stop(table=table)
    _record(table, "stopped", {"reason": reason, "seed": table.seed_hex})
    _after_commit_broadcast(table, [{"type": "stopped", "reason": reason}], seats_changed=True)


def room_close(*, room: Room) -> int:
    """Close a room: stop every table that has not ended; returns how many were stopped."""
    room.is_open = False
    room.save(update_fields=["is_open"])
    stopped = 0
    for table_id in Table.objects.filter(room=room).exclude(status__in=ENDED_STATUSES).values_list("pk", flat=True):
        try:
            table_stop(table_id=table_id, reason=StopReason.ROOM_CLOSED)
            stopped += 1
        except TableError:
            continue
    return stopped


def due_tables(*, now: datetime | None = None, retry_after_s: float = 3.0, limit: int = 500,
               reclaim: bool = True) -> list[tuple[int, int]]:
    """Claim due deadlines for the timer: (table id, version) pairs not enqueued in the last seconds.

    The claim is a conditional UPDATE, so two timer processes never both enqueue the same
    deadline within ``retry_after_s``; a deadline whose task was lost is claimed again after it
    (only when ``reclaim``: the caller turns it off while the workers have a backlog).
    """
    now = now or timezone.now()
    stale = now - timedelta(seconds=retry_after_s)
    unclaimed = Q(deadline_enqueued_at__isnull=True)
    if reclaim:
        unclaimed |= Q(deadline_enqueued_at__lt=stale)
    candidates = list(
        Table.objects.filter(status=TableStatus.RUNNING, deadline_at__lte=now).filter(unclaimed)
        .order_by("deadline_at").values_list("pk", "version")[:limit]
    )
    claimed = []
    for pk, version in candidates:
        won = Table.objects.filter(pk=pk, version=version, status=TableStatus.RUNNING).filter(
            unclaimed).update(deadline_enqueued_at=now)
        if won:
            claimed.append((pk, version))
    return claimed


# ----- bots at a table ---------------------------------------------------------------------

def table_add_bot(*, table_id: int, by, style: str | None = None) -> Seat:
    """The host (or staff) seats a bot in the first free seat; ``style`` picks a bot of that style."""
    from accounts.models import User

    table = Table.objects.select_related("room").get(pk=table_id)
    if by is None or (by != table.host and not by.is_staff):
        raise TableError("not_host", "Only the host can add bots.", status=403)
    seated = table.seats.exclude(status=SeatStatus.STOOD).values_list("user_id", flat=True)
    bots = User.objects.filter(is_bot=True, is_active=True).exclude(pk__in=list(seated)).order_by("pk")
    if style:
        bots = bots.filter(bot_style=style)
    bot = bots.first()
    if bot is None:
        raise TableError("no_bot_available", "No bot of that style is free for this table.", status=409)
    return table_sit(table_id=table_id, user=bot)


def play_with_bots(*, room: Room, user) -> Table:
    """Open a table hosted by ``user``, seat them, and fill every other seat with bots (it starts when full)."""
    table = table_open(room=room, host=user)
    table_sit(table_id=table.pk, user=user)
    for _ in range(table.seat_count - 1):
        table_add_bot(table_id=table.pk, by=user)
    table.refresh_from_db()
    return table
