"""One receiver per ASGI process for every table message its sockets need.

A table's message (``broadcast.state_message``: every seat's frame and the spectators') reaches each
process once. Subscribed socket by socket, the channel layer would queue it to, decode it for, and wake
each socket's consumer loop separately (a receive task, a wait and a dispatch per socket per move). The
relay subscribes the process once to every table that has a socket here, decodes each message once and
hands it to those sockets' outboxes (``consumers.TableConsumer.relay``), which send in order without
blocking the others.

With the Redis pub/sub layer (the configured one) the relay reads its own Redis connection
(``RedisSubscription``): a message is parsed by hiredis and delivered from the event loop's read
callback, with no task switch. Through the layer's receive path the same message passed redis-py's
pub/sub reader (a timeout, a retry wrapper and a parser call chain), a queue, and a second task: about a
quarter of an ASGI process's event-loop time under load. Any other layer is read through the layer.

Lossy like the layer: a socket that misses a message (Redis restarting, say) sees a version gap on the
next one and resyncs.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from rooms import broadcast

log = logging.getLogger(__name__)

SUBSCRIBE_WAIT_S = 5.0  # how long a join waits for Redis to confirm (then the socket resyncs if it missed a frame)
RECONNECT_DELAYS_S = (0.05, 0.1, 0.25, 0.5, 1.0)  # then every second
SUBSCRIBE_BATCH = 500  # channels per SUBSCRIBE when a reconnect subscribes everything again
YOUNG_CONNECTION_S = 5.0  # a connection that dies sooner counts as a failed attempt (no reconnect storm)
HEALTH_CHECK_S = 15.0
HEALTH_TIMEOUT_S = 10.0


class Recipient(Protocol):
    def relay(self, message: dict) -> None: ...


class TableRelay:
    """The sockets of one event loop, by table, and the one subscription that receives for them."""

    def __init__(self, layer) -> None:
        self.layer = layer
        self.sockets: dict[int, set[Recipient]] = {}
        self.source: RedisSubscription | LayerSubscription = _source_for(layer, self)

    async def join(self, table_id: int, socket: Recipient) -> None:
        members = self.sockets.setdefault(table_id, set())
        members.add(socket)
        if len(members) == 1:
            await self.source.subscribe(table_id)
        else:  # a subscription already asked for: this socket, too, returns once it is in place
            await self.source.subscribed(table_id)

    async def leave(self, table_id: int, socket: Recipient) -> None:
        members = self.sockets.get(table_id)
        if members is None or socket not in members:
            return
        members.discard(socket)
        if not members:
            del self.sockets[table_id]
            await self.source.unsubscribe(table_id)

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


def _source_for(layer, relay: TableRelay) -> RedisSubscription | LayerSubscription:
    address = redis_address(layer)
    if address is None:
        return LayerSubscription(layer, relay)
    return RedisSubscription(address, decode=layer.deserialize, deliver=relay.deliver,
                             tables=lambda: list(relay.sockets))


# ----- through the channel layer (any layer) ---------------------------------------------------

class LayerSubscription:
    """The relay's own layer channel in each table group; one task reads it."""

    def __init__(self, layer, relay: TableRelay) -> None:
        self.layer = layer
        self.relay = relay
        self.channel: str | None = None
        self._opening = asyncio.Lock()
        self._reader: asyncio.Task | None = None

    async def subscribe(self, table_id: int) -> None:
        await self._open()
        await self.layer.group_add(broadcast.all_group(table_id), self.channel)

    async def subscribed(self, table_id: int) -> None:
        """(The layer confirms nothing: group_add has returned by the time a second socket joins.)"""

    async def unsubscribe(self, table_id: int) -> None:
        if self.channel is not None:
            await self.layer.group_discard(broadcast.all_group(table_id), self.channel)

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
                self.relay.deliver(message)


# ----- straight from Redis (the pub/sub layer) --------------------------------------------------

def redis_address(layer) -> dict[str, Any] | None:
    """Where the pub/sub layer's (single) Redis is — {"path"} or {"host", "port"}, with any
    "username"/"password" — or None when the relay should read through the layer instead (another
    layer, several shards, TLS, or no hiredis)."""
    try:
        import hiredis  # noqa: F401
        from channels_redis.pubsub import RedisPubSubChannelLayer
        from redis.connection import parse_url
    except ImportError:
        return None
    if not isinstance(layer, RedisPubSubChannelLayer):
        return None
    hosts = broadcast.layer_config().get("hosts") or ["redis://localhost:6379"]
    if len(hosts) != 1:
        return None
    host = hosts[0]
    if isinstance(host, str):
        options = parse_url(host)
    elif isinstance(host, dict) and "address" in host and isinstance(host["address"], str):
        options = {**parse_url(host["address"]), **{k: v for k, v in host.items() if k != "address"}}
    elif isinstance(host, dict):
        options = dict(host)
    else:
        return None
    connection_class = options.get("connection_class")
    if ("SSL" in getattr(connection_class, "__name__", "")  # redis-py's sync and asyncio SSLConnection
            or options.get("ssl") or options.get("sentinels") or options.get("master_name")):
        return None
    address: dict[str, Any] = ({"path": options["path"]} if options.get("path")
                               else {"host": options.get("host", "localhost"), "port": int(options.get("port", 6379))})
    for key in ("username", "password"):
        if options.get(key):
            address[key] = options[key]
    return address


