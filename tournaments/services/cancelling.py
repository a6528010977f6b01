"""Cancelling a tournament: the entries of players still in come back; its tables stop."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from core.transactions import after_commit
from rooms import services as rooms_services
from rooms.errors import TableError
from rooms.models import ENDED_STATUSES, StopReason
from tournaments import money
from tournaments.errors import TournamentError
from tournaments.models import Entry, EntryStatus, Status, Tournament
from tournaments.services.base import ACTIVE, _after_commit_push, _lock
from tournaments.services.schedule import _open_next_sit_and_go, _schedule_next

# ----- cancel ------------------------------------------------------------------------------------

def cancel(*, tournament_id: int, reason: str = "staff", by=None) -> Tournament:
    """Before the start every entry comes back; after it, the entries of players still in, nothing split."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        if by is not None and not by.is_staff:
            raise TournamentError("not_staff", "Only staff can cancel tournaments.")
        _cancel_locked(tournament, reason)
    return tournament


def _cancel_locked(tournament: Tournament, reason: str, detail: dict | None = None) -> None:
    """``detail``: numbers that say why (too few entrants: registered and minimum); the page words them."""
    if tournament.status in (Status.FINISHED, Status.CANCELLED):
        raise TournamentError("tournament_over", "This tournament is over.")
    started = tournament.status == Status.RUNNING
    refund = list(tournament.entries.filter(status__in=ACTIVE).select_related("user").order_by("pk"))
    money.cancel(tournament=tournament, refund_entries=refund)
    Entry.objects.filter(pk__in=[e.pk for e in refund]).update(status=EntryStatus.REFUNDED, table=None)
    tournament.status = Status.CANCELLED
    tournament.cancel_reason = reason[:40]
    tournament.cancel_detail = {**(detail or {}), "started": started, "refunded": len(refund),
                                "refund": sum(e.paid for e in refund)}
    tournament.finished_at = timezone.now()
    tournament.next_deal_at = None
    tournament.save(update_fields=["status", "cancel_reason", "cancel_detail", "finished_at", "next_deal_at"])
    if started:
        for tt in tournament.tables.filter(table__isnull=False).select_related("table"):
            if tt.table.status not in ENDED_STATUSES:
                table_id = tt.table_id
                after_commit(_stop_table, table_id)
    _schedule_next(tournament)
    if reason == "too_few_entrants":
        _open_next_sit_and_go(tournament)  # bots could not fill it: the sit & go stays on offer
    _after_commit_push(tournament.pk)


def _stop_table(table_id: int) -> None:
    try:
        rooms_services.table_stop(table_id=table_id, reason=StopReason.STAFF)  # the platform stops it
    except TableError:
        pass
