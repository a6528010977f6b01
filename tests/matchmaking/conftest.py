from __future__ import annotations

import itertools

import pytest

from accounts.services import bot_create, user_create
from rooms.models import Room

STYLES = ["careful", "aggressive", "tricky"]
_names = itertools.count()


@pytest.fixture
def make_user(db):
    def make(name: str | None = None):
        return user_create(username=name or f"mm-player{next(_names)}", password="pass-word-123")

    return make


@pytest.fixture
def bots(db):
    return [bot_create(username=f"mm-bot{i}", display_name=f"Bot {i}", style=STYLES[i % 3], description="A bot.")
            for i in range(6)]


@pytest.fixture
def make_room(db):
    counter = itertools.count()

    def make(game: str = "baloot", **kw):
        n = next(counter)
        seats = {"baloot": 4, "cherki": 3, "lembar": 4, "otuzbir": 4}[game]
        spec = {"name": f"{game} {n}", "slug": f"mm-{game}-{n}", "game": game, "seats": seats,
                "min_seats": seats if game in ("baloot", "cherki") else 2, "fill_delay_seconds": 30}
        spec.update(kw)
        return Room.objects.create(**spec)

    return make


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    """Argon2 is deliberately slow; these tests create many players."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def no_background_work(monkeypatch):
    """Nothing goes to Celery or the channel layer: tests drive the matcher and the seats themselves."""
    from gameworkers import tasks
    from matchmaking import broadcast
    from matchmaking import tasks as mm_tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)
    monkeypatch.setattr(mm_tasks.run_matcher, "delay", lambda *a, **k: None)
    monkeypatch.setattr(mm_tasks, "enqueue_seat_match", lambda *a, **k: None)
    monkeypatch.setattr(mm_tasks, "enqueue_room_push", lambda *a, **k: None)
    monkeypatch.setattr(broadcast, "_send", lambda pairs: None)
