#!/usr/bin/env python3
"""Matchmaking benchmarks (results by hand into docs/benchmarks/matchmaking.md, with date and machine).

  pass     one matcher pass (lock the waiting rows, plan, create the matches, mark the entries)
           over N queued players spread across rooms of every game (target: 10,000 in <= 1 s);
           also the planner alone and the seating rate of the formed tables.
  latency  N players (default 1,000) join at once in rooms whose bots fill at once; a matcher loop
           (like the timer's kick, every --interval s) and --workers seating threads (like Celery
           workers) run until everyone is seated; reports queue entry -> seated p50/p99.

Runs on a throw-away test database: PostgreSQL when DATABASE_URL is set (recommended, e.g.
postgres://postgres@127.0.0.1:5432/cardroom -> test_cardroom_mmbench), else SQLite under var/bench-mm.
Bot turns, Celery and the channel layer are stubbed: frames are built, not sent.

  DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardroom python bench/matchmaking.py pass --players 10000
  DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardroom python bench/matchmaking.py latency --players 1000
"""

from __future__ import annotations

import argparse
import os
import platform as std_platform
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("CARDROOM_VAR_DIR", str(ROOT / "var" / "bench-mm"))
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/3")  # cache and channel layer (sends go nowhere)
if os.environ.get("DATABASE_URL", "").startswith("postgres"):
    os.environ["DATABASE_URL"] = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/cardroom_mmbench"


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else float("nan")


def setup() -> None:
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    # Stubs: bots never act, no Celery, no channel layer sends.
    from gameworkers import tasks
    from matchmaking import broadcast
    from matchmaking.services import queue

    tasks.schedule_bot_turn = lambda *a, **k: None
    broadcast._send = lambda pairs: None
    queue._kick = lambda: None
    queue._enqueue_seat = lambda ids: None
    queue._enqueue_room_push = lambda ids: None


def teardown() -> None:
    from django.db import connection

    connection.creation.destroy_test_db(connection.settings_dict["NAME"], verbosity=0)


def seed(*, players: int, start: int = 0):
    from accounts.models import User
    from accounts.services import bot_create

    if not User.objects.filter(is_bot=True).exists():
        for i, style in enumerate(["careful", "aggressive", "tricky"] * 2):
            bot_create(username=f"bench-bot{i}", display_name=f"Bench bot {i}", style=style, description="-")
    User.objects.bulk_create([User(username=f"bench{start + i}", password="!") for i in range(players)],
                             batch_size=2000)
    return list(User.objects.filter(username__startswith="bench", is_bot=False)
                .order_by("pk").values_list("pk", flat=True))[start:start + players]


def make_rooms(*, fill_delay: int, tag: str):
    from rooms.models import Room

    specs = [("lembar", 4, 2), ("lembar", 6, 2), ("baloot", 4, 4), ("baloot", 4, 4), ("cherki", 3, 3),
             ("cherki", 3, 3), ("otuzbir", 5, 2), ("otuzbir", 5, 2)]
    rooms = [Room.objects.create(name=f"{g} {i}", slug=f"{tag}-{g}-{i}", game=g, seats=s, min_seats=m,
                                 fill_delay_seconds=fill_delay) for i, (g, s, m) in enumerate(specs)]
    rooms.append(Room.objects.create(name="AI Arena", slug=f"{tag}-arena", game="otuzbir", seats=4, min_seats=2,
                                     bots_only=True, fill_delay_seconds=0))
    return rooms


def bench_pass(args) -> None:
    from django.db import transaction
    from django.utils import timezone

    from matchmaking import conf, planner, services
    from matchmaking.models import EntryStatus, Match, QueueEntry
    from matchmaking.services import queue
    from rooms.models import Room

    rng = random.Random(7)
    users = seed(players=args.players)
    results = []
    for run in range(args.runs):
        rooms = make_rooms(fill_delay=30, tag=f"pass{run}")
        now = timezone.now()
        QueueEntry.objects.bulk_create([
            QueueEntry(room=rooms[i % len(rooms)], user_id=u, rating=rng.gauss(25, 6),
                       joined_at=now - timedelta(seconds=rng.uniform(0, 45))) for i, u in enumerate(users)],
            batch_size=2000)
        # The planner alone (rows already in memory).
        rows = list(QueueEntry.objects.filter(status=EntryStatus.WAITING)
                    .values_list("pk", "room_id", "party", "rating", "joined_at"))
        room_map = Room.objects.in_bulk([r.pk for r in rooms])
        t0 = time.perf_counter()
        by_room: dict[int, list] = {}
        for pk, room_id, _party, rating, joined_at in rows:
            by_room.setdefault(room_id, []).append(planner.Unit([pk], rating, (now - joined_at).total_seconds()))
        planned = 0
        gaps = planner.Gaps(conf.BASE_GAP, conf.GAP_PER_SECOND, conf.MAX_GAP)
        for room_id, units in by_room.items():
            room = room_map[room_id]
            planned += len(planner.plan_room(units, planner.RoomRules(
                room.seats, room.min_seats, 0 if room.bots_only else room.fill_delay_seconds, room.bots_only, 6),
                gaps))
        plan_s = time.perf_counter() - t0
        captured: list[int] = []
        queue._enqueue_seat = captured.extend
        stats: dict = {}
        t0 = time.perf_counter()
        match_ids = services.match_pass(now=now, stats=stats)
        pass_s = time.perf_counter() - t0
        matched = QueueEntry.objects.filter(status=EntryStatus.MATCHING).count()
        # Seating rate: the first tables, one after another (a single worker).
        sample = match_ids[: args.seat_sample]
        t0 = time.perf_counter()
        for m in sample:
            services.seat_match(match_id=m)
        seat_s = time.perf_counter() - t0
        results.append((pass_s, plan_s, len(match_ids), matched, planned, seat_s / max(1, len(sample))))
        print(f"run {run + 1}: pass {pass_s:.3f} s over {len(rows)} waiting -> {len(match_ids)} tables, "
              f"{matched} players matched; planner alone {plan_s:.3f} s; seating {len(sample)} tables: "
              f"{1000 * seat_s / max(1, len(sample)):.1f} ms/table", flush=True)
        print("    phases: " + ", ".join(f"{k} {v:.3f}" for k, v in stats.items() if k.endswith("_s")), flush=True)
        with transaction.atomic():  # clear for the next run (tables stay; they do not matter)
            QueueEntry.objects.all().delete()
            Match.objects.all().delete()
    passes = [r[0] for r in results]
    print(f"matcher pass over {args.players} players: median {statistics.median(passes):.3f} s, "
          f"best {min(passes):.3f} s; planner alone median {statistics.median(r[1] for r in results):.3f} s; "
          f"seating median {1000 * statistics.median(r[5] for r in results):.1f} ms/table")


