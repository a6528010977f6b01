"""The per-process table relay with the real Redis channel layer."""

from __future__ import annotations

import asyncio

import pytest
from channels.layers import get_channel_layer

from live import relay
from rooms import broadcast


class Recorder:
    def __init__(self) -> None:
        self.got: list[dict] = []

    def relay(self, message: dict) -> None:
        self.got.append(message)


async def _settle(condition, timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "no delivery in time"
        await asyncio.sleep(0.01)


def _state(table_id: int, version: int) -> dict:
    return {"type": "table.state", "table": table_id, "version": version, "frames": {"watch": "{}"},
            "seats": {}, "events": None}


def test_each_table_message_reaches_that_tables_sockets_once_until_they_leave():
    async def main():
        layer = get_channel_layer()
        hub = relay.for_running_loop(layer)
        assert relay.for_running_loop(layer) is hub  # one per event loop
        a, b, other = Recorder(), Recorder(), Recorder()
        await hub.join(9001, a)
        await hub.join(9001, b)
        await hub.join(9002, other)
        await layer.group_send(broadcast.all_group(9001), _state(9001, 1))
        await _settle(lambda: a.got and b.got)
        await asyncio.sleep(0.1)
        assert [m["version"] for m in a.got] == [1] and [m["version"] for m in b.got] == [1]
        assert other.got == []

        await hub.leave(9001, a)
        await hub.leave(9001, a)  # leaving twice is harmless
        await layer.group_send(broadcast.all_group(9001), _state(9001, 2))
        await _settle(lambda: len(b.got) == 2)
        assert len(a.got) == 1

        # The last socket of a table leaving drops the subscription; a new one subscribes again.
        await hub.leave(9001, b)
        assert 9001 not in hub.sockets
        await layer.group_send(broadcast.all_group(9001), _state(9001, 3))
        await asyncio.sleep(0.2)
        assert len(b.got) == 2
        await hub.join(9001, a)
        await layer.group_send(broadcast.all_group(9001), _state(9001, 4))
        await _settle(lambda: len(a.got) == 2)
        assert a.got[-1]["version"] == 4
        await hub.leave(9001, a)
        await hub.leave(9002, other)

    asyncio.run(main())


def test_a_recipient_that_fails_does_not_stop_the_relay():
    class Broken:
        def relay(self, message: dict) -> None:
            raise RuntimeError("boom")

    async def main():
        layer = get_channel_layer()
        hub = relay.for_running_loop(layer)
        good = Recorder()
        await hub.join(9003, Broken())
        await layer.group_send(broadcast.all_group(9003), _state(9003, 1))
        await asyncio.sleep(0.2)
        await hub.join(9003, good)
        await layer.group_send(broadcast.all_group(9003), _state(9003, 2))
        await _settle(lambda: good.got)
        assert good.got[0]["version"] == 2

    asyncio.run(main())


def _redis_relay(hub):
    """The relay's own Redis subscription (the configured layer is the Redis pub/sub one)."""
    assert isinstance(hub.source, relay.RedisSubscription), "the pub/sub layer is read straight from Redis"
    return hub.source


def test_a_join_returns_once_redis_has_confirmed_the_subscription():
    """A socket reads its snapshot after joining; a move published after the join returns must
    reach it, so the join waits for Redis's confirmation (not just for the command to be sent)."""
    async def main():
        layer = get_channel_layer()
        hub = relay.for_running_loop(layer)
        got = Recorder()
        await hub.join(9011, got)
        assert not _redis_relay(hub).current.pending  # confirmed, nothing left waiting
        broadcast.publish([(broadcast.all_group(9011), _state(9011, 1))])  # the broadcaster's path
        await _settle(lambda: got.got)
        # Leave and join again at once: UNSUBSCRIBE then SUBSCRIBE, in order, so the table stays subscribed.
        await hub.leave(9011, got)
        await hub.join(9011, got)
        broadcast.publish([(broadcast.all_group(9011), _state(9011, 2))])
        await _settle(lambda: len(got.got) == 2)
        await hub.leave(9011, got)

    asyncio.run(main())


def test_the_relay_subscribes_again_after_redis_drops_its_connection():
    import redis
    from django.conf import settings

    async def main():
        layer = get_channel_layer()
        hub = relay.for_running_loop(layer)
        got = Recorder()
        await hub.join(9021, got)
        await hub.join(9022, got)
        source = _redis_relay(hub)
        before = source.current
        client = redis.Redis.from_url(settings.REDIS_URL)
        sockname = source.current.transport.get_extra_info("sockname")
        if isinstance(sockname, tuple):  # TCP: the relay's connection only (other sessions share the server)
            killed = client.client_kill_filter(addr=f"{sockname[0]}:{sockname[1]}")
        else:  # the embedded Redis on a unix socket: this session's own server
            killed = client.client_kill_filter(_type="pubsub")
        assert killed >= 1
        await _settle(lambda: source.current is not None and source.current is not before)
        # Messages sent while it was away are lost (clients resync on the version gap); new ones arrive.
        for version in range(1, 50):
            broadcast.publish([(broadcast.all_group(9021), _state(9021, version)),
                               (broadcast.all_group(9022), _state(9022, version))])
            await asyncio.sleep(0.05)
            if {m["table"] for m in got.got} == {9021, 9022}:
                break
        assert {m["table"] for m in got.got} == {9021, 9022}
        await hub.leave(9021, got)
        await hub.leave(9022, got)

    asyncio.run(main())


def test_a_message_that_cannot_be_decoded_is_dropped_and_the_next_one_arrives():
    import redis
    from django.conf import settings

    async def main():
        layer = get_channel_layer()
        hub = relay.for_running_loop(layer)
        got = Recorder()
        await hub.join(9031, got)
        channel = broadcast.pubsub_channel(broadcast.all_group(9031))
        client = redis.Redis.from_url(settings.REDIS_URL)
        client.publish(channel, b"\xc1 not msgpack")
        client.publish(channel, layer.serialize(["not", "a", "dict"]))
        broadcast.publish([(broadcast.all_group(9031), _state(9031, 7))])
        await _settle(lambda: got.got)
        assert [m["version"] for m in got.got] == [7]
        await hub.leave(9031, got)

    asyncio.run(main())


def test_where_the_relay_reads_from():
    from channels.layers import InMemoryChannelLayer

    assert relay.redis_address(InMemoryChannelLayer()) is None
    assert relay._command("SUBSCRIBE", b"a", "bc") == b"*3\r\n$9\r\nSUBSCRIBE\r\n$1\r\na\r\n$2\r\nbc\r\n"


@pytest.mark.parametrize(("host", "address"), [
    ("redis://127.0.0.1:6390/3", {"host": "127.0.0.1", "port": 6390}),
    ("redis://:s3cret@cache:6379/0", {"host": "cache", "port": 6379, "password": "s3cret"}),
    ("redis://relay:s3cret@cache:6379/0", {"host": "cache", "port": 6379, "username": "relay", "password": "s3cret"}),
    ("unix:///run/redis.sock?db=1", {"path": "/run/redis.sock"}),
    ({"address": "redis://cache:6379"}, {"host": "cache", "port": 6379}),
    ("rediss://cache:6380/0", None),  # TLS: read through the layer
])
def test_the_redis_address_follows_the_layers_configuration(settings, host, address):
    from channels_redis.pubsub import RedisPubSubChannelLayer

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
                                           "CONFIG": {"hosts": [host]}}}
    assert relay.redis_address(RedisPubSubChannelLayer(hosts=[host])) == address


