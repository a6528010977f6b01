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


@pytest.fixture(autouse=True)
def ledger_stays_clean(request):
    """Every database test ends with ``ledger_check`` clean (the arena escrows included)."""
    uses = [name for name in ("transactional_db", "db") if name in request.fixturenames]
    if uses:
        request.getfixturevalue(uses[0])  # set up first, so torn down after this check
    yield
    if uses:
        from wallets.checks import ledger_problems

        assert ledger_problems() == []


@pytest.fixture
def make_user(db):
    def make(name: str | None = None):
        return user_create(username=name or f"a-player{next(_names)}", password="pass-word-123")

    return make


@pytest.fixture
def make_bots(db):
    def make(count: int):
        start = next(_names) * 1000
        return [bot_create(username=f"a-bot{start + i}", display_name=f"Bot {start + i}", style="random",
                           description="A bot.") for i in range(count)]

    return make


@pytest.fixture
def make_room(db):
    def make(game: str = "lembar", seats: int = 2, min_seats: int | None = None, **kw):
        room = Room(name=f"{game} arena", slug=f"a-{game}-{next(_names)}", game=game, seats=seats,
                    min_seats=min_seats or seats, turn_seconds=20, **kw)
        room.full_clean()
        room.save()
        return room

    return make


@pytest.fixture
def room(make_room):
    return make_room()


@pytest.fixture
def make_arena(room):
    from arenas import services

    def make(**kw):
        fields = {"name": "Arena", "room": kw.pop("room", room), "starts_at": timezone.now() + timedelta(hours=1),
                  "duration_minutes": 60}
        fields.update(kw)
        return services.arena_create(**fields)

    return make


@pytest.fixture
def quiet(monkeypatch):
    """Nothing goes to Celery or the channel layer: the tests drive tables themselves."""
    from arenas import broadcast
    from arenas import tasks as a_tasks
    from gameworkers import tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)
    monkeypatch.setattr(a_tasks, "enqueue_game_over", lambda *a, **k: None)
    monkeypatch.setattr(broadcast, "arena_changed", lambda *a, **k: None)


def finish_table(table_id: int, ranks: list[int]) -> None:
    """End a running table with these ranks, as the engine's result would (what the arena reads)."""
    from rooms.models import Table, TableStatus

    winners = [seat for seat, rank in enumerate(ranks) if rank == 1]
    Table.objects.filter(pk=table_id).update(status=TableStatus.FINISHED, ended_at=timezone.now(),
                                             result={"ranks": ranks, "winners": winners})


def play_table(table_id: int, rng: random.Random) -> None:
    """Play a rooms table to its end with the game's bot policy for every seat, through rooms.services."""
    from gameworkers.bots import get_bot
    from gameworkers.engines import get_engine
    from rooms import services
    from rooms.models import Table, TableStatus

    table = Table.objects.get(pk=table_id)
    engine = get_engine(table.game)
    bot = get_bot(table.game)
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
        move = bot.choose(engine.view(table.state, seat), legal, rng) or rng.choice(legal)
        services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=table.version)
    raise AssertionError("table did not end")


def play_my_turn(table_id: int, user, rng: random.Random) -> None:
    """If it is ``user``'s turn at the table, play one move (the game's bot policy) through rooms.services."""
    from gameworkers.bots import get_bot
    from gameworkers.engines import get_engine
    from rooms import services as rooms_services
    from rooms.errors import TableError
    from rooms.models import Table, TableStatus

    table = Table.objects.get(pk=table_id)
    if table.status != TableStatus.RUNNING:
        return
    seat = next((e["seat"] for e in table.seating if e["user_id"] == user.pk and e["status"] == "seated"), None)
    engine = get_engine(table.game)
    if seat is None or seat not in engine.to_act(table.state):
        return
    legal = engine.legal_moves(table.state, seat)
    if not legal:
        return
    move = get_bot(table.game).choose(engine.view(table.state, seat), legal, rng) or rng.choice(legal)
    try:
        rooms_services.table_play(table_id=table_id, seat_number=seat, move=move, expected_version=table.version,
                                  user_id=user.pk)
    except TableError:  # the bot or the timer moved first: look again
        pass
