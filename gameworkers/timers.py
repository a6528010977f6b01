"""The deadline sweep: the database is the source of truth, not countdown tasks.

``runtimers`` calls ``sweep`` a few times a second. Each due deadline is claimed with a
conditional update and handed to a worker; the firing task does nothing if the table's
version moved on, so two timer processes (or a re-claim after a lost task) are harmless.
"""

from __future__ import annotations

import os
import socket

from rooms import services

RECLAIM_BELOW = 50  # tasks waiting in the moves queue

# One timer sweeps at a time, holding a lease in the cache it renews at every sweep; the others stand
# by and take the lease over when it has not been renewed for LEASE_S (a frozen or dead timer). Two
# sweeping at once would be harmless (claims are conditional updates), only wasteful.
LEASE_KEY = "timers:lease"
LEASE_S = 2  # whole seconds (the cache rounds a timeout down)


def timer_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def hold_lease(name: str) -> bool:
    """Whether this timer should sweep now: it holds the lease (renewed) or took over an expired one.
    With the cache down every timer sweeps (safe) rather than none."""
    from django.core.cache import cache

    try:
        if cache.add(LEASE_KEY, name, timeout=LEASE_S):
            return True
        if cache.get(LEASE_KEY) == name:
            cache.set(LEASE_KEY, name, timeout=LEASE_S)
            return True
        return False
    except Exception:
        return True


_broker: list = []  # one client for the life of the timer process (it sweeps ten times a second)


def queue_backlog() -> int:
    """Tasks waiting in the broker's moves queue (0 when it cannot be read)."""
    import redis
    from django.conf import settings

    try:
        if not _broker:
            _broker.append(redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1))
        return int(_broker[0].llen(settings.CELERY_TASK_DEFAULT_QUEUE))
    except Exception:
        return 0


def sweep() -> int:
    from gameworkers import tasks
    from matchmaking.tasks import kick_matcher

    kick_matcher()  # at most one matcher pass per second (cache lock), only when someone waits
    from tournaments.tasks import kick as kick_tournaments

    kick_tournaments()  # tournament housekeeping at most once a second, only when one is due or running
    from arenas.tasks import kick as kick_arenas

    kick_arenas()  # arena housekeeping (start, bots fill, the window's end) at most once a second
    # While the workers are behind, deadlines already handed to them are not handed out again:
    # re-claiming is only for tasks lost with a dead worker, and it would snowball a backlog.
    claimed = services.due_tables(reclaim=queue_backlog() < RECLAIM_BELOW)
    for table_id, version in claimed:
        tasks.fire_deadline.delay(table_id, version)
    return len(claimed)
