"""Celery tasks (thin): the matcher pass, seating one match, pushing a room's queue positions.

``kick_matcher`` is what the timer process calls every sweep: it enqueues at most one matcher
pass per ``MATCHMAKING_INTERVAL_S`` (a cache lock), and only when someone is waiting.
"""

from __future__ import annotations

import logging

from celery import shared_task

from core.cache import cache
from matchmaking import conf, services
from matchmaking.models import EntryStatus, MatchStatus, QueueEntry

log = logging.getLogger(__name__)
KICK_KEY = "matchmaking:matcher-kick"


@shared_task(name="matchmaking.tasks.run_matcher")
def run_matcher() -> int:
    return len(services.match_pass())


@shared_task(name="matchmaking.tasks.seat_match", acks_late=True)
def seat_match(match_id: int) -> str:
    match = services.seat_match(match_id=match_id)
    return match.status if match is not None else "missing"


@shared_task(name="matchmaking.tasks.push_room")
def push_room(room_id: int) -> None:
    from matchmaking import broadcast

    broadcast.push_room(room_id)


def enqueue_seat_match(match_id: int) -> None:
    seat_match.delay(match_id)


def enqueue_room_push(room_id: int) -> None:
    """Fresh positions for a room, at most once per second per room (a busy room forms many tables)."""
    if room_push_due(room_id):
        push_room.delay(room_id)


def room_push_due(room_id: int) -> bool:
    try:
        return bool(cache.add(f"matchmaking:room-push:{room_id}", 1, timeout=1))
    except Exception:  # no cache: push anyway
        return True


def kick_matcher(*, force: bool = False) -> bool:
    """Enqueue a matcher pass (at most one per interval unless ``force``); never raises."""
    try:
        if not force:
            if not cache.add(KICK_KEY, 1, timeout=max(1, round(conf.MATCHER_INTERVAL_S))):
                return False
            from matchmaking.models import Match

            if not (QueueEntry.objects.filter(status=EntryStatus.WAITING).exists()
                    or Match.objects.filter(status=MatchStatus.PENDING).exists()):
                return False
        run_matcher.delay()
        return True
    except Exception:  # the timer loop must keep sweeping deadlines
        log.exception("could not enqueue the matcher")
        return False
