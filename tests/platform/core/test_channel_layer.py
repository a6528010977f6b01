"""The channel layer survives connections Redis dropped (as after a restart): the next socket's
handshake and group joins work at the first try (issue 22, found by the fault harness)."""

from __future__ import annotations

import asyncio

import redis
from channels.layers import get_channel_layer
from django.conf import settings


def _drop_every_client_connection() -> int:
    client = redis.Redis.from_url(settings.REDIS_URL)
    killed = 0
    for kind in ("pubsub", "normal"):
        killed += client.execute_command("CLIENT", "KILL", "TYPE", kind, "SKIPME", "yes")
    client.close()
    return killed


def test_a_channel_and_a_group_join_after_redis_dropped_the_connections():
    async def main() -> dict:
        layer = get_channel_layer()
        first = await layer.new_channel()
        await layer.group_add("layer-test", first)  # the layer's connections are open now
        await asyncio.to_thread(_drop_every_client_connection)
        second = await layer.new_channel()  # a new socket's handshake
        await layer.group_add("layer-test", second)
        await layer.group_send("layer-test", {"type": "hello"})
        got = await asyncio.wait_for(layer.receive(second), 5)
        await layer.group_discard("layer-test", first)
        await layer.group_discard("layer-test", second)
        await layer.flush()
        return got

    assert asyncio.run(main()) == {"type": "hello"}
