"""Table lifecycle and the move pipeline: validate and lock, then mutate, events on commit.

Every function that changes a table takes its row lock (``select_for_update``) first, so
there is exactly one writer per table; money hooks (``wallets.table_money``) run inside the
same transaction; broadcasts and task enqueues are registered with ``transaction.on_commit``.

By job: ``tables`` (open, sit, stand, start, bots at a table), ``moves`` (a move, the automatic
moves at a deadline, leaving), ``clock`` (deadlines, time bank, reconnect grace, the timer's claim),
``ending`` (finish, stop, closing a room), ``presence`` (table sockets), ``seating`` and ``base``
(what they share). The public services are re-exported here.
"""

from rooms.services.base import engine_options, now_ms
from rooms.services.clock import deadline_resync, due_tables
from rooms.services.ending import room_close, table_stop
from rooms.services.moves import table_announce, table_fire_deadline, table_play
from rooms.services.presence import table_connection, tables_alive
from rooms.services.tables import (
    play_with_bots,
    table_add_bot,
    table_open,
    table_open_seated,
    table_sit,
    table_stand,
    table_start,
)

__all__ = [
    "deadline_resync",
    "due_tables",
    "engine_options",
    "now_ms",
    "play_with_bots",
    "room_close",
    "table_add_bot",
    "table_announce",
    "table_connection",
    "tables_alive",
    "table_fire_deadline",
    "table_open",
    "table_open_seated",
    "table_play",
    "table_sit",
    "table_stand",
    "table_start",
    "table_stop",
]
