"""Harness fixtures: nothing is queued to Celery unless a test asks for the real worker."""

from __future__ import annotations

import pytest


@pytest.fixture
def inline_moves(monkeypatch):
    """Moves from the consumer are applied in process by the real task body (no broker, no worker)."""
    from gameworkers import tasks
    from rooms import consumers

    applied: list[tuple] = []

    def enqueue(table_id, seat, version, move, client_id, reply_channel, user_id=None):
        applied.append((table_id, seat, version, move))
        tasks.apply_move(table_id, seat, version, move, client_id, reply_channel, user_id)

    monkeypatch.setattr(tasks, "enqueue_move", enqueue)
    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)
    # The fuzzer wants to reach validation, not the rate limiter (tested on its own below).
    monkeypatch.setattr(consumers, "RATE_CAPACITY", 10**9)
    monkeypatch.setattr(consumers, "RATE_PER_SECOND", 10.0**9)
    return applied
