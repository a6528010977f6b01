"""Live pushes: the leaderboard to ``arena.<id>`` and "your next game" to each seated player.

Frames (docs/arenas.md, "Live"): ``{"type": "arena.standings", ...}`` (``selectors.live_snapshot``) to
every socket following the arena; ``{"type": "arena", "arena": id, "table": table_id, "url": ...}`` to
each seated human's ``rooms.broadcast.user_group``, which every table, queue, tournament and arena
socket of that user joins, so the page in front of the player follows it. It travels as the group
message type ``tournament.table``: every consumer in the user group forwards that type's frame as it
is (a message type a consumer has no handler for closes it, and the table and queue consumers are not
this app's), and the pages tell the frames apart by their own ``type``.

Each leaderboard push also updates the lobby's arena card: ``{"type": "arena.card", "card": {...}}``
(``selectors.lobby_card``) to the lobby socket's group (``tournaments.broadcast.LOBBY_GROUP``, the one
lobby socket ``/ws/tournaments/lobby/``, which sends the arena cards with its snapshot too). It travels
as the group message type ``tournament.card``, which that consumer forwards as it is.

The leaderboard is pushed at most once per ``ARENA_PUSH_INTERVAL_S`` (setting, default 1 s) per arena:
a change inside the interval marks the arena dirty (and raises one flag for all arenas, ``HELD_BACK_KEY``)
and the timer's housekeeping (every second while an arena runs, or while a push is held back) pushes it,
a scheduled arena's too (its joins: "12 registered" on the lobby card). Starting, finishing and cancelling push at once. The layer is lossy: pages
re-read the snapshot on (re)connect.
"""

from __future__ import annotations

import logging
import math

from django.conf import settings

from core.cache import cache
from rooms.broadcast import publish, user_group

log = logging.getLogger(__name__)

USER_MESSAGE = "tournament.table"  # the user group's forwarding type (above)
LOBBY_MESSAGE = "tournament.card"  # the lobby group's forwarding type (above)
HELD_BACK_KEY = "arenas:held-back"  # some arena has a push held back (the timer's kick looks here)


def group(arena_id: int) -> str:
    return f"arena.{arena_id}"


def _interval() -> float:
    return float(getattr(settings, "ARENA_PUSH_INTERVAL_S", 1.0))


def _dirty_key(arena_id: int) -> str:
    return f"arenas:dirty:{arena_id}"


def seat_frame(*, arena_id: int, table_id: int) -> dict:
    from arenas.selectors import play_url

    return {"type": "arena", "arena": arena_id, "table": table_id, "url": play_url(arena_id=arena_id)}


def _may_push(arena_id: int) -> bool:
    interval = _interval()
    if interval <= 0:
        return True
    if cache.add(f"arenas:pushed:{arena_id}", 1, timeout=max(1, math.ceil(interval))):
        return True
    cache.set_many({_dirty_key(arena_id): 1, HELD_BACK_KEY: 1}, timeout=60)
    return False


def arena_changed(arena_id: int, *, seated: list[tuple[int, int]] = (), force: bool = False) -> None:
    """``seated``: (user id, rooms table id) of every human just seated at a new game."""
    from arenas import selectors

    try:
        messages = [(user_group(user_id), {"type": USER_MESSAGE,
                                           "frame": seat_frame(arena_id=arena_id, table_id=table_id)})
                    for user_id, table_id in seated]
        if force or _may_push(arena_id):
            frame = selectors.live_snapshot(arena_id=arena_id)
            messages.append((group(arena_id), {"type": "arena.standings", "frame": frame}))
            messages.append(lobby_message(arena_id))
        if messages:
            publish(messages)
    except Exception:  # lossy by contract: the page re-reads the snapshot on (re)connect
        log.exception("arena %s push failed", arena_id)


def lobby_message(arena_id: int) -> tuple[str, dict]:
    """The lobby card's push: the arena's card to the lobby socket's group."""
    from arenas import selectors
    from arenas.models import Arena
    from tournaments.broadcast import LOBBY_GROUP

    card = selectors.lobby_card(arena=Arena.objects.get(pk=arena_id))
    return LOBBY_GROUP, {"type": LOBBY_MESSAGE, "frame": {"type": "arena.card", "card": card}}


def held_back() -> bool:
    """Whether a push was held back since the last look (the flag is cleared: marks after this raise it again)."""
    return bool(cache.delete(HELD_BACK_KEY))


def flush(arena_id: int) -> None:
    """Push the leaderboard if a change was held back by the interval (housekeeping, every second)."""
    try:
        if cache.delete(_dirty_key(arena_id)):
            arena_changed(arena_id, force=True)
    except Exception:
        log.exception("arena %s push failed", arena_id)
