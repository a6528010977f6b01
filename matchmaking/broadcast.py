"""After-commit pushes of `queue` frames to each player's group ``queue.user.<id>``, and the lobby's
"Live now" list to the lobby's queue sockets (``LiveNowFeed``)."""

from __future__ import annotations

import asyncio
import logging

from channels.db import database_sync_to_async
from django.utils import timezone

from core.loops import one_per_loop
from matchmaking import selectors
from matchmaking.models import EntryStatus, QueueEntry
from rooms import selectors as room_selectors
from rooms.broadcast import dumps, publish

log = logging.getLogger(__name__)

LIVE_REFRESH_S = 10.0  # how often an ASGI process reads "Live now" again for its open lobbies


def queue_group(user_id: int) -> str:
    return f"queue.user.{user_id}"


def _send(pairs: list[tuple[int, dict]]) -> None:
    try:
        publish([(queue_group(user_id), {"type": "queue.frame", "frame": frame}) for user_id, frame in pairs])
    except Exception:  # the layer is lossy by contract; clients resync
        log.exception("queue push to %s players failed", len(pairs))


def push_entries(entry_ids: list[int]) -> None:
    entries = QueueEntry.objects.filter(pk__in=entry_ids).select_related("room")
    now = timezone.now()
    _send([(e.user_id, selectors.queue_frame(entry=e, now=now)) for e in entries])


def push_room(room_id: int) -> None:
    """Fresh positions and estimates for everyone still waiting in a room."""
    entries = list(QueueEntry.objects.filter(room_id=room_id, status=EntryStatus.WAITING)
                   .select_related("room").order_by("joined_at", "pk"))
    if not entries:
        return
    now = timezone.now()
    room = entries[0].room
    typical = selectors.typical_wait(room=room)
    frames = []
    for position, entry in enumerate(entries, start=1):
        waited = max(0.0, (now - entry.joined_at).total_seconds())
        frame = {
            **_light_frame(entry, now), "position": position, "waiting": len(entries), "waited": round(waited),
            "estimated_wait": selectors.estimated_wait(room=room, waited=waited, typical=typical),
            "bots_after": 0 if room.bots_only else room.fill_delay_seconds}
        frames.append((entry.user_id, frame))
    _send(frames)


def _light_frame(entry: QueueEntry, now) -> dict:
    return {"type": "queue", "status": entry.status, "entry": entry.pk, "room": entry.room.slug,
            "game": entry.room.game, "party": entry.party or None, "joined_at": entry.joined_at.isoformat(),
            "server_time": now.isoformat()}


# ----- the lobby's "Live now" ------------------------------------------------------------------

class LiveNowFeed:
    """The lobby's "Live now" list (``rooms.selectors.live_tables``) for the lobby sockets of one event loop:
    read once per ``LIVE_REFRESH_S`` for all of them (one query and one Redis round trip per process, however
    many lobbies are open), sent to each socket when it joins and then only when the list changed.

    Read on a timer rather than pushed at each table's start and finish: site-wide those come several times
    a second under load, each a whole list for every open lobby, and a list at most ten seconds old is
    enough to pick a table to watch (its spectator counts change even more often)."""

    def __init__(self) -> None:
        self.sockets: set = set()
        self.text: str | None = None
        self.read_at = float("-inf")
        self._reading: asyncio.Task | None = None
        self._ticker: asyncio.Task | None = None

    async def join(self, socket) -> None:
        """Follow the list on ``socket`` (which has ``push_live(text)``), starting with it as it is."""
        self.sockets.add(socket)
        if self._ticker is None or self._ticker.done():
            self._ticker = asyncio.get_running_loop().create_task(self._tick(), name="live-now")
        try:
            text = await self.current()
        except Exception:  # the database is away: the list follows with the next read
            log.warning("live now: could not read the list", exc_info=True)
            return
        socket.push_live(text)

    def leave(self, socket) -> None:
        self.sockets.discard(socket)
        if not self.sockets:
            self.text = None  # the next lobby after a quiet spell reads a fresh list

    async def current(self) -> str:
        """The `live_now` frame as last read, read again once older than LIVE_REFRESH_S (one read at a time)."""
        loop = asyncio.get_running_loop()
        if self.text is not None and loop.time() - self.read_at < LIVE_REFRESH_S:
            return self.text
        if self._reading is None or self._reading.done():
            self._reading = loop.create_task(self._read())
        return await asyncio.shield(self._reading)

    async def _read(self) -> str:
        games = await database_sync_to_async(room_selectors.live_tables)()
        self.text = dumps({"type": "live_now", "games": games})
        self.read_at = asyncio.get_running_loop().time()
        return self.text

    async def _tick(self) -> None:
        while self.sockets:
            await asyncio.sleep(LIVE_REFRESH_S)
            before = self.text
            try:
                text = await self.current()
            except Exception:  # the database is away: the lobbies keep the list they have
                log.warning("live now: could not read the list", exc_info=True)
                continue
            if text != before:
                for socket in tuple(self.sockets):
                    socket.push_live(text)


live_feed = one_per_loop(LiveNowFeed)  # this event loop's feed
