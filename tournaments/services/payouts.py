"""Finishing a tournament: the prizes paid from the pool (``tournaments.money``)."""

from __future__ import annotations

import logging

from django.utils import timezone

from tournaments import logic, money
from tournaments.errors import TournamentError
from tournaments.models import HOLDING, Entry, Status, Tournament

log = logging.getLogger(__name__)


class PayoutError(TournamentError):
    """Paying the prizes failed: the finish is rolled back and the failure is recorded on the tournament."""


# ----- finishing ---------------------------------------------------------------------------------------

def _finish_locked(tournament: Tournament) -> None:
    """Pay the prizes: pool = what the entries paid less rake, split by the payout structure's row for
    the number of entries; shared places split (``logic.split_places``)."""
    placed = list(tournament.entries.filter(place__isnull=False).select_related("user"))
    pool = sum(tournament.entries.filter(status__in=HOLDING).values_list("paid", flat=True))
    from wallets.services import rake_of

    rake = rake_of(pot=pool, rake_bps=tournament.rake_bps)
    # the tournament's payout structure (frozen at the first registration) for the entries it counted
    prizes = logic.prize_table(pool=pool - rake, entrants=tournament.entrants, rows=tournament.payout_rows_now())
    if tournament.team_size > 1:
        # Baloot: a team holds a place; its prize is split between its two players
        team_places = {e.team: e.place for e in placed}
        team_prize = logic.split_places(places=team_places, prizes=prizes, seats={u: u for u in team_places})
        paid: dict[int, int] = {}
        for unit, amount in team_prize.items():
            members = sorted([e for e in placed if e.team == unit], key=lambda e: e.pk)
            share, remainder = divmod(amount, len(members))
            for index, entry in enumerate(members):
                paid[entry.pk] = share + (remainder if index == 0 else 0)
    else:
        paid = logic.split_places(places={e.pk: e.place for e in placed}, prizes=prizes,
                                  seats={e.pk: e.out_seat or 0 for e in placed})
    by_pk = {e.pk: e for e in placed}
    short = (pool - rake) - sum(paid.values())
    if short and placed:  # nobody covers a prize place (cannot happen with a full ranking): to first
        first = min(placed, key=lambda e: (e.place, e.pk))
        paid[first.pk] = paid.get(first.pk, 0) + short
    try:
        money.pay_prizes(tournament=tournament, rake=rake,
                         prizes={by_pk[pk]: amount for pk, amount in paid.items()})
    except TournamentError as exc:
        log.error("tournament %s: paying the prizes failed: %s %s", tournament.pk, exc.code, exc.message)
        raise PayoutError(exc.code, exc.message) from exc
    for pk, amount in paid.items():
        Entry.objects.filter(pk=pk).update(prize=amount)
    tournament.status = Status.FINISHED
    tournament.finished_at = timezone.now()
    tournament.pool = pool - rake
    tournament.payout_error, tournament.payout_failed_at = "", None
    tournament.save(update_fields=["status", "finished_at", "pool", "payout_error", "payout_failed_at"])
