"""A short Lembar arena end to end through the real pipeline: uvicorn, a Celery worker and the timer
process (LiveStack). The timer's housekeeping starts the arena and seats a bot beside the lone player
after the wait; the bot plays through Celery; each finished table comes back through
``table_finished`` → ``arenas.tasks.game_over``, which scores it and pairs the player again; the window
closes, the last game counts, and the prize is paid from the escrow.

The test process plays the human's turns (with the game's bot policy, so games are short). About
25 s of window plus the stack's start-up."""

from __future__ import annotations

import random
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from arenas import services
from arenas.models import ArenaGame, ArenaPlayer, Status
from tests.arenas.conftest import play_my_turn
from tests.conftest import LiveStack
from wallets.checks import ledger_problems
from wallets.models import Currency
from wallets.services import balance_of


@pytest.fixture
def fast_stack(transactional_db, monkeypatch, settings):
    monkeypatch.delenv("BOT_DELAY_MS", raising=False)
    settings.BOT_DELAY_MS = (1, 5)  # the bot's turn after the human's move is scheduled from this process
    stack = LiveStack(bot_delay="1,5").start()
    yield stack
    stack.stop()


def test_a_short_arena_runs_through_celery_to_a_paid_out_finish(fast_stack, make_room, make_user, make_bots):
    make_bots(2)
    room = make_room(game="lembar", seats=2)
    ayla = make_user()
    before = balance_of(user=ayla, currency=Currency.CHIP)
    # A one-minute window that began 35 s ago: housekeeping starts it at once and it ends in ~25 s
    # (a Lembar game between the bot policies takes 1-10 s here).
    arena = services.arena_create(name="Live arena", room=room, starts_at=timezone.now() - timedelta(seconds=35),
                                  duration_minutes=1, bot_fill_seconds=1, entry_fee=10)
    services.join(arena_id=arena.pk, user=ayla)
    rng = random.Random(7)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        arena.refresh_from_db()
        if arena.status in (Status.FINISHED, Status.CANCELLED):
            break
        table_id = ArenaPlayer.objects.filter(arena=arena, user=ayla).values_list("table_id", flat=True).first()
        if table_id:
            play_my_turn(table_id, ayla, rng)
        time.sleep(0.01)
    assert arena.status == Status.FINISHED, f"still {arena.status}"
    me = ArenaPlayer.objects.get(arena=arena, user=ayla)
    games = list(ArenaGame.objects.filter(arena=arena))
    assert len(games) >= 2 and all(g.scored for g in games)  # paired again after a game ended
    assert me.games == len([g for g in games if g.points and g.points[g.players.index(me.pk)] is not None])
    assert me.games >= 2 and all(None in g.players for g in games)  # a bot filled every game
    assert me.place == 1 and me.prize == 10 and arena.pool == 10  # the only player: the whole pool
    assert balance_of(user=ayla, currency=Currency.CHIP) == before
    # no game starts after the window (created_at is stamped a moment after the pairing decided)
    assert all(g.created_at < arena.ends_at + timedelta(seconds=2) for g in games)
    assert ledger_problems() == []
