"""A table's end: finished (settled by ``wallets.table_money``) or stopped; closing a room."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from core.transactions import after_commit
from rooms import signals
from rooms.errors import TableError
from rooms.models import ENDED_STATUSES, Room, StopReason, Table, TableStatus
from rooms.services.base import _after_commit_broadcast, _lock, _record
from rooms.services.clock import _save_deadline
from wallets import table_money

# ----- finish and stop ---------------------------------------------------------------------

def _finish_locked(table: Table, engine) -> None:
    result = engine.result(table.state)
    table.status = TableStatus.FINISHED
    table.ended_at = timezone.now()
    table.result = result
    table.deadline_at = None
    table.deadline_seat = None
    table.save()
    _save_deadline(table)
    table_money.on_finish(table=table, result=result)
    _record(table, "finished", {"result": result, "seed": table.seed_hex})
    after_commit(_notify_finished, table.pk)


def _notify_finished(table_id: int) -> None:
    signals.table_finished.send(sender=Table, table_id=table_id)


def table_stop(*, table_id: int, reason: str, by=None) -> Table:
    """Stop a table before it finishes (host, staff, room closed, deserted)."""
    if reason not in StopReason.values:
        raise TableError("bad_reason", "Unknown stop reason.")
    with transaction.atomic():
        table = _lock(table_id)
        if table.status in ENDED_STATUSES:
            raise TableError("table_ended", "This table has already ended.")
        if reason == StopReason.HOST and (by is None or by != table.host):
            raise TableError("not_host", "Only the host can stop this table.")
        if reason == StopReason.HOST and table.status == TableStatus.RUNNING and table.room.stake:
            # economy.md [host stop]: otherwise a host could look at the cards and take the stake back.
            raise TableError("host_stop_after_start",
                             "A table with a stake cannot be stopped by its host once it has started; "
                             "you may leave it (your entry is forfeited).")
        # by=None: the platform itself (a cancelled tournament, a closed room); a person must be staff.
        if reason == StopReason.STAFF and by is not None and not by.is_staff:
            raise TableError("not_staff", "Only staff can stop tables.")
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
    _save_deadline(table)
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
