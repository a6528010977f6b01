from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from matchmaking import services


def run_matcher(now: datetime | None = None) -> list:
    """One matcher pass, then seat every match it formed (what the Celery tasks do)."""
    return [services.seat_match(match_id=m) for m in services.match_pass(now=now)]


def later(seconds: float) -> datetime:
    return timezone.now() + timedelta(seconds=seconds)
