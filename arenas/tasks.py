"""Celery tasks (thin): score a finished arena game and pair its players again; housekeeping from the
timer sweep (start, bots fill after the wait, the end of the window, prizes)."""

from __future__ import annotations

import logging

from celery import shared_task

from arenas import services
from core.cache import cache

log = logging.getLogger(__name__)
KICK_KEY = "arenas:housekeeping-kick"


@shared_task(name="arenas.tasks.game_over", acks_late=True)
def game_over(table_id: int) -> bool:
    return services.game_over(table_id=table_id)


@shared_task(name="arenas.tasks.housekeeping")
def housekeeping() -> dict:
    return services.housekeeping()


def enqueue_game_over(table_id: int) -> None:
    game_over.delay(table_id)


def kick(*, interval_s: int = 1) -> bool:
    """Called by the timer sweep: at most one housekeeping pass per second, only while an arena is
    running or due to start, or a push was held back; never raises (the timer loop must keep sweeping)."""
    try:
        if not cache.add(KICK_KEY, 1, timeout=interval_s):
            return False
        from django.db.models import Q
        from django.utils import timezone

        from arenas.broadcast import HELD_BACK_KEY
        from arenas.models import Arena, Status

        due = cache.get(HELD_BACK_KEY) is not None or Arena.objects.filter(
            Q(status=Status.RUNNING) | Q(status=Status.SCHEDULED, starts_at__lte=timezone.now())).exists()
        if due:
            housekeeping.delay()
        return due
    except Exception:
        log.exception("arena housekeeping kick failed")
        return False
