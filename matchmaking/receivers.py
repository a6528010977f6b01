"""Signal receivers: rate a table once it has finished (after its commit)."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def rate_finished_table(sender, table_id: int | None = None, **kwargs) -> None:
    from matchmaking import services

    if not isinstance(table_id, int):
        return
    try:
        services.rate_table(table_id=table_id)
    except Exception:  # ratings must never break the move pipeline; a re-sent signal retries
        log.exception("rating table %s failed", table_id)


def leave_queue_on_deletion(sender, user, **kwargs) -> None:
    """An account being deleted gives up its quick-play queue place (in the deleting transaction)."""
    from matchmaking import services
    from matchmaking.errors import QueueError

    try:
        services.queue_leave(user=user)
    except QueueError:  # not queued
        pass
