"""After-commit fan-out: each seat its own view, spectators the public one.

Group names: ``table.<id>.seat.<n>`` for a seat, ``table.<id>.watch`` for spectators and
``table.<id>.all`` for notices every socket at the table needs (seat changes).
The channel layer is lossy: every frame carries the version, and a client that sees a gap
asks for a resync.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from rooms import selectors
from rooms.models import SeatStatus, Table

log = logging.getLogger(__name__)


def seat_group(table_id: int, seat: int) -> str:
    return f"table.{table_id}.seat.{seat}"


def watch_group(table_id: int) -> str:
    return f"table.{table_id}.watch"


def all_group(table_id: int) -> str:
    return f"table.{table_id}.all"


def table_changed(table: Table, *, events: list[dict], seats_changed: bool = False) -> None:
    """Send the table as committed: one async round trip for every group send.

    Frames may overtake each other on their way; clients ignore a frame older than one seen.
    """
    layer = get_channel_layer()
    if layer is None:
        return
    table_id = table.pk
    seats = selectors.seats_public(table)
    host = selectors.host_name(table)
    messages: list[tuple[str, dict]] = []
    if seats_changed:
        messages.append((all_group(table_id), {"type": "table.seats", "version": table.version}))
    if events:
        messages.append((all_group(table_id), {"type": "table.events", "version": table.version, "events": events}))
    for seat in seats:
        if seat["status"] == SeatStatus.SEATED:
            frame = selectors.table_frame(table=table, seat_number=seat["seat"], seats=seats, host=host)
            messages.append((seat_group(table_id, seat["seat"]), {"type": "table.state", "frame": frame}))
    frame = selectors.table_frame(table=table, seat_number=None, seats=seats, host=host)
    messages.append((watch_group(table_id), {"type": "table.state", "frame": frame}))
    try:
        async_to_sync(_send_all)(layer, messages)
    except Exception:  # the layer is lossy by contract; clients resync on a version gap
        log.exception("broadcast for table %s failed", table_id)


async def _send_all(layer, messages: list[tuple[str, dict]]) -> None:
    for group, message in messages:
        await layer.group_send(group, message)


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def close_user_sockets(sender, request=None, user=None, **kwargs) -> None:
    """Logging out closes every table socket of that user (they were authenticated by the session)."""
    if user is None:
        return
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(user_group(user.pk), {"type": "user.logout"})
    except Exception:
        log.exception("could not close sockets of user %s", user.pk)
