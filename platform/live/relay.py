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
import time
import uuid
import weakref
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from live import extensions, transport
from rooms import broadcast

log = logging.getLogger(__name__)

SUBSCRIBE_WAIT_S = 5.0  # how long a join waits for Redis to confirm (then the socket resyncs if it missed a frame)
RECONNECT_DELAYS_S = (0.05, 0.1, 0.25, 0.5, 1.0)  # then every second
SUBSCRIBE_BATCH = 500  # channels per SUBSCRIBE when a reconnect subscribes everything again
YOUNG_CONNECTION_S = 5.0  # a connection that dies sooner counts as a failed attempt (no reconnect storm)
HEALTH_CHECK_S = 15.0
HEALTH_TIMEOUT_S = 10.0
WATCH_TTL_S = 60.0  # a process that dies stops being counted among a table's spectators this long after
WATCH_REFRESH_S = 20.0  # its last refresh; a live one refreshes its spectators this often
WATCH_COALESCE_S = 0.5  # spectators coming and going within this are written (and announced) together


class Recipient(Protocol):
    def relay(self, message: dict) -> None: ...


class TableRelay:
    """The sockets of one event loop, by table, and the one subscription that receives for them."""

    def __init__(self, layer) -> None:
        self.layer = layer
        self.sockets: dict[int, set[Recipient]] = {}
        self.source: RedisSubscription | LayerSubscription = _source_for(layer, self)
        self.lines: dict[int, SpectatorLine] = {}  # tables whose spectators here watch late
        self.watchers = Watchers(self)

    async def join(self, table_id: int, socket: Recipient) -> None:
        members = self.sockets.setdefault(table_id, set())
        members.add(socket)
        if len(members) == 1:
            await self.source.subscribe(table_id)
        else:  # a subscription already asked for: this socket, too, returns once it is in place
            await self.source.subscribed(table_id)

    async def leave(self, table_id: int, socket: Recipient) -> None:
        self.unspectate(table_id, socket)
        members = self.sockets.get(table_id)
        if members is None or socket not in members:
            return
        members.discard(socket)
        if not members:
            del self.sockets[table_id]
            self.watchers.counts.pop(table_id, None)
            await self.source.unsubscribe(table_id)

    # ----- spectators (counted across processes; at a staked table they watch late) ---------
    def spectate(self, table_id: int, socket: Recipient, *, user_id: int, delay_s: float) -> SpectatorLine | None:
        """Count ``socket``'s user among the table's spectators and, when they watch ``delay_s`` late, put
        the socket on the table's line; returns the line (None: no delay). Synchronous and cheap: the count
        is written to Redis by the process's writer task, coalesced."""
        self.watchers.add(table_id, socket, user_id)
        if delay_s <= 0:
            return None
        line = self.lines.get(table_id)
        if line is None:
            line = self.lines[table_id] = SpectatorLine(table_id, delay_s)
        line.sockets.add(socket)
        return line

    def unspectate(self, table_id: int, socket: Recipient) -> None:
        """The socket no longer watches (it took a seat, or left); harmless when it did not."""
        self.watchers.discard(table_id, socket)
        line = self.lines.get(table_id)
        if line is not None and socket in line.sockets:
            line.sockets.discard(socket)
            if not line.sockets:
                line.close()
                del self.lines[table_id]

    def deliver(self, message: dict) -> int:
        """Hand a decoded table message to that table's sockets here; returns how many got it."""
        table_id = message.get("table")
        members = self.sockets.get(table_id)
        if not members:
            return 0
        line = self.lines.get(table_id)
        if line is not None:  # the late spectators' part, handed to them delay_s from now
            line.take(message)
        if message.get("type") == "table.watchers":
            self.watchers.heard(table_id, message["count"])
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
    hosts = transport.layer_config().get("hosts") or ["redis://localhost:6379"]
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
        return transport.pubsub_channel(broadcast.all_group(table_id)).encode()

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


# ----- spectators: watching late, and how many watch ------------------------------------------

def late_state(message: dict) -> dict:
    """A table message cut down to what a spectator may get: the spectators' frame and the public events."""
    return {"type": "table.state", "table": message["table"], "version": message["version"],
            "frames": {broadcast.WATCH: message["frames"][broadcast.WATCH]}, "seats": message["seats"],
            "events": message.get("events")}


def snapshot_message(table_id: int, frame_text: str, version: int) -> dict:
    """A spectator's snapshot (``selectors.table_frame`` serialised) in the form of a table message."""
    return {"type": "table.state", "table": table_id, "version": version, "frames": {broadcast.WATCH: frame_text},
            "seats": {}, "events": None}