class FakeRedis:
    """Just enough of a Redis server to misbehave on purpose: it answers SUBSCRIBE, UNSUBSCRIBE and
    PING as Redis does (or holds, refuses or ignores them), or closes every connection at once."""

    def __init__(self, *, hold: bool = False, refuse: bool = False, mute_ping: bool = False,
                 slam: bool = False) -> None:
        self.hold, self.refuse, self.mute_ping, self.slam = hold, refuse, mute_ping, slam
        self.released = asyncio.Event()
        self.accepted = 0
        self.commands: list[list[bytes]] = []

    async def start(self) -> dict:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return {"host": "127.0.0.1", "port": self.server.sockets[0].getsockname()[1]}

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        import hiredis

        self.accepted += 1
        if self.slam:
            writer.close()
            return
        parser = hiredis.Reader()
        try:
            while data := await reader.read(65536):
                parser.feed(data)
                while (command := parser.gets()) is not False:
                    self.commands.append(command)
                    name = command[0].upper()
                    if name == b"PING":
                        if not self.mute_ping:
                            writer.write(b"*2\r\n$4\r\npong\r\n$0\r\n\r\n")
                    elif self.refuse:
                        writer.write(b"-NOPERM this user has no permissions to access one of the channels\r\n")
                    elif name in (b"SUBSCRIBE", b"UNSUBSCRIBE"):
                        if self.hold:
                            await self.released.wait()
                        kind = name.lower()
                        for channel in command[1:]:
                            writer.write(b"*3\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n:1\r\n" % (len(kind), kind, len(channel), channel))
                    await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()


