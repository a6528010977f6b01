"""Fixtures of the live-path tests (the same players and room as the rooms tests use)."""

from __future__ import annotations

import pytest

from accounts.services import user_create
from rooms.models import Room


@pytest.fixture
def make_user(db):
    counter = {"n": 0}

    def make(name: str | None = None, **kw):
        counter["n"] += 1
        return user_create(username=name or f"player{counter['n']}", password="pass-word-123", **kw)

    return make


@pytest.fixture
def lembar_room(db):
    return Room.objects.create(name="Lembar test", slug="lembar-test", game="lembar", seats=4, min_seats=2,
                               turn_seconds=20)


@pytest.fixture(autouse=True)
def no_bot_turns(monkeypatch):
    """These tests drive every seat themselves; nothing is queued to Celery."""
    from gameworkers import tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)
