"""The turn-timer process: polls due deadlines and enqueues automatic moves.

Safe to run more than once: firing is idempotent (keyed on table and version).
"""

from __future__ import annotations

import signal
import time

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Fire due turn deadlines (poll loop)."

    def add_arguments(self, parser):
        parser.add_argument("--interval", type=float, default=0.2, help="seconds between polls")
        parser.add_argument("--once", action="store_true", help="one sweep, then exit")

    def handle(self, *args, interval, once, **kw):
        from gameworkers import timers

        running = True

        def stop(*_):
            nonlocal running
            running = False

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        while running:
            timers.sweep()
            if once:
                break
            time.sleep(interval)
