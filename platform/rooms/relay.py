"""One receiver per ASGI process for every table message its sockets need.

A table's message (``broadcast.state_message``: every seat's frame and the spectators') reaches each
process once. Subscribed socket by socket, the channel layer would queue it to, decode it for, and wake
each socket's consumer loop separately (a receive task, a wait and a dispatch per socket per move). The
relay holds the process's one layer channel in every table group that has a socket here, decodes each
message once and hands it to those sockets' outboxes (``consumers.TableConsumer.relay``), which send in
order without blocking the others.

Lossy like the layer: a socket that misses a message sees a version gap and resyncs.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from typing import Protocol

from rooms import broadcast

log = logging.getLogger(__name__)


class Recipient(Protocol):
    def relay(self, message: dict) -> None: ...


class TableRelay:
    """The sockets of one event loop, by table; the one channel that receives for all of them."""

    def __init__(self, layer) -> None:
        self.layer = layer
        self.sockets: dict[int, set[Recipient]] = {}
        self.channel: str | None = None
        self._opening = asyncio.Lock()
        self._reader: asyncio.Task | None = None

    async def join(self, table_id: int, socket: Recipient) -> None:
        await self._open()
        members = self.sockets.setdefault(table_id, set())
        members.add(socket)
        if len(members) == 1:
            await self.layer.group_add(broadcast.all_group(table_id), self.channel)

    async def leave(self, table_id: int, socket: Recipient) -> None:
        members = self.sockets.get(table_id)
        if members is None or socket not in members:
            return
        members.discard(socket)
        if not members:
            del self.sockets[table_id]
            await self.layer.group_discard(broadcast.all_group(table_id), self.channel)

    def deliver(self, message: dict) -> int:
        """Hand a decoded table message to that table's sockets here; returns how many got it."""
        members = self.sockets.get(message.get("table"))
        if not members:
            return 0
        for socket in tuple(members):
            try:
                socket.relay(message)
            except Exception:  # one socket's failure must not cost the others their frame
                log.exception("table %s: a socket could not take %s", message.get("table"), message.get("type"))
        return len(members)

    async def _open(self) -> None:
        if self._reader is not None and not self._reader.done():
            return
        async with self._opening:
            if self.channel is None:
                self.channel = await self.layer.new_channel("relay.")
            if self._reader is None or self._reader.done():
                self._reader = asyncio.get_running_loop().create_task(self._read(), name="table-relay")

    async def _read(self) -> None:
        while True:
            try:
                message = await self.layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception:  # the layer reconnects by itself; never let one bad message end the relay
                log.exception("table relay could not receive")
                await asyncio.sleep(0.5)
                continue
            if isinstance(message, dict):
                self.deliver(message)


_relays: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, TableRelay] = weakref.WeakKeyDictionary()


def for_running_loop(layer) -> TableRelay:
    """This event loop's relay (tests run several loops in one process; a server runs one)."""
    loop = asyncio.get_running_loop()
    relay = _relays.get(loop)
    if relay is None or relay.layer is not layer:
        relay = _relays[loop] = TableRelay(layer)
    return relay
