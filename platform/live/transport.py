"""The transport of channel-layer messages: with the Redis pub/sub layer, every message of one
broadcast is PUBLISHed in a single round trip on a connection of the process's own (no event loop);
with any other layer, through ``group_send``. The channel names follow channels_redis's own naming,
a private detail of that library: it lives here, in the live-path package, pinned by
``tests/platform/live/test_pinned_internals.py``."""

from __future__ import annotations

import os
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings


def publish(messages: list[tuple[str, dict]]) -> None:
    """Send each (group, message) pair through the channel layer."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    from channels_redis.pubsub import RedisPubSubChannelLayer

    if isinstance(layer, RedisPubSubChannelLayer):
        _publish([(pubsub_channel(group), layer.serialize(message)) for group, message in messages])
    else:
        async_to_sync(_group_send_all)(layer, messages)


async def _group_send_all(layer, messages: list[tuple[str, dict]]) -> None:
    for group, message in messages:
        await layer.group_send(group, message)


def layer_config() -> dict[str, Any]:
    return settings.CHANNEL_LAYERS["default"].get("CONFIG", {})


def pubsub_channel(group: str) -> str:
    """The Redis channel of a group in the pub/sub layer (its own naming:
    ``channels_redis.pubsub.RedisPubSubLoopLayer._get_group_channel_name``)."""
    return f"{layer_config().get('prefix', 'asgi')}__group__{group}"


def _publish(pairs: list[tuple[str, bytes]]) -> None:
    """PUBLISH each (channel, data) in one round trip on a connection of the process's own: through a
    client's pool and pipeline the bookkeeping cost twice the command itself (~35 against ~16 us of
    CPU), on every move. A connection that broke (Redis restarted) is replaced and the batch sent once
    more, as redis-py's own retry would."""
    import redis

    for attempt in (1, 2):
        conn = _checkout()
        try:
            conn.send_packed_command(conn.pack_commands([("PUBLISH", channel, data) for channel, data in pairs]))
            for _ in pairs:
                conn.read_response()
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            conn.disconnect()  # reconnects on its next use
            _checkin(conn)
            if attempt == 2:
                raise
        except BaseException:
            conn.disconnect()  # a reply may still be unread: never hand this socket to the next batch as is
            _checkin(conn)
            raise
        else:
            _checkin(conn)
            return


# Publishing connections not in use, per process. A batch takes one and gives it back, so a process
# holds as many as it ever published from at once, not one per thread that ever published: under ASGI
# every REST request runs on a new thread, and a connection per thread, never returned, used up the
# pool's 100 in ~100 requests; after that nothing was pushed at all.
_idle: list[Any] = []
_idle_pid = [0]


def _checkout():
    if _idle_pid[0] != os.getpid():  # a forked worker makes its own
        _idle.clear()
        _idle_pid[0] = os.getpid()
    try:
        return _idle.pop()  # atomic under the GIL
    except IndexError:
        return _redis().connection_pool.make_connection()


def _checkin(conn) -> None:
    if _idle_pid[0] == os.getpid():
        _idle.append(conn)


_clients: dict[int, Any] = {}


def _redis():
    """One synchronous Redis client per process (a forked worker must not share its parent's sockets)."""
    client = _clients.get(os.getpid())
    if client is None:
        import redis

        host = layer_config()["hosts"][0]
        client = redis.Redis.from_url(host) if isinstance(host, str) else redis.Redis(**host)
        _clients.clear()
        _clients[os.getpid()] = client
    return client
