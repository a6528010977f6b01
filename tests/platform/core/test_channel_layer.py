"""The channel layer survives connections Redis dropped (as after a restart): the next socket's
handshake and group joins work at the first try (issue 22, found by the fault harness)."""

from __future__ import annotations

import asyncio

import redis
from channels.layers import get_channel_layer
from django.conf import settings


def _client_ids() -> set[int]:
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        return {int(c["id"]) for c in client.client_list()} - {client.client_id()}
    finally:
        client.close()


def _drop(ids: set[int]) -> int:
    """Close these client connections server-side, as a Redis restart does (and no one else's)."""
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        return sum(client.client_kill_filter(_id=str(i)) for i in ids)
    finally:
        client.close()


def test_a_channel_and_a_group_join_after_redis_dropped_the_connections():
    async def main() -> dict:
        layer = get_channel_layer()
        before = await asyncio.to_thread(_client_ids)
        first = await layer.new_channel()
        await layer.group_add("layer-test", first)  # the layer's connections are open now
        await layer.group_send("layer-test", {"type": "warm"})
        assert await asyncio.wait_for(layer.receive(first), 5) == {"type": "warm"}
        layers_own = await asyncio.to_thread(_client_ids) - before
        assert layers_own and await asyncio.to_thread(_drop, layers_own) == len(layers_own)
        second = await layer.new_channel()  # a new socket's handshake
        await layer.group_add("layer-test", second)
        await layer.group_send("layer-test", {"type": "hello"})
        got = await asyncio.wait_for(layer.receive(second), 5)
        await layer.group_discard("layer-test", first)
        await layer.group_discard("layer-test", second)
        await layer.flush()
        return got

    assert asyncio.run(main()) == {"type": "hello"}
