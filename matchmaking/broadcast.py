"""After-commit pushes of `queue` frames to each player's group ``queue.user.<id>``."""

from __future__ import annotations

import logging

from django.utils import timezone

from matchmaking import selectors
from matchmaking.models import EntryStatus, QueueEntry
from rooms.broadcast import publish

log = logging.getLogger(__name__)


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
