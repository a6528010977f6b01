"""Opening a table, sitting down and standing up, starting it; bots at a table."""

from __future__ import annotations

import secrets

from django.db import IntegrityError, transaction
from django.utils import timezone

from gameworkers.engines import fairness, get_engine
from rooms import seeds
from rooms.errors import TableError
from rooms.models import Room, Seat, SeatStatus, StopReason, Table, TableEvent, TableStatus
from rooms.services.base import _after_commit_broadcast, _lock, _record, engine_options
from rooms.services.clock import _save_deadline, _set_deadline
from rooms.services.ending import _stop_locked
from rooms.services.moves import _after_commit_bots, _at_rest, _leave_running
from rooms.services.seating import _refresh_seating, _save_seating, _seating_entry
from wallets import table_money
from wallets.errors import WalletError

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
        raise TableError("invite_required", "This private table needs its invite code.")
    if table.status != TableStatus.OPEN:
        raise TableError("table_not_open", "This table has already started or ended.")
    if table.room.bots_only and not user.is_bot and any(
            not e["bot"] and e["status"] == SeatStatus.SEATED for e in table.seating):
        raise TableError("bots_only", "This room seats one player against bots.")
    taken = {e["seat"] for e in table.seating}
    if any(e["user_id"] == user.pk for e in table.seating):
        raise TableError("already_seated", "You are already seated at this table.")
    if seat_number is None:
        free = [n for n in range(table.seat_count) if n not in taken]
        if not free:
            raise TableError("table_full", "Every seat is taken.")
        seat_number = free[0]
    elif isinstance(seat_number, bool) or not isinstance(seat_number, int) or not 0 <= seat_number < table.seat_count:
        raise TableError("bad_seat", "There is no such seat.")
    elif seat_number in taken:
        raise TableError("seat_taken", "That seat is taken.")
    try:
        with transaction.atomic():
            seat = Seat.objects.create(table=table, number=seat_number, user=user,
                                       bot_style=user.bot_style if user.is_bot else "")
    except IntegrityError:
        raise TableError("seat_taken", "That seat is taken.") from None
    try:
        table_money.on_sit(table=table, seat=seat)
    except WalletError as exc:
        raise TableError(exc.code, exc.message, details=exc.details) from exc
    table.seating = sorted([*table.seating, _seating_entry(seat)], key=lambda e: e["seat"])
    table.version += 1  # every change a viewer can see is numbered (docs/protocol.md)
    table.last_event_seq += 1
    TableEvent.objects.create(table=table, seq=table.last_event_seq, kind="sat", version=table.version,
                              payload={"seat": seat_number, "player": user.public_name, "bot": user.is_bot})
    return seat


def table_stand(*, table_id: int, user) -> None:
    """Stand up: before the start the entry comes back; after the start this is leaving."""
    with transaction.atomic():
        table = _lock(table_id)
        seat = table.seats.filter(user=user, status=SeatStatus.SEATED).first()
        if seat is None:
            raise TableError("not_seated", "You are not seated at this table.")
        if table.status == TableStatus.RUNNING:
            _leave_running(table, seat)
            return
        if table.status != TableStatus.OPEN:
            raise TableError("table_ended", "This table has ended.")
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
            raise TableError("table_not_open", "This table has already started or ended.")
        seats = list(table.seats.filter(status=SeatStatus.SEATED).select_related("user").order_by("number"))
        if len(seats) < table.seat_count:
            if by is None or (by != table.host and not by.is_staff):
                raise TableError("not_host", "Only the host can start before every seat is taken.")
            if len(seats) < table.room.min_seats:
                raise TableError("not_enough_players", "Not enough players are seated to start.")
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
        _save_deadline(table)
        table_money.on_start(table=table)
        _record(table, "started", {"seats": len(seats)})
        _after_commit_broadcast(table, [{"type": "started"}], seats_changed=True)
        _after_commit_bots(table, engine)
    return table


# ----- bots at a table ---------------------------------------------------------------------

def table_add_bot(*, table_id: int, by, style: str | None = None) -> Seat:
    """The host (or staff) seats a bot in the first free seat; ``style`` picks a bot of that style."""
    from accounts.models import User

    table = Table.objects.select_related("room").get(pk=table_id)
    if by is None or (by != table.host and not by.is_staff):
        raise TableError("not_host", "Only the host can add bots.")
    seated = table.seats.exclude(status=SeatStatus.STOOD).values_list("user_id", flat=True)
    bots = User.objects.filter(is_bot=True, is_active=True).exclude(pk__in=list(seated)).order_by("pk")
    if style:
        bots = bots.filter(bot_style=style)
    bot = bots.first()
    if bot is None:
        raise TableError("no_bot_available", "No bot of that style is free for this table.")
    return table_sit(table_id=table_id, user=bot)


def play_with_bots(*, room: Room, user) -> Table:
    """Open a table hosted by ``user``, seat them, and fill every other seat with bots (it starts when full)."""
    table = table_open(room=room, host=user)
    table_sit(table_id=table.pk, user=user)
    for _ in range(table.seat_count - 1):
        table_add_bot(table_id=table.pk, by=user)
    table.refresh_from_db()
    return table
