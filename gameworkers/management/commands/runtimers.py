"""The turn-timer process: polls due deadlines and enqueues automatic moves.

Run two or more: one sweeps (it holds a lease in the cache), the others take over within
``timers.LEASE_S`` when it stalls. Firing is idempotent anyway (keyed on table and version).
"""

from __future__ import annotations

import logging
import signal
import time

from django.core.management.base import BaseCommand
from django.db import close_old_connections

log = logging.getLogger("gameworkers.timers")


class Command(BaseCommand):
    help = "Fire due turn deadlines (poll loop)."

    def add_arguments(self, parser):
        parser.add_argument("--interval", type=float, default=0.2, help="seconds between polls")
        parser.add_argument("--once", action="store_true", help="one sweep, then exit")

    def handle(self, *args, interval, once, **kw):
        from core import health
        from gameworkers import timers

        running = True

        def stop(*_):
            nonlocal running
            running = False

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        failures = 0
        held = False
        name = timers.timer_name()
        while running:
            try:
                # Standing by while another timer holds the lease; taking over when it stops renewing.
                held = once or timers.hold_lease(name)
                if held:
                    timers.sweep()
                    if once or timers.due_here("heartbeat", timers.HEARTBEAT_EVERY_S):
                        health.timer_beat(name)
                failures = 0
            except Exception:
                # A Redis restart or a dropped database connection must not kill the timer: the
                # deadlines are in the database, so the next sweep after recovery catches up.
                failures += 1
                log.exception("timer sweep failed (%s in a row); retrying", failures)
                close_old_connections()
                if once:
                    raise
                time.sleep(min(5.0, interval * 2 ** min(failures, 5)))
                continue
            if once:
                break
            timers.pause(interval, bots=held)  # the lease holder hands out due bot turns meanwhile