def _matcher_loop(interval: float, work, stop) -> None:
    from django.db import connections

    from matchmaking import services
    from matchmaking.services import queue

    queue._enqueue_seat = lambda ids: [work.put(i) for i in ids]
    while not stop.is_set():
        services.match_pass()
        stop.wait(interval)
    work.cancel_join_thread()  # never block at exit on ids nobody will read
    connections.close_all()


def _seater_loop(work, stop) -> None:
    import queue as q

    from django.db import connections

    from matchmaking import broadcast, services, tasks
    from matchmaking.services import queue

    # Room position pushes run inline here (a separate Celery task in the platform), throttled the same way.
    queue._enqueue_room_push = lambda ids: [broadcast.push_room(i) for i in ids if tasks.room_push_due(i)]
    while not stop.is_set():
        try:
            match_id = work.get(timeout=0.2)
        except q.Empty:
            continue
        services.seat_match(match_id=match_id)
    connections.close_all()


def bench_latency(args) -> None:
    """Separate processes, like the platform: one matcher (the timer's kick), N seating workers (Celery)."""
    import multiprocessing as mp

    from django.db import connections

    from accounts.models import User
    from matchmaking import services
    from matchmaking.models import EntryStatus, QueueEntry

    users = seed(players=args.players)
    rooms = make_rooms(fill_delay=args.fill_delay, tag="lat")
    user_objs = list(User.objects.filter(pk__in=users))
    rng = random.Random(11)
    ctx = mp.get_context("fork")
    work, stop = ctx.Queue(), ctx.Event()
    connections.close_all()  # children open their own connections
    procs = [ctx.Process(target=_matcher_loop, args=(args.interval, work, stop))]
    procs += [ctx.Process(target=_seater_loop, args=(work, stop)) for _ in range(args.workers)]
    for proc in procs:
        proc.start()
    t0 = time.perf_counter()
    for u in user_objs:  # everyone joins as fast as the service allows (their entries are stamped then)
        services.queue_join(room=rng.choice(rooms), user=u)
    join_s = time.perf_counter() - t0
    deadline = time.monotonic() + args.timeout
    while time.monotonic() < deadline:
        if not QueueEntry.objects.filter(status__in=[EntryStatus.WAITING, EntryStatus.MATCHING]).exists():
            break
        time.sleep(0.2)
    total_s = time.perf_counter() - t0
    stop.set()
    for proc in procs:
        proc.join(30)
        if proc.is_alive():
            proc.terminate()
            proc.join(5)
    rows = list(QueueEntry.objects.filter(status=EntryStatus.SEATED).values_list("joined_at", "ended_at"))
    waits = [(end - start).total_seconds() for start, end in rows]
    waiting = QueueEntry.objects.exclude(status=EntryStatus.SEATED).count()
    tables = len({t for t in QueueEntry.objects.values_list("table_id", flat=True) if t})
    print(f"{args.players} players joined in {join_s:.2f} s; all handled in {total_s:.2f} s; seated {len(rows)} "
          f"at {tables} tables, not seated {waiting}; entry -> seated p50 {pct(waits, 50):.2f} s, "
          f"p99 {pct(waits, 99):.2f} s, max {max(waits):.2f} s "
          f"(matcher every {args.interval} s, {args.workers} seating processes, fill delay {args.fill_delay} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["pass", "latency"])
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seat-sample", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--fill-delay", type=int, default=0, help="latency: the rooms' bot fill delay (AI Arena: 0)")
    args = parser.parse_args()
    args.players = args.players or (10_000 if args.mode == "pass" else 1_000)
    setup()
    from django.db import connection

    print(f"{time.strftime('%Y-%m-%d %H:%M')} · {std_platform.node()} · {os.cpu_count()} CPUs · "
          f"{std_platform.python_version()} · {connection.vendor}", flush=True)
    try:
        bench_pass(args) if args.mode == "pass" else bench_latency(args)
    finally:
        connection.close()
        teardown()


if __name__ == "__main__":
    main()
