"""Harness fixtures: nothing is queued to Celery unless a test asks for the real worker."""

from __future__ import annotations

import pytest


@pytest.fixture
def inline_moves(monkeypatch):
    """Moves from the consumer are applied by the real move pool and recorded; nothing goes to Celery."""
    from gameworkers import tasks
    from live import consumers, move_pool

    applied: list[tuple] = []
    play = move_pool.play

    def recording_play(*, table_id, seat_number, move, expected_version, user_id):
        applied.append((table_id, seat_number, expected_version, move))
        return play(table_id=table_id, seat_number=seat_number, move=move, expected_version=expected_version,
                    user_id=user_id)

    monkeypatch.setattr(move_pool, "play", recording_play)
    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)
    # The fuzzer wants to reach validation, not the rate limiter (tested on its own below).
    monkeypatch.setattr(consumers.TableConsumer, "rate_capacity", 10**9)
    monkeypatch.setattr(consumers.TableConsumer, "rate_per_second", 10.0**9)
    return applied
