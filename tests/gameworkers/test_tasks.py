"""The Celery tasks' bodies, run in process (the real worker path: tests/platform/rooms/test_live.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.services import bot_create, user_create
from gameworkers import tasks
from gameworkers.engines import get_engine
from rooms import selectors, services
from rooms.models import Room, Seat, Table, TableDeadline, TableEvent
from tests.conftest import make_due

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
    make_due(table.pk, at=timezone.now() - timedelta(seconds=1))
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
    Table.objects.filter(pk=table.pk).update(started_at=timezone.now() - timedelta(hours=1))
    make_due(table.pk, at=timezone.now() - timedelta(seconds=1))
    if due.get("since_ms") is not None:
        state = {**table.state, "turn_since": due["since_ms"] - 3_600_000}
        Table.objects.filter(pk=table.pk).update(state=state)
    assert tasks.fire_deadline(table.pk, table.version)
    after = Table.objects.get(pk=table.pk)
    assert after.version > table.version
    assert selectors.move_log(table=after)[-1]["move"].get("auto")
    assert Seat.objects.get(table=after, number=seat).consecutive_timeouts == 0  # never counted for a bot


# ----- batches: the timer's claim, due deadlines and bot turns a batch at a time ---------------------------

def _room(slug: str, turn_seconds: int = 600) -> Room:
    room, _ = Room.objects.get_or_create(slug=slug, defaults=dict(name=slug, game="lembar", seats=2, min_seats=2,
                                                                  turn_seconds=turn_seconds))
    return room


def _due_tables(count: int) -> list[Table]:
    """Running two-human tables whose turn deadline has passed (nobody moved)."""
    room = _room("due")
    tables = []
    for _ in range(count):
        i = Table.objects.count()
        players = [user_create(username=f"due{i}-{k}", password="pass-word-123") for k in range(2)]
        table = services.table_open_seated(room=room, players=players)
        Table.objects.filter(pk=table.pk).update(started_at=timezone.now() - timedelta(hours=1))
        make_due(table.pk, at=timezone.now() - timedelta(seconds=1))
        tables.append(Table.objects.get(pk=table.pk))
    return tables


def _bot_tables(count: int) -> list[Table]:
    """Running tables where both seats are bots (their first turns are for the test to hand out)."""
    room = _room("bots")
    tables = []
    for _ in range(count):
        i = Table.objects.count()
        bots = [bot_create(username=f"bot{i}-{k}", display_name=f"Bot {i}-{k}", style="random",
                           description="A bot.") for k in range(2)]
        tables.append(services.table_open_seated(room=room, players=bots))
    return tables


def _acting_bot(table: Table) -> int:
    return get_engine(table.game).to_act(table.state)[0]


def test_the_timer_claims_every_due_deadline_once_in_one_statement(django_assert_max_num_queries):
    from gameworkers import timers

    due = _due_tables(3)
    later = _due_tables(1)[0]
    make_due(later.pk, at=timezone.now() + timedelta(minutes=5))
    with django_assert_max_num_queries(1):
        claimed = timers.claim_due()
    assert sorted(claimed) == sorted([t.pk, t.version] for t in due)
    assert timers.claim_due() == []  # handed out: a second timer does not take them again
    # A claim whose task was lost is taken again after RETRY_AFTER_S, and only when re-claiming.
    after = timezone.now() + timedelta(seconds=timers.RETRY_AFTER_S + 1)
    assert timers.claim_due(reclaim=False, now=after) == []
    assert sorted(timers.claim_due(now=after)) == sorted([t.pk, t.version] for t in due)


def test_a_drifted_timer_entry_is_set_from_its_table_when_its_stale_deadline_fires():
    from django.db.models import F

    from gameworkers import timers

    table = _due_tables(1)[0]
    # A write of the table's deadline that missed the timer's entry (none in the platform does:
    # tests/platform/rooms/test_services.py): the table moved on, its entry still names the old version.
    Table.objects.filter(pk=table.pk).update(version=F("version") + 1, deadline_at=timezone.now() + timedelta(minutes=5))
    assert timers.claim_due() == [[table.pk, table.version]]
    assert tasks.fire_deadlines([[table.pk, table.version]]) == 0  # fires nothing: the version moved on
    moved = Table.objects.get(pk=table.pk)
    entry = TableDeadline.objects.get(table=table)
    assert (entry.due_at, entry.version, entry.enqueued_at) == (moved.deadline_at, moved.version, None)
    assert timers.claim_due(now=timezone.now() + timedelta(seconds=timers.RETRY_AFTER_S + 1)) == []
    # An entry a step rewrote after the hand-out is left as it is (an ordinary race, not a drift).
    TableDeadline.objects.filter(table=table).update(version=moved.version + 1, due_at=None)
    services.deadline_resync(table=moved, handed_out_version=table.version)
    assert TableDeadline.objects.get(table=table).version == moved.version + 1


def test_a_batch_of_due_deadlines_fires_each_exactly_once():
    tables = _due_tables(4)
    assert tasks.fire_deadlines([[t.pk, t.version] for t in tables]) == 4
    after = {t.pk: t.version for t in Table.objects.filter(pk__in=[t.pk for t in tables])}
    assert all(after[t.pk] > t.version for t in tables)
    for t in tables:
        assert selectors.move_log(table=Table.objects.get(pk=t.pk))[-1]["move"].get("auto")
    # The same batch again (a worker lost after the moves, the task delivered again): nothing fires twice.
    assert tasks.fire_deadlines([[t.pk, t.version] for t in tables]) == 0
    assert {t.pk: t.version for t in Table.objects.filter(pk__in=after)} == after


def test_a_stale_version_in_a_batch_is_skipped_and_the_others_fire():
    first, second, third = _due_tables(3)
    assert tasks.fire_deadlines([[first.pk, first.version - 1], [second.pk, second.version],
                                 [third.pk, third.version + 5], [999_999, 1], ["x", 1], [1]]) == 1
    assert Table.objects.get(pk=first.pk).version == first.version
    assert Table.objects.get(pk=second.pk).version > second.version
    assert Table.objects.get(pk=third.pk).version == third.version


def test_a_table_that_fails_in_a_batch_does_not_lose_the_rest(monkeypatch):
    first, broken, last = _due_tables(3)
    real = services.table_fire_deadline

    def fire(*, table_id: int, expected_version: int) -> bool:
        if table_id == broken.pk:
            raise RuntimeError("a bug at one table")
        return real(table_id=table_id, expected_version=expected_version)

    monkeypatch.setattr(services, "table_fire_deadline", fire)
    assert tasks.fire_deadlines([[t.pk, t.version] for t in (first, broken, last)]) == 2
    assert Table.objects.get(pk=first.pk).version > first.version
    assert Table.objects.get(pk=broken.pk).version == broken.version
    assert Table.objects.get(pk=last.pk).version > last.version


def test_a_batch_of_bot_turns_plays_each_once_skips_the_stale_and_survives_a_failure(monkeypatch):
    tables = _bot_tables(4)
    stale, broken = tables[0], tables[1]
    batch = [[t.pk, _acting_bot(t), t.version] for t in tables]
    batch[0][2] -= 1  # stale: the table moved on
    from live import move_pool

    real = move_pool.play

    def play(**kw) -> int:
        if kw["table_id"] == broken.pk:
            raise RuntimeError("a bug at one table")
        return real(**kw)

    monkeypatch.setattr(move_pool, "play", play)
    assert tasks.bot_turns(batch) == 2
    versions = {t.pk: t.version for t in Table.objects.filter(pk__in=[t.pk for t in tables])}
    assert versions[stale.pk] == stale.version and versions[broken.pk] == broken.version
    for t in tables[2:]:
        assert versions[t.pk] == t.version + 1
        mover = selectors.move_log(table=Table.objects.get(pk=t.pk))[-1]
        assert mover["seat"] == _acting_bot(t) and not mover["move"].get("auto")  # the bot's own move
    assert tasks.bot_turns(batch) == 0  # delivered again: nothing applied twice


def test_a_bot_turn_waits_out_its_think_time_in_the_queue(settings):
    from gameworkers import timers

    table = _bot_tables(1)[0]
    seat = _acting_bot(table)
    settings.BOT_DELAY_MS = (200, 200)
    tasks.schedule_bot_turn(table.pk, seat, table.version)
    assert timers.take_due_bot_turns()[0] == []  # still thinking
    now = timezone.now().timestamp() * 1000
    assert timers.take_due_bot_turns(now_ms=now + 250)[0] == [[table.pk, seat, table.version]]
    assert timers.take_due_bot_turns(now_ms=now + 250)[0] == []  # taken once


def test_the_timer_looks_at_an_idle_bot_queue_a_few_times_a_second_and_at_a_due_turn_on_time(monkeypatch, settings):
    import time

    from gameworkers import timers

    poll = timers.BOT_POLL_S
    assert timers.next_look_s(None, now_ms=0, think_min_ms=600) == 0.6 - poll  # nothing queued
    assert timers.next_look_s(100, now_ms=0, think_min_ms=600) == 0.1  # the earliest turn's time
    assert timers.next_look_s(0, now_ms=5_000, think_min_ms=600) == poll  # overdue, or workers behind
    assert timers.next_look_s(None, now_ms=0, think_min_ms=0) == poll  # no think time: as often as ever
    settings.BOT_DELAY_MS = (600, 1500)
    looks: list[float] = []
    monkeypatch.setattr(timers, "hand_out_bot_turns", lambda: looks.append(time.monotonic()))
    monkeypatch.setattr(timers, "_next_look", [0.0])
    timers.pause(1.0)
    assert 1 <= len(looks) <= 3  # not 1 / BOT_POLL_S = 50
    # The sweeps and the pauses keep to one schedule: ten sweeps and pauses of 0.1 s look 1-3 times too.
    looks.clear()
    monkeypatch.setattr(timers, "_next_look", [0.0])
    monkeypatch.setattr(timers, "claim_due", lambda **k: [])
    for _ in range(10):
        timers.sweep()
        timers.pause(0.1)
    assert 1 <= len(looks) <= 3
    # A turn due 150 ms after a look is handed out within BOT_POLL_S of its time.
    looks.clear()
    monkeypatch.setattr(timers, "_next_look", [0.0])
    due_in = 0.15

    def hand_out() -> float | None:
        looks.append(time.monotonic())
        return time.time() * 1000 + due_in * 1000 if len(looks) == 1 else None

    monkeypatch.setattr(timers, "hand_out_bot_turns", hand_out)
    timers.pause(0.5)
    assert len(looks) >= 2 and due_in - 0.005 <= looks[1] - looks[0] <= due_in + poll + 0.1


def test_batches_spread_a_sweep_over_the_workers_and_stay_small():
    from gameworkers import timers

    assert timers.batches([]) == []
    assert timers.batches([1]) == [[1]]
    assert timers.batches([1, 2, 3]) == [[1, 2, 3]]  # a few: one task (a task each cost more than a step)
    assert timers.batches(list(range(7))) == [list(range(7))]
    assert timers.batches(list(range(8))) == [[0, 1, 2, 3], [4, 5, 6, 7]]  # enough to share over two workers
    many = list(range(timers.BATCH * 3 + 1))
    split = timers.batches(many)
    assert [x for b in split for x in b] == many
    assert len(split) == 4 and max(len(b) for b in split) <= timers.BATCH


@pytest.mark.django_db(transaction=True)
def test_the_timer_hands_batches_to_a_real_worker(celery_worker_process, monkeypatch, settings):
    """Real Redis (the broker and the bots' queue) and a real Celery worker: a sweep's batch of due
    deadlines and the bots' turns, queued as the tables start, are played by the worker."""
    import time

    from gameworkers import timers

    settings.BOT_DELAY_MS = (1, 5)
    due = _due_tables(3)
    bot_tables = _bot_tables(3)  # committed: their first bot turns are in the queue
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        timers.sweep()
        after = {t.pk: t for t in Table.objects.filter(pk__in=[t.pk for t in due + bot_tables])}
        if all(after[t.pk].version > t.version for t in due) and all(
                after[t.pk].version >= t.version + 3 for t in bot_tables):
            break
        time.sleep(0.1)
    for t in due:
        log = selectors.move_log(table=after[t.pk])
        assert log and log[-1]["move"].get("auto")  # the automatic move, applied once per claim
        assert TableEvent.objects.filter(table_id=t.pk, kind="timer").count() == 1
    for t in bot_tables:  # bots went on playing, turn after turn, through the queue and the worker
        assert after[t.pk].version >= t.version + 3
        assert not any(m["move"].get("auto") for m in selectors.move_log(table=after[t.pk]))


def test_due_bot_turns_wait_in_the_queue_while_the_workers_are_behind():
    from gameworkers import timers

    table = _bot_tables(1)[0]
    seat = _acting_bot(table)
    assert timers.queue_bot_turn(table.pk, seat, table.version, delay_s=0)
    client = timers._redis()
    client.rpush(timers.BOT_TASK_QUEUE, *["waiting"] * (timers.BOT_BACKLOG_MAX + 1))
    try:
        assert timers.take_due_bot_turns()[0] == []  # gathering into a batch, not a queue of small tasks
    finally:
        client.delete(timers.BOT_TASK_QUEUE)
    assert timers.take_due_bot_turns()[0] == [[table.pk, seat, table.version]]


def test_the_sweeping_timer_asks_the_cache_for_its_lease_a_few_times_a_second_not_at_every_sweep(monkeypatch):
    import time

    from core.cache import cache
    from gameworkers import timers

    monkeypatch.setattr(timers, "LEASE_S", 1)  # renewed every 0.25 s
    monkeypatch.setattr(timers, "_last_done", {})
    asked: list[str] = []
    for method in ("add", "get", "set"):
        real = getattr(cache, method)
        monkeypatch.setattr(cache, method, lambda *a, _m=method, _real=real, **k: asked.append(_m) or _real(*a, **k))
    assert all(timers.hold_lease("a") for _ in range(50))
    assert asked == ["add"]  # taken once; held without asking again
    time.sleep(0.3)
    assert timers.hold_lease("a") and asked == ["add", "add", "get", "set"]  # renewed
    assert not timers.hold_lease("b") and not timers.hold_lease("b")  # a standby asks every time
    assert asked[4:] == ["add", "get", "add", "get"]


def test_a_sweep_kicks_the_housekeeping_passes_every_housekeeping_interval_not_at_every_sweep(monkeypatch):
    import time

    from gameworkers import timers

    monkeypatch.setattr(timers, "_last_done", {})
    monkeypatch.setattr(timers, "claim_due", lambda **k: [])
    monkeypatch.setattr(timers, "hand_out_bot_turns", lambda: None)
    kicks: list[float] = []
    monkeypatch.setattr(timers, "kick_housekeeping", lambda: kicks.append(time.monotonic()))
    monkeypatch.setattr(timers, "HOUSEKEEPING_EVERY_S", 0.2)
    end = time.monotonic() + 0.5
    sweeps = 0
    while time.monotonic() < end:
        timers.sweep()
        sweeps += 1
        time.sleep(0.01)
    assert sweeps > 20 and 2 <= len(kicks) <= 3
    assert all(b - a >= 0.2 for a, b in zip(kicks, kicks[1:], strict=False))


def test_the_timer_writes_its_heartbeat_once_a_second_while_it_sweeps_many_times(monkeypatch):
    from django.core.management import call_command

    from core import health
    from gameworkers import timers

    class Done(Exception):
        pass

    monkeypatch.setattr(timers, "_last_done", {})
    monkeypatch.setattr(timers, "hold_lease", lambda name: True)
    sweeps: list[int] = []
    monkeypatch.setattr(timers, "sweep", lambda: sweeps.append(1) or 0)
    beats: list[str] = []
    monkeypatch.setattr(health, "timer_beat", beats.append)

    def pause(seconds: float, *, bots: bool = True) -> None:
        if len(sweeps) >= 30:
            raise Done

    monkeypatch.setattr(timers, "pause", pause)
    with pytest.raises(Done):
        call_command("runtimers", "--interval", "0.01")
    assert len(sweeps) == 30 and len(beats) == 1  # 30 sweeps well within a second: one beat
    assert beats[0] == timers.timer_name()
