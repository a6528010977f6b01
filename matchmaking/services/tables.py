"""Play again (a finished table's players queued together as one party) and private tables."""

from __future__ import annotations

import logging
import re

from django.db import transaction
from django.utils import timezone

from matchmaking.errors import QueueError
from matchmaking.models import ACTIVE_STATUSES, QueueEntry
from matchmaking.services.queue import _already_queued, queue_join
from rooms import services as rooms_services
from rooms.errors import TableError
from rooms.models import Room, Seat, SeatStatus, StopReason, Table, TableStatus

log = logging.getLogger(__name__)


INVITE_CODE = re.compile(r"^[A-Za-z0-9_-]{1,16}$")


# ----- play again ------------------------------------------------------------------------------

def rematch(*, table_id: int, user) -> list[QueueEntry]:
    """Re-queue the finished table's human players together (one party the matcher seats together).

    Players who are already queued elsewhere or playing in this room are left out (they can
    join later); calling again (by anyone from that table) returns the party's entries.
    """
    table = Table.objects.select_related("room").filter(pk=table_id).first() if isinstance(table_id, int) else None
    if table is None:
        raise QueueError("no_such_table", "There is no such table.")
    if table.status != TableStatus.FINISHED:
        raise QueueError("table_not_finished", "Play again is offered once the game has finished.")
    players = [s.user for s in table.seats.exclude(status=SeatStatus.STOOD).select_related("user")
               .order_by("number") if not s.user.is_bot]
    if user not in players:
        raise QueueError("not_a_player", "Only the table's players can play again.")
    room = table.room
    party = f"rematch-{table.pk}"
    existing = QueueEntry.objects.filter(user=user, status__in=ACTIVE_STATUSES).first()
    if existing is not None:
        if existing.party == party:
            return list(QueueEntry.objects.filter(party=party, status__in=ACTIVE_STATUSES))
        raise _already_queued(existing, room)
    if room.bots_only:
        players, party = [user], ""
    created: list[QueueEntry] = []
    now = timezone.now()
    with transaction.atomic():
        for player in [user] + [p for p in players if p != user]:
            try:
                with transaction.atomic():
                    created.append(queue_join(room=room, user=player, party=party, now=now))
            except QueueError as exc:
                if player == user:
                    raise
                log.info("rematch %s: %s left out (%s)", table.pk, player.pk, exc.code)
    return created


# ----- private tables ------------------------------------------------------------------------------

def _table_error(exc: TableError) -> QueueError:
    return QueueError(exc.code, exc.message, details=exc.details)


def private_open(*, room: Room, host, seat_count: int | None = None) -> Table:
    """A private table with an invite code; the host sits down at once."""
    try:
        with transaction.atomic():
            table = rooms_services.table_open(room=room, host=host, private=True, seat_count=seat_count)
            rooms_services.table_sit(table_id=table.pk, user=host)
    except TableError as exc:
        raise _table_error(exc) from exc
    return table


def private_table(*, code: str) -> Table:
    if not isinstance(code, str) or not INVITE_CODE.match(code):
        raise QueueError("no_such_invite", "That invite code is not valid.")
    table = (Table.objects.select_related("room").filter(is_private=True, invite_code=code)
             .exclude(invite_code="").first())
    if table is None:
        raise QueueError("no_such_invite", "That invite code is not valid.")
    return table


def private_join(*, code: str, user) -> Seat:
    table = private_table(code=code)
    if table.status != TableStatus.OPEN:
        raise QueueError("table_not_open", "This table has already started or ended.")
    try:
        return rooms_services.table_sit(table_id=table.pk, user=user, invite_code=code)
    except TableError as exc:
        raise _table_error(exc) from exc


def _hosted(table_id: int, by) -> Table:
    table = Table.objects.select_related("room").filter(pk=table_id).first() if isinstance(table_id, int) else None
    if table is None:
        raise QueueError("no_such_table", "There is no such table.")
    if by is None or (table.host_id != by.pk and not by.is_staff):
        raise QueueError("not_host", "Only the host can do that.")
    return table


def private_add_bot(*, table_id: int, by, style: str | None = None) -> Seat:
    """The host seats a bot (of ``style`` when given) in the first free seat."""
    _hosted(table_id, by)
    try:
        return rooms_services.table_add_bot(table_id=table_id, by=by, style=style or None)
    except TableError as exc:
        raise _table_error(exc) from exc


def private_start(*, table_id: int, by) -> Table:
    _hosted(table_id, by)
    try:
        return rooms_services.table_start(table_id=table_id, by=by)
    except TableError as exc:
        raise _table_error(exc) from exc


def private_stop(*, table_id: int, by) -> Table:
    table = _hosted(table_id, by)
    reason = StopReason.HOST if table.host_id == by.pk else StopReason.STAFF
    try:
        return rooms_services.table_stop(table_id=table_id, reason=reason, by=by)
    except TableError as exc:
        raise _table_error(exc) from exc
