"""Celery tasks (thin): advance a tournament after its tables end, deal the next hand after the pause
between hands, housekeeping from the timer sweep."""

from __future__ import annotations

import logging

from celery import shared_task

from core.cache import cache
from tournaments import services

log = logging.getLogger(__name__)
KICK_KEY = "tournaments:housekeeping-kick"


@shared_task(name="tournaments.tasks.advance", acks_late=True)
def advance(tournament_id: int) -> bool:
    return services.advance(tournament_id=tournament_id)


@shared_task(name="tournaments.tasks.deal", acks_late=True)
def deal(tournament_id: int) -> int:
    return len(services.deal(tournament_id=tournament_id))


@shared_task(name="tournaments.tasks.housekeeping")
def housekeeping() -> dict:
    return services.housekeeping()


def enqueue_advance(tournament_id: int) -> None:
    advance.delay(tournament_id)


def enqueue_deal(tournament_id: int, delay_s: float) -> None:
    """Deal the next hand once the pause is over (``deal`` refuses before ``next_deal_at``)."""
    deal.apply_async((tournament_id,), countdown=max(0.0, delay_s))


def kick(*, interval_s: int = 1) -> bool:
    """Called by the timer sweep: at most one housekeeping pass per second, only when needed; never raises."""
    try:
        if not cache.add(KICK_KEY, 1, timeout=interval_s):
            return False
        from django.db.models import Count, OuterRef, Q, Subquery
        from django.utils import timezone

        from tournaments.models import Entry, EntryStatus, Status, Tournament

        now = timezone.now()
        players = (Entry.objects.filter(tournament=OuterRef("pk"), status__in=[EntryStatus.REGISTERED,
                                                                               EntryStatus.PLAYING])
                   .order_by().values("tournament").annotate(n=Count("pk")).values("n")[:1])
        due = Tournament.objects.filter(
            Q(status=Status.RUNNING)
            | Q(status__in=[Status.ANNOUNCED, Status.REGISTERING], starts_at__lte=now, sit_and_go=False)
            # a sit & go whose bots are due, or full but not started (its start failed)
            | Q(status=Status.REGISTERING, sit_and_go=True, fill_with_bots=True, bots_fill_at__lte=now)
            | Q(status=Status.REGISTERING, sit_and_go=True, max_entrants__lte=Subquery(players))
            | Q(status=Status.ANNOUNCED, registration_opens_at__lte=now)
            | Q(status=Status.ANNOUNCED, registration_opens_at__isnull=True)).exists()
        if due:
            housekeeping.delay()
        return due
    except Exception:  # the timer loop must keep sweeping deadlines
        log.exception("tournament housekeeping kick failed")
        return False
