"""Where a socket's move is applied: in the ASGI process that received it, on a small pool of threads.

Each thread keeps its own database connection between moves, so a move costs its transaction and
nothing else: no broker message, no worker hop, no connection health query. The one writer per table
is still the table's row lock (``services.table_play``), whichever process or thread holds it.
Bots and turn timers stay with the Celery workers.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection

from rooms import broadcast, services
from rooms.errors import TableError

if TYPE_CHECKING:
    from rooms.models import Table

_executor: ThreadPoolExecutor | None = None


class LastWritten:
    """Each table's row as this process's moves last committed it: the next move here at that version
    is computed from it and written in one round trip, unless the row changed meanwhile
    (``services.table_play``'s ``read``). A table's sockets are spread over the processes, so a move
    finds its table here when the previous move went through this process too."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.tables: OrderedDict[int, Table] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, table_id: int, version: int) -> Table | None:
        with self.lock:
            table = self.tables.get(table_id)
        return table if table is not None and table.version == version else None

    def put(self, table: Table) -> None:
        with self.lock:
            self.tables[table.pk] = table
            self.tables.move_to_end(table.pk)
            while len(self.tables) > self.size:
                self.tables.popitem(last=False)


last_written = LastWritten(size=2048)  # ~2 KB of state each: a few MB for the busiest process


def _pool() -> ThreadPoolExecutor:
    global _executor
    if _executor is None:
        # The threads hand their broadcasts to one thread of their own (rooms.broadcast.hand_off_to).
        broadcaster = ThreadPoolExecutor(max_workers=1, thread_name_prefix="broadcast")
        _executor = ThreadPoolExecutor(max_workers=settings.MOVE_THREADS, thread_name_prefix="moves",
                                       initializer=broadcast.hand_off_to, initargs=(broadcaster.submit,))
    return _executor


def play(*, table_id: int, seat_number: int, move: dict, expected_version: int, user_id: int,
         read: Table | None = None) -> int:
    """``services.table_play`` on this thread's kept connection (which refuses an inactive account,
    ``account_inactive``); a connection that broke (a database restart, a terminated backend)
    is replaced and the move tried once more, which is safe because the move is version-checked (a move
    that did commit is then refused as stale, never applied twice). ``read``: the table as the caller
    read it (``services.table_play``: one round trip when nothing changed since)."""
    if read is None:
        read = last_written.get(table_id, expected_version)
    call = partial(services.table_play, table_id=table_id, seat_number=seat_number, move=move,
                   expected_version=expected_version, user_id=user_id, read=read, written=last_written.put)
    try:
        return call()
    except (InterfaceError, OperationalError):
        connection.close()
    try:
        return call()
    except TableError as exc:
        if exc.code == "stale_version" and exc.version == expected_version + 1:
            # The first attempt's COMMIT may have gone through before its connection broke, and
            # with it went the broadcast and bot turns registered for after the commit.
            services.table_announce(table_id=table_id)
        raise


async def play_async(*, table_id: int, seat_number: int, move: dict, expected_version: int, user_id: int) -> int:
    """``play`` from the event loop: raises ``TableError`` as ``services.table_play`` does."""
    return await asyncio.get_running_loop().run_in_executor(
        _pool(), partial(play, table_id=table_id, seat_number=seat_number, move=move,
                         expected_version=expected_version, user_id=user_id))