class LateRecipient(Recipient, Protocol):
    def relay_late(self, message: dict) -> None: ...


class SpectatorLine:
    """One table's public frames for the spectators in this process who watch it ``delay_s`` late (a staked
    table: ``rooms.models.Room.spectator_delay_s``). The spectators' part of each table message (their
    `state` frame and its `event` frame) and the players' chat are held and handed to those sockets
    ``delay_s`` after they arrived, in order, by one timer per table rather than one per socket. ``current``
    is the last state handed on: the table as it was ``delay_s`` ago, where a spectator who joins later
    starts at once. Seated players never pass through here."""

    def __init__(self, table_id: int, delay_s: float) -> None:
        self.table_id = table_id
        self.delay_s = delay_s
        self.sockets: set[LateRecipient] = set()
        self.held: deque[tuple[float, dict]] = deque()  # (when to hand it on, message), oldest first
        self.current: dict | None = None
        self._timer: asyncio.TimerHandle | None = None

    @staticmethod
    def holds(message: dict, user_key: str) -> bool:
        """Whether a late spectator (``user_key``: how the broadcaster keys their frame) gets ``message``
        from the line instead of at once: the spectators' state, and the players' chat (it follows the
        play). A message with the user's own frame means they hold a seat at that version: at once."""
        kind = message.get("type")
        if kind == "table.state":
            return user_key not in message["frames"]
        follows = extensions.FOLLOWS_PLAY.get(kind)
        return follows is not None and follows(message)

    def take(self, message: dict) -> None:
        kind = message.get("type")
        if kind == "table.state":
            self.hold(late_state(message))
        elif (follows := extensions.FOLLOWS_PLAY.get(kind)) is not None and follows(message):
            self.hold(message)

    def hold(self, message: dict) -> None:
        loop = asyncio.get_running_loop()
        self.held.append((loop.time() + self.delay_s, message))
        if self._timer is None:
            self._timer = loop.call_at(self.held[0][0], self._release)

    def holds_a_state(self) -> bool:
        return any(message["type"] == "table.state" for _, message in self.held)

    def _release(self) -> None:
        self._timer = None
        loop = asyncio.get_running_loop()
        now = loop.time()
        while self.held and self.held[0][0] <= now:
            message = self.held.popleft()[1]
            if message["type"] == "table.state" and (self.current is None
                                                      or message["version"] > self.current["version"]):
                self.current = message
            for socket in tuple(self.sockets):
                try:
                    socket.relay_late(message)
                except Exception:  # one socket's failure must not cost the others their frame
                    log.exception("table %s: a late spectator could not take %s", self.table_id, message["type"])
        if self.held:
            self._timer = loop.call_at(self.held[0][0], self._release)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.held.clear()


def watchers_key(table_id: int) -> str:
    """The Redis sorted set of a table's spectators (per-deployment prefix, like the layer's channels)."""
    return f"{transport.layer_config().get('prefix', 'asgi')}:watchers:{table_id}"


def _async_redis():
    import redis.asyncio

    host = (transport.layer_config().get("hosts") or ["redis://localhost:6379"])[0]
    return redis.asyncio.Redis.from_url(host) if isinstance(host, str) else redis.asyncio.Redis(**host)


