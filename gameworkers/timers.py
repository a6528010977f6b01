"""The deadline sweep: the database is the source of truth, not countdown tasks.

``runtimers`` calls ``sweep`` a few times a second. Each due deadline is claimed with a
conditional update and handed to a worker; the firing task does nothing if the table's
version moved on, so two timer processes (or a re-claim after a lost task) are harmless.
"""

from __future__ import annotations

from rooms import services


def sweep() -> int:
    from gameworkers import tasks
    from matchmaking.tasks import kick_matcher

    kick_matcher()  # at most one matcher pass per second (cache lock), only when someone waits
    from tournaments.tasks import kick as kick_tournaments

    kick_tournaments()  # tournament housekeeping at most once a second, only when one is due or running
    claimed = services.due_tables()
    for table_id, version in claimed:
        tasks.fire_deadline.delay(table_id, version)
    return len(claimed)
