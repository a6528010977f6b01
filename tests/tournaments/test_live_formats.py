"""A 31 sit & go through the real pipeline (uvicorn, a Celery worker and the timer process): one
registration starts the bots' wait, the timer's housekeeping fills the seats and starts it, a late
entry and, when a player busts in time, a re-entry join while late registration is open (seated at
the next hand, at a new table when every seat is taken), and the prizes empty the escrow. Short stacks and a steep ante keep it to a few hands (~30 s on 2 cores)."""

from __future__ import annotations

import time

import pytest

from tests.conftest import LiveStack
from tournaments import selectors, services
from tournaments.errors import TournamentError
from tournaments.models import Entry, EntryStatus, Status, Tournament
from wallets.checks import ledger_problems
from wallets.models import Currency
from wallets.services import tournament_escrow


@pytest.fixture
def fast_stack(transactional_db, monkeypatch):
    monkeypatch.delenv("BOT_DELAY_MS", raising=False)
    stack = LiveStack(bot_delay="5,20").start()
    yield stack
    stack.stop()


def test_a_sit_and_go_with_a_late_entry_and_re_entry_runs_through_celery(fast_stack, room, make_bots):
    room.turn_seconds = 3
    room.save(update_fields=["turn_seconds"])
    bots = make_bots(8)
    t = services.tournament_create(name="Live S&G", room=room, sit_and_go=True, max_entrants=4, seats_per_table=4,
                                   fill_after_seconds=1, starting_stack=10, ante_schedule={"base": 2, "double_every": 2},
                                   late_registration_level=10, max_entries=2, hand_pause_seconds=1)
    services.register(tournament_id=t.pk, user=bots[0])  # the bots' 1 s wait starts
    late = bots[-1]
    late_entry = reentered = None
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        t = Tournament.objects.get(pk=t.pk)
        if t.status in (Status.FINISHED, Status.CANCELLED):
            break
        if t.status == Status.RUNNING and t.max_entrants == 4:
            # the operator makes room for late entries (the maximum counts the players in: with short
            # stacks three may bust in one hand, and a full sit & go would leave no window)
            Tournament.objects.filter(pk=t.pk).update(max_entrants=6)
        if t.status == Status.RUNNING and selectors.late_registration_open(tournament=t):
            try:
                if late_entry is None:
                    late_entry = services.register(tournament_id=t.pk, user=late)
                elif reentered is None:
                    out = Entry.objects.filter(tournament=t, status=EntryStatus.OUT, number=1).first()
                    if out is not None:
                        reentered = services.register(tournament_id=t.pk, user=out.user)
            except TournamentError as exc:  # every seat taken (the maximum counts players in) until a bust
                assert exc.code in ("tournament_full", "registration_closed")
        time.sleep(0.1)
    assert t.status == Status.FINISHED, f"still {t.status} at round {t.round}"
    assert late_entry is not None, "late registration was never open while the sit & go ran"
    entries = list(Entry.objects.filter(tournament=t))
    assert t.entrants == len(entries) == 5 + (reentered is not None)
    late_entry.refresh_from_db()
    assert late_entry.status in (EntryStatus.OUT, EntryStatus.WON) and late_entry.place  # seated, played, placed
    if reentered is not None:
        reentered.refresh_from_db()
        assert reentered.number == 2 and reentered.paid == 20 and reentered.place
    assert [e.status for e in entries].count(EntryStatus.WON) == 1 and all(e.place for e in entries)
    assert sum(e.prize for e in entries) == sum(e.paid for e in entries) == t.pool == 20 * len(entries)
    assert tournament_escrow(tournament_id=t.pk, currency=Currency.CHIP).balance == 0
    assert Tournament.objects.filter(name="Live S&G", status=Status.REGISTERING, sit_and_go=True).count() == 1
    assert ledger_problems() == []
