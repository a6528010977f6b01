"""A fresh install shows tournaments: seed_demo schedules a daily 31 freezeout in a casual 31 room of
its own, with bots filling it up to the minimum, once, and a 31 sit & go beside it."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django.core.management import call_command
from django.utils import timezone

from config.management.commands.seed_demo import next_at
from rooms.models import StakeKind
from tournaments import selectors, services
from tournaments.models import Status, Tournament


def test_seed_demo_schedules_one_daily_freezeout(db, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("seed_demo", allow_production=True)
    call_command("seed_demo", allow_production=True)  # idempotent: still one
    (t,) = Tournament.objects.filter(sit_and_go=False)
    assert (t.name, t.game, t.status, t.entry_fee, t.starting_stack, t.min_entrants) == (
        "Daily 31 Freezeout", "otuzbir", Status.REGISTERING, 20, 100, 4)
    assert t.fill_with_bots and t.repeat_every == timedelta(days=1) and t.starts_at > timezone.now()
    assert t.room.stake_kind == StakeKind.CASUAL and t.room.game == "otuzbir" and t.room.seats == 7
    assert timezone.localtime(t.starts_at).time() == time(20, 0)
    assert [c.name for c in selectors.lobby_tournaments()] == ["31 Sit & Go (6)", "Daily 31 Freezeout"]  # soonest first
    # nobody registered by the start: the seed's seven bots fill it to the minimum and it runs
    services.start(tournament_id=t.pk)
    t.refresh_from_db()
    assert t.status == Status.RUNNING and t.entrants == 4
    call_command("seed_demo", allow_production=True)  # the running one counts: nothing new
    assert Tournament.objects.filter(name="Daily 31 Freezeout").count() == 2  # this one and its next day


def test_next_at_is_today_or_tomorrow():
    tz = timezone.get_current_timezone()
    morning = datetime(2026, 3, 1, 9, 0, tzinfo=tz)
    assert next_at(time(20, 0), now=morning) == datetime(2026, 3, 1, 20, 0, tzinfo=tz)
    evening = datetime(2026, 3, 1, 19, 58, tzinfo=tz)  # too close to open registration: tomorrow
    assert next_at(time(20, 0), now=evening) == datetime(2026, 3, 2, 20, 0, tzinfo=tz)


def test_seed_demo_opens_one_31_sit_and_go_that_bots_fill_after_60_s(db, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("seed_demo", allow_production=True)
    call_command("seed_demo", allow_production=True)
    (s,) = Tournament.objects.filter(sit_and_go=True)
    assert (s.name, s.game, s.status, s.max_entrants, s.fill_with_bots, s.fill_after_seconds) == (
        "31 Sit & Go (6)", "otuzbir", Status.REGISTERING, 6, True, 60)
    assert s.room.stake_kind == StakeKind.CASUAL and s.seats_per_table == 6
