"""Table lifecycle and the move pipeline: validate and lock, then mutate, events on commit.

Every function that changes a table takes its row lock (``select_for_update``) first, so
there is exactly one writer per table; money hooks (``wallets.table_money``) run inside the
same transaction; broadcasts and task enqueues are registered with ``transaction.on_commit``.
"""

from __future__ import annotations

import logging
import secrets
import time
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from gameworkers.engines import IllegalMove, fairness, get_engine
from live import rows
from rooms import seeds, selectors, signals
from rooms.errors import TableError
from rooms.models import (
    ENDED_STATUSES,
    Room,
    Seat,
    SeatStatus,
    StopReason,
    Table,
    TableEvent,
    TableStatus,
)
from wallets import table_money
from wallets.errors import WalletError

log = logging.getLogger(__name__)

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
    engine = get_engine(room.game)
    return {**engine.stake_options(stake_kind=room.stake_kind, stake=room.stake, rake_bps=room.rake_bps),
            **(room.options or {})}


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
    """Recompute ``table.seating`` from the seat rows (the caller holds the row lock and saves the row).
    The clock's keys (time bank, grace) live only in the seating: they are carried over."""
    clock = {e["user_id"]: {k: e[k] for k in CLOCK_KEYS if k in e} for e in table.seating}
    table.seating = [{**_seating_entry(s), **clock.get(s.user_id, {})} for s in
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
            room=room, seed_sealed=seeds.seal(seed), commitment=fairness.commitment(seed),
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
            state = engine.new(table.seed, len(seats), table.options)
        except ValueError as exc:
            raise TableError("bad_options", str(exc)) from exc
        table.state = _at_rest(state, engine)
        table.status = TableStatus.RUNNING
        table.started_at = timezone.now()
        # One counter for the table's whole life: the start is one more change (never back to 0, so a
        # socket that saw the seating before the start still sees a newer version).
        table.version += 1
        for entry in table.seating:  # each player's time bank for the whole game; bots have none
            entry.update(bank_ms=0 if entry["bot"] else table.room.time_bank_seconds * 1000, grace=None)
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
        elif _grace_if_dropped(table, engine):
            return False  # the player's connection is down: the grace first, once per turn
        # How late the automatic move is, for the timer benchmarks and the fault harness.
        late_ms = now_ms() - int(table.deadline_at.timestamp() * 1000)
        _record(table, "timer", {"seat": table.deadline_seat, "late_ms": late_ms})
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
            Seat.objects.filter(table=table, number=number, status__in=[SeatStatus.SEATED, SeatStatus.REMOVED]).update(
                consecutive_timeouts=F("consecutive_timeouts") + 1)
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


def _apply(table: Table, engine, seat: int | None, move: dict, at: int) -> list[dict]:
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


def _turn_since(table: Table, due: dict) -> int:
    """When the step's timer started (ms); with the seat, it names a turn (the bank's grace is per turn)."""
    since = due.get("since_ms")
    return int(table.started_at.timestamp() * 1000) if since is None else since


def _due_ms(table: Table, due: dict) -> int:
    """When the spec's timer of the step runs out (the engines' timers are the rules)."""
    limit = due.get("limit_ms")
    if limit is None:
        limit = table.room.turn_seconds * 1000
    return _turn_since(table, due) + limit


# ----- the clock beyond the spec's timer: time bank and reconnect grace ----------------------
# docs/rules/*.md, "Time bank and reconnecting". The platform, not the engine, gives a seated human
# more time: the deadline is the spec's timer plus what is left of the seat's bank (plus the grace, when
# granted for this turn). Both live in the seat's ``Table.seating`` entry, which every move already
# writes (no query of their own): ``bank_ms`` (what is left of the bank, charged when a turn ends) and
# ``grace`` ([turn start ms, ms granted] or None).

CLOCK_KEYS = ("bank_ms", "grace")


def _clock_entry(table: Table, due: dict | None) -> dict | None:
    """The seating entry of the seated human whose own time runs in ``due``: not a system step, a bot,
    or a step due at once (``limit_ms`` 0: the rest of an automatic turn, a seat that left)."""
    if due is None or due.get("seat") is None or due.get("limit_ms") == 0:
        return None
    entry = selectors.seating_entry(table=table, seat_number=due["seat"])
    return entry if entry is not None and not entry["bot"] else None


def _grace_ms(entry: dict, since: int) -> int:
    grace = entry.get("grace")
    return grace[1] if isinstance(grace, list) and len(grace) == 2 and grace[0] == since else 0


def _overtime_ms(table: Table, due: dict | None) -> int:
    """How far past the spec's timer the step's automatic move waits: the seat's bank and grace."""
    entry = _clock_entry(table, due)
    if entry is None:
        return 0
    return entry.get("bank_ms", 0) + _grace_ms(entry, _turn_since(table, due))


def _charge_bank(table: Table, engine, before: dict | None, move: dict, at: int) -> None:
    """After a step: if it ended the turn of the seat whose clock ran (``before``), take the time that
    seat used beyond its timer (and its grace) from its bank; an automatic move spends what was left.
    A turn that goes on (a Lembar draw keeps the turn's timer) is charged when it ends."""
    entry = _clock_entry(table, before)
    if entry is None:
        return
    since = _turn_since(table, before)
    bank = entry.get("bank_ms", 0)
    if isinstance(move, dict) and move.get("auto"):
        used = bank  # the seat's time ran out, bank and all
    else:
        after = None if engine.is_over(table.state) else engine.deadline(table.state)
        if (after is not None and after.get("seat") == before["seat"] and after.get("limit_ms") != 0
                and _turn_since(table, after) == since):
            return
        used = min(bank, max(0, at - _due_ms(table, before) - _grace_ms(entry, since)))
    if used or entry.get("grace") is not None:
        entry["bank_ms"] = bank - used
        entry["grace"] = None


def _grace_if_dropped(table: Table, engine) -> bool:
    """At the deadline of a seat whose player's connection is down (their socket dropped and has not come
    back): the grace instead of the automatic move, if not given this turn yet."""
    entry = _clock_entry(table, engine.deadline(table.state))
    if entry is None or selectors.presence(table_id=table.pk, user_id=entry["user_id"]) != selectors.DROPPED:
        return False
    return _grant_grace(table, engine)


def _grant_grace(table: Table, engine) -> bool:
    """RECONNECT_GRACE_S more for the seat whose own time runs, once per turn (the caller holds the lock).
    The version stays: nothing in the game changed, and a move in flight must not become stale. The
    deadline becomes timer + grace + bank, and ``_charge_bank`` takes only time beyond timer + grace: the
    grace counts as coming before the bank, so a player back within it keeps the bank it had."""
    grace_ms = int(settings.RECONNECT_GRACE_S * 1000)
    due = engine.deadline(table.state)
    entry = _clock_entry(table, due)
    if grace_ms <= 0 or entry is None:
        return False
    since = _turn_since(table, due)
    if _grace_ms(entry, since):
        return False
    entry["grace"] = [since, grace_ms]
    _set_deadline(table, engine)
    # In the table's event log (moderation, the fault harness); the players see the new deadline, and the
    # seat's "reconnecting…" from its presence.
    _record(table, "grace", {"seat": entry["seat"], "grace_ms": grace_ms})
    Table.objects.filter(pk=table.pk).update(seating=table.seating, deadline_at=table.deadline_at,
                                             deadline_enqueued_at=None)
    _after_commit_broadcast(table, [])
    return True


PRESENCE_KEEP_S = 6 * 3600  # how long a table remembers a user's sockets (a dropped one shows "reconnecting…")
CONNECTION_CHANGES = ("open", "alive", "close")


def table_connection(*, table_id: int, user_id: int, change: str) -> None:
    """A table socket of a seated user opened (``change`` "open"), said it is alive ("alive", every 20 s),
    or closed ("close"): counted in the cache (``selectors.presence``), where the timer looks when that
    seat's time runs out (the grace, ``table_fire_deadline``). When the user's last socket closes at a
    running table the others hear it (a ``presence`` frame: "reconnecting…"), and when one opens again
    too. A drop itself changes no deadline: a page reload must not buy time."""
    if change not in CONNECTION_CHANGES:
        raise TableError("bad_connection_change", f"A connection change is one of {', '.join(CONNECTION_CHANGES)}.")
    count_key, seen_key = selectors.presence_keys(table_id=table_id, user_id=user_id)
    now = now_ms()
    try:
        if change == "alive":
            cache.set(seen_key, now, PRESENCE_KEEP_S)
            cache.touch(count_key, PRESENCE_KEEP_S)
            return
        found = cache.get_many([count_key, seen_key])
        before = selectors.presence_state(found.get(count_key), found.get(seen_key), now_ms=now)
        if change == "open":
            cache.add(count_key, 0, PRESENCE_KEEP_S)
            count = _cache_add_to(count_key, 1)
            cache.set(seen_key, now, PRESENCE_KEEP_S)
            seen = now
        else:
            count, seen = _cache_add_to(count_key, -1), found.get(seen_key)
    except Exception:  # the cache is down: presence is a courtesy, never a reason to fail a socket
        return
    after = selectors.presence_state(count, seen, now_ms=now)
    if before is None or before == after:
        return  # nothing the others need to hear (a first connect is not a return)
    seating = Table.objects.filter(pk=table_id, status=TableStatus.RUNNING).values_list("seating", flat=True).first()
    seat = next((e["seat"] for e in seating or []
                 if e["user_id"] == user_id and e["status"] == SeatStatus.SEATED and not e["bot"]), None)
    if seat is None:
        return
    from rooms import broadcast

    try:
        broadcast.publish([(broadcast.all_group(table_id), {"type": "table.presence", "table": table_id,
                                                            "seat": seat, "connected": after == selectors.ONLINE})])
    except Exception:  # the layer is lossy by contract; a snapshot carries ``away`` again
        log.warning("presence of table %s not sent", table_id, exc_info=True)


def _cache_add_to(key: str, delta: int) -> int:
    """The count after an atomic increment (never below 0); a count that expired starts again."""
    try:
        count = cache.incr(key, delta)
    except ValueError:  # gone since it was read
        count = max(0, delta)
        cache.set(key, count, PRESENCE_KEEP_S)
        return count
    if count < 0:  # a close whose open was counted before the cache was emptied
        cache.set(key, 0, PRESENCE_KEEP_S)
        count = 0
    return count


def _set_deadline(table: Table, engine) -> None:
    due = engine.deadline(table.state) if table.state is not None else None
    if due is None or engine.is_over(table.state):
        table.deadline_at = None
        table.deadline_seat = None
    else:
        table.deadline_at = _ms_to_datetime(_due_ms(table, due) + _overtime_ms(table, due))
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
        for number in bot_seats:
            signals.bot_turn_due.send(sender=Table, table_id=table_id, seat=number, version=version)

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