def _subscription(address: dict, tables=lambda: []) -> relay.RedisSubscription:
    return relay.RedisSubscription(address, decode=lambda data: data, deliver=lambda message: None, tables=tables)


def test_a_redis_that_closes_every_connection_at_once_gets_back_off_not_a_storm():
    async def main():
        fake = FakeRedis(slam=True)
        source = _subscription(await fake.start(), tables=lambda: [1, 2])
        source._start_connecting()
        await asyncio.sleep(1.0)
        source.close()
        # Back-off 0.05, 0.1, 0.25, 0.5 s...: a handful of attempts in a second, not thousands.
        assert 2 <= fake.accepted <= 8, fake.accepted
        fake.server.close()

    asyncio.run(main())


def test_every_socket_joining_a_table_waits_for_the_same_confirmation():
    async def main():
        fake = FakeRedis(hold=True)
        hub = relay.TableRelay(get_channel_layer())
        hub.source = _subscription(await fake.start(), tables=lambda: list(hub.sockets))
        first = asyncio.ensure_future(hub.join(5, Recorder()))
        await asyncio.sleep(0.2)
        second = asyncio.ensure_future(hub.join(5, Recorder()))
        await asyncio.sleep(0.2)
        assert not first.done() and not second.done()  # neither before Redis has confirmed
        fake.released.set()
        await asyncio.wait_for(asyncio.gather(first, second), 2)
        # Only the first socket asked (the connection, once made, subscribes the relay's tables too).
        assert all(c[0] == b"SUBSCRIBE" for c in fake.commands)
        hub.source.close()
        fake.server.close()
        await asyncio.sleep(0.05)

    asyncio.run(main())


def test_a_refused_subscription_answers_the_join_at_once_and_leaves_nothing_waiting():
    async def main():
        fake = FakeRedis(refuse=True)
        source = _subscription(await fake.start())
        started = asyncio.get_running_loop().time()
        await source.subscribe(7)
        await source.subscribe(8)
        assert asyncio.get_running_loop().time() - started < 1.0  # not SUBSCRIBE_WAIT_S each
        assert not source.current.pending and not source.current.subscribing
        source.close()
        fake.server.close()
        await asyncio.sleep(0.05)  # let the cancelled tasks finish

    asyncio.run(main())


def test_a_connection_that_stops_answering_is_replaced(monkeypatch):
    monkeypatch.setattr(relay, "HEALTH_CHECK_S", 0.1)
    monkeypatch.setattr(relay, "HEALTH_TIMEOUT_S", 0.2)

    async def main():
        fake = FakeRedis(mute_ping=True)
        source = _subscription(await fake.start(), tables=lambda: [3])
        await source.subscribe(3)
        first = source.current
        await _settle(lambda: source.current is not None and source.current is not first, timeout=3)
        # The new connection subscribed the table again.
        assert [b"SUBSCRIBE", source.channel(3)] in fake.commands[1:]
        source.close()
        fake.server.close()
        await asyncio.sleep(0.05)  # let the cancelled tasks finish

    asyncio.run(main())
