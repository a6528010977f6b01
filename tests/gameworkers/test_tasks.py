"""The Celery tasks' bodies, run in process (the real worker path: tests/platform/rooms/test_live.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.services import bot_create, user_create
from gameworkers import tasks
from gameworkers.engines import get_engine
from rooms import selectors, services
from rooms.models import Room, Seat, Table

pytestmark = pytest.mark.django_db


@pytest.fixture
def lost_bot_turns(monkeypatch):
    """Every bot turn task is lost (as with a worker killed while holding it)."""
    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)


def _bots_turn(settings) -> tuple[Table, int]:
    """A running Lembar table, a human against a bot, at the bot's turn."""
    room = Room.objects.create(name="Rescue", slug="rescue", game="lembar", seats=2, min_seats=2, turn_seconds=600)
    human = user_create(username="human", password="pass-word-123")
    bot = bot_create(username="rescued", display_name="Rescued", style="random", description="A bot.")
    table = services.table_open_seated(room=room, players=[human, bot])
    engine = get_engine("lembar")
    bot_seat = selectors.seat_number_of(table=table, user_id=bot.pk)
    for _ in range(20):
        table.refresh_from_db()
        if table.deadline_seat == bot_seat:
            return table, bot_seat
        seat = table.deadline_seat
        services.table_play(table_id=table.pk, seat_number=seat, move=engine.legal_moves(table.state, seat)[0],
                            expected_version=table.version)
    raise AssertionError("the bot never came to act")


def test_a_lost_bot_turn_is_played_by_the_bot_soon_not_timed_out(lost_bot_turns, settings):
    table, seat = _bots_turn(settings)
    # The timer looks after BOT_RESCUE_S, not after the 600 s turn timer.
    assert table.deadline_at <= timezone.now() + timedelta(seconds=settings.BOT_RESCUE_S)
    # The rescue look alone never plays the bot's automatic move early.
    Table.objects.filter(pk=table.pk).update(deadline_at=timezone.now() - timedelta(seconds=1))
    assert not services.table_fire_deadline(table_id=table.pk, expected_version=table.version)
    assert Table.objects.get(pk=table.pk).version == table.version

    assert tasks.fire_deadline(table.pk, table.version)
    after = Table.objects.get(pk=table.pk)
    assert after.version > table.version
    played = [m for m in selectors.move_log(table=after) if m["seat"] == seat]
    assert played and not played[-1]["move"].get("auto")  # the bot's own move, not a timeout
    assert Seat.objects.get(table=after, number=seat).consecutive_timeouts == 0


def test_a_bot_whose_policy_fails_still_gets_its_automatic_move_when_its_turn_runs_out(lost_bot_turns, settings,
                                                                                       monkeypatch):
    table, seat = _bots_turn(settings)
    monkeypatch.setattr(tasks, "bot_turn", lambda *a: (_ for _ in ()).throw(RuntimeError("bot bug")))
    engine = get_engine("lembar")
    due = engine.deadline(table.state)
    # Its turn timer has run out (the table started long ago).
    Table.objects.filter(pk=table.pk).update(started_at=timezone.now() - timedelta(hours=1),
                                             deadline_at=timezone.now() - timedelta(seconds=1))
    if due.get("since_ms") is not None:
        state = {**table.state, "turn_since": due["since_ms"] - 3_600_000}
        Table.objects.filter(pk=table.pk).update(state=state)
    assert tasks.fire_deadline(table.pk, table.version)
    after = Table.objects.get(pk=table.pk)
    assert after.version > table.version
    assert selectors.move_log(table=after)[-1]["move"].get("auto")
    assert Seat.objects.get(table=after, number=seat).consecutive_timeouts == 0  # never counted for a bot
