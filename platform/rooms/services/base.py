"""What every table service uses: the row lock, the event log and the broadcast after commit.

Every function that changes a table takes its row lock (``_lock``) first, so there is exactly one
writer per table; broadcasts are registered with ``transaction.on_commit``.
"""

from __future__ import annotations

import time

from core.transactions import after_commit
from gameworkers.engines import get_engine
from live import rows
from rooms import selectors
from rooms.errors import TableError
from rooms.models import Room, Table, TableEvent


def now_ms() -> int:
    return int(time.time() * 1000)


def _lock(table_id: int, *, actor_id: int | None = None) -> Table:
    try:
        table = rows.lock_table(int(table_id), actor_id=actor_id) if not isinstance(table_id, bool) else None
    except (ValueError, TypeError, OverflowError):
        table = None
    if table is None:
        raise TableError("no_such_table", "There is no such table.")
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
    after_commit(send)
