"""Housekeeping, the timer's sweep: open registrations, start tournaments that are due, re-kick rounds."""

from __future__ import annotations

import logging
from datetime import datetime

from django.utils import timezone

from rooms.models import TableStatus
from tournaments.errors import TournamentError
from tournaments.models import Entry, Status, Tournament, TournamentTable
from tournaments.services.base import ACTIVE
from tournaments.services.rounds import advance, deal
from tournaments.services.schedule import open_registration
from tournaments.services.starting import start

log = logging.getLogger(__name__)


# ----- housekeeping (the timer sweep) ----------------------------------------------------------------

def housekeeping(*, now: datetime | None = None) -> dict:
    """Open registrations and start tournaments that are due; re-kick rounds whose tables all ended."""
    now = now or timezone.now()
    done = {"opened": 0, "started": 0, "advanced": 0}
    from django.db.models import Count, OuterRef, Q, Subquery

    for pk in Tournament.objects.filter(Q(registration_opens_at__lte=now) | Q(registration_opens_at__isnull=True),
                                        status=Status.ANNOUNCED).values_list("pk", flat=True):
        try:
            open_registration(tournament_id=pk)
            done["opened"] += 1
        except TournamentError:
            pass
    due = Tournament.objects.filter(status__in=[Status.ANNOUNCED, Status.REGISTERING], sit_and_go=False,
                                    starts_at__lte=now).values_list("pk", flat=True)
    # a sit & go whose bots' wait is over, or that is full but whose start failed (it starts at once)
    sit_and_go = Tournament.objects.filter(status=Status.REGISTERING, sit_and_go=True).filter(
        Q(bots_fill_at__lte=now, fill_with_bots=True) | Q(max_entrants__isnull=False, max_entrants__lte=Subquery(
            Entry.objects.filter(tournament=OuterRef("pk"), status__in=ACTIVE).order_by().values("tournament")
            .annotate(n=Count("pk")).values("n")[:1]))).values_list("pk", flat=True)
    for pk in [*due, *sit_and_go]:
        try:
            start(tournament_id=pk)
            done["started"] += 1
        except TournamentError as exc:  # e.g. another housekeeping pass started it first
            log.info("tournament %s not started: %s", pk, exc.code)
    for pk, dealt in Tournament.objects.filter(status=Status.RUNNING).values_list("pk", "round_dealt"):
        try:
            if not dealt:
                deal(tournament_id=pk, now=now)
                done["advanced"] += 1
                continue
            busy = TournamentTable.objects.filter(
                tournament_id=pk, broken=False, table__isnull=False,
                table__status__in=[TableStatus.OPEN, TableStatus.RUNNING]).exists()
            if not busy and advance(tournament_id=pk):
                done["advanced"] += 1
        except TournamentError as exc:  # e.g. a failed payout (recorded): the other tournaments go on
            log.warning("tournament %s not advanced: %s %s", pk, exc.code, exc.message)
    return done
