from __future__ import annotations

import pytest

from accounts.services import bot_create, user_create
from rooms.models import Room


@pytest.fixture
def make_user(db):
    counter = {"n": 0}

    def make(name: str | None = None, **kw):
        counter["n"] += 1
        return user_create(username=name or f"player{counter['n']}", password="pass-word-123", **kw)

    return make


@pytest.fixture
def bots(db):
    return [bot_create(username=f"bot{i}", display_name=f"Bot {i}", style="random", description="Random.")
            for i in range(6)]


@pytest.fixture
def lembar_room(db):
    return Room.objects.create(name="Lembar test", slug="lembar-test", game="lembar", seats=4, min_seats=2,
                               turn_seconds=20)


@pytest.fixture
def started_table(make_user):
    """A running two-player table of ``room``, hosted by its first player."""
    from rooms import services
    from rooms.models import Table

    def start(room) -> Table:
        a, b = make_user(), make_user()
        table = services.table_open(room=room, host=a)
        services.table_sit(table_id=table.pk, user=a)
        services.table_sit(table_id=table.pk, user=b)
        services.table_start(table_id=table.pk, by=a)
        table.refresh_from_db()
        return table

    return start


@pytest.fixture(autouse=True)
def no_bot_turns(monkeypatch):
    """Unit tests drive every seat themselves; nothing is queued to Celery."""
    from gameworkers import tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)
