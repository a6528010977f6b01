"""A 30-entrant 31 freezeout of bots, end to end through the real pipeline: uvicorn, a Celery worker
and the timer process (LiveStack). Housekeeping starts it, bots play every hand through Celery,
``table_finished`` advances each round, and the prizes are paid from the escrow.

Short stacks (30) and a steep ante (2, doubling every 3 hands) keep it to a few hands a table, with
the 1 s pause between hands (issue 24): 68 s of test on the shared 2-core machine at load ~15."""

from __future__ import annotations

import time

import pytest
from django.utils import timezone

from tests.conftest import LiveStack
from tournaments import services
from tournaments.models import Entry, EntryStatus, Status, Tournament, TournamentTable
from wallets.checks import ledger_problems
from wallets.models import Currency
from wallets.services import tournament_escrow


@pytest.fixture
def fast_stack(transactional_db, monkeypatch):
    monkeypatch.delenv("BOT_DELAY_MS", raising=False)
    stack = LiveStack(bot_delay="5,20").start()
    yield stack
    stack.stop()


def test_a_30_bot_freezeout_runs_through_celery_to_a_paid_out_finish(fast_stack, room, make_bots):
    room.turn_seconds = 3  # a stuck bot turn is played by the timer quickly
    room.save(update_fields=["turn_seconds"])
    make_bots(30)
    # A 1 s pause between hands: each next hand is dealt by the Celery countdown (or housekeeping).
    # Short stacks and a steep ante: a few hands a table, still several rounds with tables broken.
    t = services.tournament_create(name="Live freezeout", room=room, starts_at=timezone.now(), min_entrants=30,
                                   fill_with_bots=True, seats_per_table=7, hand_pause_seconds=1,
                                   starting_stack=30, ante_schedule={"base": 2, "double_every": 3})
    deadline = time.monotonic() + 240
    max_round_seen = 0
    paused = 0
    while time.monotonic() < deadline:
        t = Tournament.objects.get(pk=t.pk)
        if t.status in (Status.FINISHED, Status.CANCELLED):
            break
        if t.status == Status.RUNNING and t.round_dealt:
            sizes = [len(tt.players) for tt in TournamentTable.objects.filter(tournament=t, broken=False)]
            if sizes:
                assert max(sizes) - min(sizes) <= 1
        max_round_seen = max(max_round_seen, t.round)
        paused += t.next_deal_at is not None
        time.sleep(0.5)
    assert t.status == Status.FINISHED, f"still {t.status} at round {t.round}"
    entries = list(Entry.objects.filter(tournament=t))
    assert len(entries) == 30
    assert [e.status for e in entries].count(EntryStatus.WON) == 1
    assert sorted(e.prize for e in entries)[-1] == 420 and sum(e.prize for e in entries) == 600
    assert tournament_escrow(tournament_id=t.pk, currency=Currency.CHIP).balance == 0
    assert t.round >= 2 and TournamentTable.objects.filter(tournament=t, broken=True).exists()
    assert paused and t.next_deal_at is None  # seen pausing between hands; nothing left to deal
    assert ledger_problems() == []
