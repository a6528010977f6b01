"""Signal receivers: a finished table of a tournament asks the tournament to advance (after commit)."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def table_finished(sender, table_id: int | None = None, **kwargs) -> None:
    from tournaments.models import TournamentTable

    if not isinstance(table_id, int):
        return
    try:
        tournament_id = (TournamentTable.objects.filter(table_id=table_id)
                         .values_list("tournament_id", flat=True).first())
        if tournament_id is None:
            return
        from tournaments import tasks

        tasks.enqueue_advance(tournament_id)
    except Exception:  # the move pipeline must never fail for a tournament; housekeeping retries
        log.exception("tournament advance for table %s failed", table_id)
