"""After-commit fan-out: each seated player their own view, spectators the public one.

Group names: ``table.<id>.all`` for every socket at a table (one message per change carries every
player's frame and the spectators'; ``state_message``), ``user.<id>`` for a user's sockets (logout).
The channel layer is lossy: every frame carries the version, and a client that sees a gap
asks for a resync.

Frames are serialised to JSON once, here, and the socket forwards the text as it is. With the
Redis pub/sub layer (the configured one) every message of one broadcast goes out in a single
round trip from synchronous code (no event loop); a move-pool thread hands that work to its
process's broadcaster thread (``hand_off_to``).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings

from core import fastjson
from rooms import selectors
from rooms.models import SeatStatus, Table

log = logging.getLogger(__name__)


WATCH = "watch"  # the spectators' frame in a table.state message


def all_group(table_id: int) -> str:
    return f"table.{table_id}.all"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def dumps(payload: dict) -> str:
    """The one wire encoding of a frame (compact JSON)."""
    return fastjson.dumps(payload)


def table_changed(table: Table, *, events: list[dict], seats_changed: bool = False, host: str | None = "") -> None:
    """Send the table as committed, every message in one round trip: here, or on the thread this
    thread hands its broadcasts to (``hand_off_to``).

    Frames may overtake each other on their way; clients ignore a frame older than one seen.
    """
    if host == "":
        host = selectors.host_name(table)  # may query: on this thread, which holds the connection
    submit = getattr(_handoff, "submit", None)
    if submit is not None:
        submit(_send_table, table, events, seats_changed, host)
    else:
        _send_table(table, events, seats_changed, host)


_handoff = threading.local()


def hand_off_to(submit: Callable[..., Any] | None) -> None:
    """Have this thread's ``table_changed`` calls run by ``submit(fn, *args)`` instead of inline (None:
    inline again). The move pool's threads hand theirs to one broadcaster thread per process, so a
    thread is free for the next move as soon as its transaction commits: building every seat's frame
    and publishing them was a third of a move's time on the thread. One broadcaster keeps the order."""
    _handoff.submit = submit


def _send_table(table: Table, events: list[dict], seats_changed: bool, host: str | None) -> None:
    table_id = table.pk
    try:
        seats = selectors.seats_public(table)
        messages: list[tuple[str, dict]] = []
        if seats_changed:
            messages.append((all_group(table_id), {"type": "table.seats", "table": table_id,
                                                   "version": table.version}))
        messages.append((all_group(table_id), state_message(table, events=events, seats=seats, host=host)))
        publish(messages)
    except Exception:  # the layer is lossy by contract; clients resync on a version gap
        log.exception("broadcast for table %s failed", table_id)


def state_message(table: Table, *, events: list[dict], seats: list[dict], host: str | None) -> dict:
    """One layer message for every socket at the table: each seated player's `state` frame, keyed by
    their user id, and the spectators' (key "watch"), each serialised once, plus the public `event`
    frame that goes just before it and each seated player's seat number. Every ASGI process with a
    socket at the table receives it once; each socket forwards only its own user's frame, or the
    spectators' when its user holds no seat at that version (rooms.consumers). Keyed by user, not seat
    number: a socket may not have heard yet that the start renumbered the seats."""
    seat_of: dict[str, int] = {}
    for entry in table.seating:
        if entry["status"] == SeatStatus.SEATED and entry.get("user_id") is not None:
            seat_of[str(entry["user_id"])] = entry["seat"]
    viewers = [*seat_of, WATCH]
    built = selectors.table_frames(table=table, seat_numbers=[*seat_of.values(), None], seats=seats, host=host)
    frames = {viewer: dumps(frame) for viewer, frame in zip(viewers, built, strict=True)}
    events_text = dumps({"type": "event", "version": table.version, "events": events}) if events else None
    return {"type": "table.state", "table": table.pk, "version": table.version, "frames": frames, "seats": seat_of,
            "events": events_text}


def close_user_sockets(sender, request=None, user=None, **kwargs) -> None:
    """Logging out closes every table socket of that user (they were authenticated by the session)."""
    if user is None:
        return
    try:
        publish([(user_group(user.pk), {"type": "user.logout"})])
    except Exception:
        log.exception("could not close sockets of user %s", user.pk)


# ----- the transport --------------------------------------------------------------------

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
