"""Celery tasks (thin): advance a tournament after its tables end; housekeeping from the timer sweep."""

from __future__ import annotations

import logging

from celery import shared_task
from django.core.cache import cache

from tournaments import services

log = logging.getLogger(__name__)
KICK_KEY = "tournaments:housekeeping-kick"


@shared_task(name="tournaments.tasks.advance", acks_late=True)
def advance(tournament_id: int) -> bool:
    return services.advance(tournament_id=tournament_id)


@shared_task(name="tournaments.tasks.housekeeping")
def housekeeping() -> dict:
    return services.housekeeping()


def enqueue_advance(tournament_id: int) -> None:
    advance.delay(tournament_id)


def kick(*, interval_s: int = 1) -> bool:
    """Called by the timer sweep: at most one housekeeping pass per second, only when needed; never raises."""
    try:
        if not cache.add(KICK_KEY, 1, timeout=interval_s):
            return False
        from django.db.models import Q
        from django.utils import timezone

        from tournaments.models import Status, Tournament

        now = timezone.now()
        due = Tournament.objects.filter(
            Q(status=Status.RUNNING)
            | Q(status__in=[Status.ANNOUNCED, Status.REGISTERING], starts_at__lte=now)
            | Q(status=Status.ANNOUNCED, registration_opens_at__lte=now)
            | Q(status=Status.ANNOUNCED, registration_opens_at__isnull=True)).exists()
        if due:
            housekeeping.delay()
        return due
    except Exception:  # the timer loop must keep sweeping deadlines
        log.exception("tournament housekeeping kick failed")
        return False
