"""Signal receivers: a finished arena game is scored and its players paired again (a Celery task)."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def table_finished(sender, table_id: int | None = None, **kwargs) -> None:
    from arenas.models import ArenaGame

    if not isinstance(table_id, int):
        return
    try:
        if not ArenaGame.objects.filter(table_id=table_id, scored=False).exists():
            return
        from arenas import tasks

        tasks.enqueue_game_over(table_id)
    except Exception:  # the move pipeline must never fail for an arena; housekeeping scores it
        log.exception("arena game over for table %s failed", table_id)
