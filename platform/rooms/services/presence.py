"""Presence: which seated players' table sockets are connected (in the cache), told to the table."""

from __future__ import annotations

import logging

from core.cache import cache
from rooms import selectors
from rooms.errors import TableError
from rooms.models import SeatStatus, Table, TableStatus
from rooms.services.base import now_ms

log = logging.getLogger(__name__)

PRESENCE_KEEP_S = 6 * 3600  # how long a table remembers a user's sockets (a dropped one shows "reconnecting…")
CONNECTION_CHANGES = ("open", "alive", "close")


def table_connection(*, table_id: int, user_id: int, change: str) -> None:
    """A table socket of a seated user opened (``change`` "open"), said it is alive ("alive", every 20 s),
    or closed ("close"): counted in the cache (``selectors.presence``), where the timer looks when that
    seat's time runs out (the grace, ``table_fire_deadline``). When the user's last socket closes at a
    running table the others hear it (a ``presence`` frame: "reconnecting…"), and when one opens again
    too. A drop itself changes no deadline: a page reload must not buy time."""
    if change not in CONNECTION_CHANGES:
        raise TableError("bad_connection_change", f"A connection change is one of {', '.join(CONNECTION_CHANGES)}.")
    count_key, seen_key = selectors.presence_keys(table_id=table_id, user_id=user_id)
    now = now_ms()
    if change == "alive":
        tables_alive(connections=[(table_id, user_id)], keep_counts=True)
        return
    try:
        found = cache.get_many([count_key, seen_key])
        before = selectors.presence_state(found.get(count_key), found.get(seen_key), now_ms=now)
        if change == "open":
            cache.add(count_key, 0, PRESENCE_KEEP_S)
            count = _cache_add_to(count_key, 1)
            cache.set(seen_key, now, PRESENCE_KEEP_S)
            seen = now
        else:
            count, seen = _cache_add_to(count_key, -1), found.get(seen_key)
    except Exception:  # the cache is down: presence is a courtesy, never a reason to fail a socket
        return
    after = selectors.presence_state(count, seen, now_ms=now)
    if before is None or before == after:
        return  # nothing the others need to hear (a first connect is not a return)
    seating = Table.objects.filter(pk=table_id, status=TableStatus.RUNNING).values_list("seating", flat=True).first()
    seat = next((e["seat"] for e in seating or []
                 if e["user_id"] == user_id and e["status"] == SeatStatus.SEATED and not e["bot"]), None)
    if seat is None:
        return
    from rooms import broadcast

    try:
        broadcast.publish([(broadcast.all_group(table_id), {"type": "table.presence", "table": table_id,
                                                            "seat": seat, "connected": after == selectors.ONLINE})])
    except Exception:  # the layer is lossy by contract; a snapshot carries ``away`` again
        log.warning("presence of table %s not sent", table_id, exc_info=True)


def tables_alive(*, connections: list[tuple[int, int]], keep_counts: bool = False) -> None:
    """The sockets of these (table, user) pairs are alive: their last-heard time is now, in one cache round
    trip for all of them (an ASGI process says it for all its seated sockets every 20 s). With
    ``keep_counts``, their socket counts' lifetimes are renewed too (one round trip each; ``PRESENCE_KEEP_S``
    is hours, so a process does it only now and then)."""
    if not connections:
        return
    now = now_ms()
    keys = [selectors.presence_keys(table_id=table_id, user_id=user_id) for table_id, user_id in connections]
    try:
        cache.set_many({seen_key: now for _, seen_key in keys}, PRESENCE_KEEP_S)
        if keep_counts:
            for count_key, _ in keys:
                cache.touch(count_key, PRESENCE_KEEP_S)
    except Exception:  # the cache is down: presence is a courtesy
        log.warning("presence of %s table sockets not refreshed", len(connections), exc_info=True)


def _cache_add_to(key: str, delta: int) -> int:
    """The count after an atomic increment (never below 0); a count that expired starts again."""
    try:
        count = cache.incr(key, delta)
    except ValueError:  # gone since it was read
        count = max(0, delta)
        cache.set(key, count, PRESENCE_KEEP_S)
        return count
    if count < 0:  # a close whose open was counted before the cache was emptied
        cache.set(key, 0, PRESENCE_KEEP_S)
        count = 0
    return count
