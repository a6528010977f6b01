"""The per-process table relay with the real Redis channel layer."""

from __future__ import annotations

import asyncio

import pytest
from channels.layers import get_channel_layer

from rooms import broadcast, relay


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
        assert _redis_relay(hub).confirmations == {}  # confirmed, nothing left waiting
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
        before = source.transport
        killed = redis.Redis.from_url(settings.REDIS_URL).client_kill_filter(_type="pubsub")
        assert killed >= 1
        await _settle(lambda: source.transport is not None and source.transport is not before)
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