def _command(*args: str | bytes) -> bytes:
    """One command in Redis's wire protocol."""
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg.encode() if isinstance(arg, str) else arg
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


class RedisSubscription:
    """A subscriber connection of the relay's own: SUBSCRIBE/UNSUBSCRIBE per table as sockets come
    and go, messages decoded and delivered from the connection's ``data_received``. A lost connection
    is made again (with back-off, kept across connections that die young) and every table the relay
    still has is subscribed again; a PING every ``HEALTH_CHECK_S`` that goes unanswered for
    ``HEALTH_TIMEOUT_S`` ends a connection that has silently gone away."""

    def __init__(self, address: dict[str, Any], *, decode: Callable[[bytes], Any],
                 deliver: Callable[[dict], Any], tables: Callable[[], list[int]]) -> None:
        self.address = address
        self.decode = decode
        self.deliver = deliver
        self.tables = tables
        self.current: _RedisConnection | None = None
        self.failures = 0  # connections in a row that failed or died young: the back-off step
        self.connections_made = 0
        self._connecting: asyncio.Task | None = None
        self._health: asyncio.Task | None = None
        self._closed = False

    @staticmethod
    def channel(table_id: int) -> bytes:
        return broadcast.pubsub_channel(broadcast.all_group(table_id)).encode()

    async def subscribe(self, table_id: int) -> None:
        if not await self._connected():
            return  # the connection, once made, subscribes every table the relay has
        channel = self.channel(table_id)
        await self._wait(self.current.send(_command("SUBSCRIBE", channel), replies=1, channels=(channel,)))

    async def subscribed(self, table_id: int) -> None:
        if await self._connected():
            await self._wait(self.current.subscribing.get(self.channel(table_id)))

    async def unsubscribe(self, table_id: int) -> None:
        if self._is_connected():
            self.current.send(_command("UNSUBSCRIBE", self.channel(table_id)), replies=1)

    def close(self) -> None:
        self._closed = True
        for task in (self._connecting, self._health):
            if task is not None:
                task.cancel()
        if self.current is not None:
            self.current.transport.close()

    @staticmethod
    async def _wait(waiter: asyncio.Future | None) -> None:
        if waiter is None or waiter.done():
            return
        try:
            await asyncio.wait_for(asyncio.shield(waiter), SUBSCRIBE_WAIT_S)
        except TimeoutError:
            log.warning("table relay: Redis did not confirm a subscription in %s s", SUBSCRIBE_WAIT_S)

    # ----- the connection -----------------------------------------------------------------
    def _is_connected(self) -> bool:
        return self.current is not None and not self.current.transport.is_closing()

    def _start_connecting(self) -> None:
        if self._closed or (self._connecting is not None and not self._connecting.done()):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no running loop any more (shutting down)
            return
        self._connecting = loop.create_task(self._connect(), name="table-relay-redis")
        if self._health is None or self._health.done():
            self._health = loop.create_task(self._check_health(), name="table-relay-redis-health")

    async def _connected(self) -> bool:
        """Connected, waiting up to SUBSCRIBE_WAIT_S for a connection being made."""
        if self._is_connected():
            return True
        self._start_connecting()
        if self._connecting is None:
            return False
        try:
            await asyncio.wait_for(asyncio.shield(self._connecting), SUBSCRIBE_WAIT_S)
        except TimeoutError:
            return False
        return self._is_connected()

    async def _connect(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._closed and not self._is_connected():
            if self.failures:
                await asyncio.sleep(RECONNECT_DELAYS_S[min(self.failures, len(RECONNECT_DELAYS_S)) - 1])
            try:
                if "path" in self.address:
                    await loop.create_unix_connection(lambda: _RedisConnection(self), self.address["path"])
                else:
                    await loop.create_connection(lambda: _RedisConnection(self), self.address["host"],
                                                 self.address["port"])
            except OSError as exc:
                self._failed(f"cannot reach Redis ({exc})")
                continue
            connection = self.current
            if connection is None or connection.transport.is_closing():
                continue  # lost already (counted by _lost): try again after the back-off
            if "password" in self.address:
                username = [self.address["username"]] if "username" in self.address else []
                connection.send(_command("AUTH", *username, self.address["password"]), replies=1)
            tables = self.tables()
            for start in range(0, len(tables), SUBSCRIBE_BATCH):
                channels = tuple(self.channel(t) for t in tables[start:start + SUBSCRIBE_BATCH])
                connection.send(_command("SUBSCRIBE", *channels), replies=len(channels), channels=channels)
            if self.connections_made > 1:
                log.warning("table relay: reconnected to Redis; %d tables subscribed again", len(tables))

    def _failed(self, why: str) -> None:
        self.failures += 1
        if self.failures == 1 or self.failures % 60 == 0:  # once, then about once a minute
            log.warning("table relay: %s; retrying (%d failures in a row)", why, self.failures)

    def _made(self, connection: _RedisConnection) -> None:
        if self.current is not None and self.current is not connection:
            self.current.transport.close()  # never two: a stale one's bytes must not reach the parser
        self.current = connection
        self.connections_made += 1

    def _lost(self, connection: _RedisConnection, exc: Exception | None, lived_s: float) -> None:
        if connection is not self.current:
            return  # an older connection closing late: the current one is unaffected
        self.current = None
        if lived_s < YOUNG_CONNECTION_S:
            self._failed(f"Redis closed the connection after {lived_s:.2f} s ({exc})")
        else:
            self.failures = 0
            log.warning("table relay: Redis connection lost (%s); reconnecting", exc)
        self._start_connecting()

    def _message(self, channel: bytes, data: bytes) -> None:
        try:
            message = self.decode(data)
        except Exception:
            log.exception("table relay: undecodable message on %r", channel)
            return
        if isinstance(message, dict):
            try:
                self.deliver(message)
            except Exception:
                log.exception("table relay: could not deliver a message on %r", channel)

    async def _check_health(self) -> None:
        while not self._closed:
            await asyncio.sleep(HEALTH_CHECK_S)
            connection = self.current
            if connection is None or connection.transport.is_closing():
                continue
            pong = connection.send(_command("PING"), replies=1)
            try:
                await asyncio.wait_for(asyncio.shield(pong), HEALTH_TIMEOUT_S)
            except TimeoutError:
                if connection is self.current:
                    log.warning("table relay: no answer to PING in %s s; reconnecting", HEALTH_TIMEOUT_S)
                    connection.transport.abort()


class _RedisConnection(asyncio.Protocol):
    """One connection of a ``RedisSubscription``. Redis answers commands in order (messages come in
    between), so each command sent queues how many replies it gets and the future its sender waits
    on; an error reply answers the whole command."""

    def __init__(self, owner: RedisSubscription) -> None:
        import hiredis

        self.owner = owner
        self.reader = hiredis.Reader()
        self.transport: asyncio.Transport = None  # type: ignore[assignment]
        self.pending: deque[list] = deque()  # [replies still due, future, channels]
        self.subscribing: dict[bytes, asyncio.Future] = {}  # the last SUBSCRIBE asked for per channel
        self.made_at = 0.0

    def send(self, command: bytes, *, replies: int, channels: tuple[bytes, ...] = ()) -> asyncio.Future:
        waiter = asyncio.get_running_loop().create_future()
        self.pending.append([replies, waiter, channels])
        for channel in channels:
            self.subscribing[channel] = waiter
        self.transport.write(command)
        return waiter

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.made_at = asyncio.get_running_loop().time()
        self.owner._made(self)

    def connection_lost(self, exc: Exception | None) -> None:
        for _, waiter, _ in self.pending:  # nobody waits for a connection that is gone
            if not waiter.done():
                waiter.set_result(None)
        self.pending.clear()
        self.subscribing.clear()
        self.owner._lost(self, exc, asyncio.get_running_loop().time() - self.made_at)

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while True:
            try:
                reply = self.reader.gets()
            except Exception:  # a protocol error: start over on a new connection
                log.exception("table relay: unreadable reply from Redis")
                self.transport.abort()
                return
            if reply is False:
                return
            if isinstance(reply, list) and len(reply) == 3 and reply[0] == b"message":
                self.owner._message(reply[1], reply[2])
            else:
                self._answer(reply)

    def _answer(self, reply) -> None:
        if not self.pending:
            return
        entry = self.pending[0]
        if isinstance(reply, Exception):  # e.g. NOAUTH, NOPERM: logged, and the command is over
            log.error("table relay: Redis refused a command: %s", reply)
            entry[0] = 0
        else:
            entry[0] -= 1
        if entry[0] <= 0:
            self.pending.popleft()
            waiter = entry[1]
            for channel in entry[2]:
                if self.subscribing.get(channel) is waiter:
                    del self.subscribing[channel]
            if not waiter.done():
                waiter.set_result(None)


_relays: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, TableRelay] = weakref.WeakKeyDictionary()


def for_running_loop(layer) -> TableRelay:
    """This event loop's relay (tests run several loops in one process; a server runs one)."""
    loop = asyncio.get_running_loop()
    relay = _relays.get(loop)
    if relay is None or relay.layer is not layer:
        if relay is not None and isinstance(relay.source, RedisSubscription):
            relay.source.close()
        relay = _relays[loop] = TableRelay(layer)
    return relay
