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


def table_changed(table_id: int, *, version: int, events: list[dict], seats_changed: bool = False) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        table = Table.objects.select_related("room", "host").get(pk=table_id)
    except Table.DoesNotExist:
        return
    if table.version != version and not table.ended:
        return  # a later commit's broadcast carries the newer state
    send = async_to_sync(layer.group_send)
    try:
        if seats_changed:
            send(all_group(table_id), {"type": "table.seats", "version": table.version})
        if events:
            send(all_group(table_id), {"type": "table.events", "version": table.version, "events": events})
        numbers = list(table.seats.filter(status=SeatStatus.SEATED).values_list("number", flat=True))
        for number in numbers:
            send(seat_group(table_id, number),
                 {"type": "table.state", "frame": selectors.table_frame(table=table, seat_number=number)})
        send(watch_group(table_id), {"type": "table.state", "frame": selectors.table_frame(table=table, seat_number=None)})
    except Exception:  # the layer is lossy by contract; clients resync on a version gap
        log.exception("broadcast for table %s failed", table_id)


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
