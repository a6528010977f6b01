from __future__ import annotations

import itertools
import random
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.services import bot_create, user_create
from rooms.models import Room
from tests.conftest import make_due

_names = itertools.count()


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def make_user(db):
    def make(name: str | None = None):
        return user_create(username=name or f"t-player{next(_names)}", password="pass-word-123")

    return make


@pytest.fixture
def make_bots(db):
    def make(count: int):
        start = next(_names) * 1000
        return [bot_create(username=f"t-bot{start + i}", display_name=f"Bot {start + i}", style="random",
                           description="A bot.") for i in range(count)]

    return make


@pytest.fixture
def room(db):
    room = Room(name="31 tournaments", slug=f"t-otuzbir-{next(_names)}", game="otuzbir", seats=7, min_seats=2,
                turn_seconds=20)
    room.full_clean()
    room.save()
    return room


@pytest.fixture
def make_tournament(room):
    from tournaments import services

    def make(**kw):
        # No pause between hands unless a test asks: the tests deal hands themselves (test_pause.py).
        fields = {"name": "Freezeout", "room": room, "starts_at": timezone.now() + timedelta(hours=1),
                  "hand_pause_seconds": 0}
        fields.update(kw)
        return services.tournament_create(**fields)

    return make


@pytest.fixture
def quiet(monkeypatch):
    """Nothing goes to Celery or the channel layer: the tests drive tables themselves."""
    from gameworkers import tasks
    from tournaments import broadcast
    from tournaments import tasks as t_tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)
    monkeypatch.setattr(t_tasks, "enqueue_advance", lambda *a, **k: None)
    monkeypatch.setattr(t_tasks, "enqueue_deal", lambda *a, **k: None)
    monkeypatch.setattr(broadcast, "tournament_changed", lambda *a, **k: None)


def play_table(table_id: int, rng: random.Random) -> None:
    """Play a rooms table to its end with random legal moves, through rooms.services."""
    from django.utils import timezone

    from gameworkers.bots import get_bot
    from gameworkers.engines import get_engine
    from rooms import services
    from rooms.models import Table, TableStatus

    table = Table.objects.get(pk=table_id)
    engine = get_engine(table.game)
    bot = get_bot(table.game) if table.game != "otuzbir" else None
    for _ in range(5000):
        table.refresh_from_db()
        if table.status != TableStatus.RUNNING:
            return
        due = engine.deadline(table.state)
        acting = engine.to_act(table.state)
        if not acting or (due and due.get("seat") is None):
            make_due(table.pk, at=timezone.now())
            services.table_fire_deadline(table_id=table.pk, expected_version=table.version)
            continue
        seat = due["seat"] if due and due.get("seat") in acting else acting[0]
        legal = engine.legal_moves(table.state, seat)
        move = rng.choice(legal) if bot is None else bot.choose(engine.view(table.state, seat), legal, rng)
        if move is None:
            make_due(table.pk, at=timezone.now())
            services.table_fire_deadline(table_id=table.pk, expected_version=table.version)
            continue
        services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=table.version)
    raise AssertionError("table did not end")


def play_round(tournament_id: int, rng: random.Random) -> None:
    from rooms.models import TableStatus
    from tournaments import services
    from tournaments.models import Tournament, TournamentTable

    for tt in TournamentTable.objects.filter(tournament_id=tournament_id, table__status=TableStatus.RUNNING):
        play_table(tt.table_id, rng)
    services.advance(tournament_id=tournament_id)
    due = Tournament.objects.filter(pk=tournament_id).values_list("next_deal_at", flat=True).first()
    if due is not None:  # the pause between hands: deal as the timer would once it is over
        services.deal(tournament_id=tournament_id, now=due)