class Watchers:
    """How many watch each table, whichever ASGI process their sockets are in: one Redis sorted set per
    table (``watchers_key``) with a member per (process, user), scored with its expiry. A process writes
    only its own members: added and removed as its spectators come and go (coalesced: one pipeline per
    ``WATCH_COALESCE_S`` for every table that changed, never a database write), refreshed every
    ``WATCH_REFRESH_S``; a process that dies stops counting ``WATCH_TTL_S`` later. A changed count is
    announced to the table's group (``table.watchers``), so every process's sockets there hear it; a
    user watching in two tabs counts once per process."""

    def __init__(self, relay: TableRelay) -> None:
        self.relay = relay
        self.process = uuid.uuid4().hex[:12]
        self.users: dict[int, dict[Recipient, int]] = {}  # table -> spectator socket here -> its user id
        self.stored: dict[int, set[int]] = {}  # table -> the users this process has written
        self.counts: dict[int, int] = {}  # table -> the latest count known here (tables with a socket here)
        self.dirty: set[int] = set()
        self._client = None
        self._writer: asyncio.Task | None = None
        self._refresher: asyncio.Task | None = None

    def add(self, table_id: int, socket: Recipient, user_id: int) -> None:
        self.users.setdefault(table_id, {})[socket] = user_id
        self._changed(table_id)

    def discard(self, table_id: int, socket: Recipient) -> None:
        users = self.users.get(table_id)
        if users is None or users.pop(socket, None) is None:
            return
        if not users:
            del self.users[table_id]
        self._changed(table_id)

    def heard(self, table_id: int, count: int) -> None:
        self.counts[table_id] = count

    async def count(self, table_id: int) -> int:
        """The table's spectators now: known here, or one Redis read."""
        known = self.counts.get(table_id)
        if known is not None:
            return known
        count = int(await self._redis().zcount(watchers_key(table_id), time.time(), "+inf"))
        if table_id in self.relay.sockets:
            self.counts.setdefault(table_id, count)
        return self.counts.get(table_id, count)

    def _member(self, user_id: int) -> str:
        return f"{self.process}:{user_id}"

    def _redis(self):
        if self._client is None:
            self._client = _async_redis()
        return self._client

    def _changed(self, table_id: int) -> None:
        self.dirty.add(table_id)
        loop = asyncio.get_running_loop()
        if self._writer is None or self._writer.done():
            self._writer = loop.create_task(self._write(), name="table-watchers")
        if self._refresher is None or self._refresher.done():
            self._refresher = loop.create_task(self._refresh(), name="table-watchers-refresh")

    async def _write(self) -> None:
        while self.dirty:
            tables, self.dirty = self.dirty, set()
            try:
                await self._store(tables)
            except Exception:  # Redis away: counts are lossy like frames; try again at the next change
                log.warning("table watchers: could not write %d tables' counts", len(tables), exc_info=True)
                self.dirty |= tables
                await asyncio.sleep(WATCH_REFRESH_S)
                continue
            await asyncio.sleep(WATCH_COALESCE_S)

    async def _refresh(self) -> None:
        """Renew this process's members, and count again the tables shown with spectators here, so one
        that a dead process was counted at comes down in time."""
        while self.users or self.stored or any(self.counts.values()):
            await asyncio.sleep(WATCH_REFRESH_S)
            self.dirty |= set(self.users) | set(self.stored) | {t for t, n in self.counts.items() if n}
            if self.dirty and (self._writer is None or self._writer.done()):
                self._writer = asyncio.get_running_loop().create_task(self._write(), name="table-watchers")

    async def _store(self, tables: set[int]) -> None:
        now = time.time()
        pipe = self._redis().pipeline(transaction=False)
        order: list[tuple[int, set[int], int]] = []  # (table, its users here, replies its commands get)
        for table_id in tables:
            key = watchers_key(table_id)
            users = set(self.users.get(table_id, {}).values())
            gone = self.stored.get(table_id, set()) - users
            if gone:
                pipe.zrem(key, *(self._member(u) for u in gone))
            if users:
                pipe.zadd(key, {self._member(u): now + WATCH_TTL_S for u in users})
                pipe.expire(key, int(WATCH_TTL_S) + 1)
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.zcard(key)
            order.append((table_id, users, bool(gone) + 2 * bool(users) + 2))
        replies = iter(await pipe.execute())
        announce: list[tuple[int, int]] = []
        for table_id, users, n_replies in order:
            count = int([next(replies) for _ in range(n_replies)][-1])
            moved = users != self.stored.get(table_id, set())  # this process's own spectators changed
            if users:
                self.stored[table_id] = users
            else:
                self.stored.pop(table_id, None)
            if moved or (table_id in self.counts and self.counts[table_id] != count):
                announce.append((table_id, count))
            if table_id in self.relay.sockets:
                self.counts[table_id] = count
        for table_id, count in announce:
            await self.relay.layer.group_send(broadcast.all_group(table_id),
                                              {"type": "table.watchers", "table": table_id, "count": count})


def spectator_counts(table_ids: Iterable[int]) -> dict[int, int]:
    """How many watch each table now, across every process (for pages: one Redis round trip); 0 for all
    when Redis cannot answer (a count is never worth an error page)."""
    ids = list(table_ids)
    if not ids:
        return {}
    now = time.time()
    try:
        pipe = transport._redis().pipeline(transaction=False)
        for table_id in ids:
            pipe.zcount(watchers_key(table_id), now, "+inf")
        return {table_id: int(n) for table_id, n in zip(ids, pipe.execute(), strict=True)}
    except Exception:
        log.warning("spectator counts unavailable", exc_info=True)
        return dict.fromkeys(ids, 0)
