from __future__ import annotations

import pytest

from accounts.services import bot_create, user_create
from rooms.models import Room


@pytest.fixture
def make_user(db):
    counter = {"n": 0}

    def make(name: str | None = None, **kw):
        counter["n"] += 1
        return user_create(username=name or f"wplayer{counter['n']}", password="pass-word-123", **kw)

    return make


@pytest.fixture
def make_bot(db):
    counter = {"n": 0}

    def make():
        counter["n"] += 1
        return bot_create(username=f"wbot{counter['n']}", display_name=f"Bot {counter['n']}", style="random",
                          description="Random.")

    return make


@pytest.fixture
def make_room(db):
    counter = {"n": 0}

    def make(game: str = "lembar", **kw):
        counter["n"] += 1
        defaults = {"lembar": 4, "baloot": 4, "cherki": 3, "otuzbir": 4}
        fields = {"name": f"{game} {counter['n']}", "slug": f"w-{game}-{counter['n']}", "game": game,
                  "seats": defaults[game], "min_seats": 2 if game in ("lembar", "otuzbir") else defaults[game],
                  "turn_seconds": 20}
        fields.update(kw)
        room = Room(**fields)
        room.full_clean()
        room.save()
        return room

    return make


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    """Argon2 is deliberately slow; these tests create many users and never log in by password."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def no_bot_turns(monkeypatch):
    """The tests drive every seat themselves; nothing is queued to Celery."""
    from gameworkers import tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)


@pytest.fixture
def make_arena(make_room):
    """A scheduled arena with money terms, in a casual room of its game (players join through arenas.services)."""
    from datetime import timedelta

    from django.utils import timezone

    from arenas import services

    def make(name: str = "Arena", **kw):
        fields = {"name": name, "room": make_room("lembar"), "starts_at": timezone.now() + timedelta(hours=1),
                  "duration_minutes": 60}
        fields.update(kw)
        return services.arena_create(**fields)

    return make


@pytest.fixture
def pay_arena_prizes():
    """Finish an arena with these prizes ({user: amount}) and rake, through arenas.money's posting, so the
    arena and its escrow stay in step (``ledger_check`` clean) without playing its games."""
    from arenas import money
    from arenas.models import Arena, ArenaPlayer, Status

    def pay(arena, *, rake: int, prizes: dict) -> None:
        players = {p.user_id: p for p in ArenaPlayer.objects.filter(arena=arena).select_related("user")}
        money.pay_prizes(arena=arena, rake=rake, prizes={players[user.pk]: amount for user, amount in prizes.items()})
        Arena.objects.filter(pk=arena.pk).update(status=Status.FINISHED, pool=sum(prizes.values()))

    return pay
