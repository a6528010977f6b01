"""The channel layer: channels_redis' pub/sub layer, with one retry of a call that meets a dead
connection.

After a Redis restart, an ASGI process whose layer connection sat idle learns it is dead only from the
next call: channels' ``new_channel()`` for the next socket's handshake, or its ``group_add``. redis-py
drops the connection and raises; the layer reconnects on the next call. So the first socket after
every restart failed (the handshake errored, or the socket closed 1011) and the next one worked
(found by bench/faults.py). Each call here is tried once more on a connection error; the calls are
idempotent (a subscription, a group membership, a publish the client never saw go out).
"""

from __future__ import annotations

import logging

from channels_redis.pubsub import RedisPubSubChannelLayer as _PubSubLayer
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from live import bus_cipher  # noqa: F401  (registers the sealed serializer the settings name)

log = logging.getLogger(__name__)


class RedisPubSubChannelLayer(_PubSubLayer):
    async def _call(self, name: str, *args, **kwargs):
        try:
            return await _PubSubLayer.__getattr__(self, name)(*args, **kwargs)
        except (RedisConnectionError, RedisTimeoutError, ConnectionError):
            log.info("channel layer: %s met a dead Redis connection; trying once more", name)
            return await _PubSubLayer.__getattr__(self, name)(*args, **kwargs)

    async def new_channel(self, prefix: str = "specific."):
        return await self._call("new_channel", prefix)

    async def send(self, channel, message):
        return await self._call("send", channel, message)

    async def group_add(self, group, channel):
        return await self._call("group_add", group, channel)

    async def group_discard(self, group, channel):
        return await self._call("group_discard", group, channel)

    async def group_send(self, group, message):
        return await self._call("group_send", group, message)
