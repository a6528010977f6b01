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
import threading
from collections.abc import Callable
from typing import Any

from core import fastjson
from live.transport import publish, pubsub_channel  # noqa: F401  (re-exported: callers publish through here)
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
    spectators' when its user holds no seat at that version (live.consumers). Keyed by user, not seat
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
