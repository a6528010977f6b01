#!/usr/bin/env python3
"""31 freezeout benchmarks (results go to docs/benchmarks/tournaments.md by hand, with date and machine).

Modes:
  sim       engine-only: N entrants, hand for hand with ``tournaments.logic`` (seat draw, busts, ranking,
            balancing) and ``gameworkers.simulate.play_game`` for every table's hand (random-style bots).
            No Django, no database. Reports rounds, table-hands, moves, wall time, moves/s.
  pipeline  the real pipeline: PostgreSQL, Redis, a Celery worker pool, the timer process and uvicorn
            (``bench.load.Stack``); N bot entrants register, housekeeping starts the tournament, bots play
            every move through Celery, ``table_finished`` advances every round, prizes are paid.
            Reports wall time (start to paid-out finish), rounds, rooms tables, moves, moves/s.

  python bench/tournaments.py --mode sim --entrants 10000
  python bench/tournaments.py --mode pipeline --entrants 1000 --workers 2 --timeout 3600
"""

from __future__ import annotations

import argparse
import json
import os
import platform as _platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]


def machine() -> dict:
    return {"cpus": os.cpu_count(), "python": _platform.python_version(), "system": _platform.platform(),
            "load": os.getloadavg()}


# ----- engine-only simulation ------------------------------------------------------------------

def simulate(entrants: int, *, seats: int = 7, stack: int = 100, seed: int = 1) -> dict:
    from gameworkers.bots import get_bot
    from gameworkers.simulate import play_game
    from tournaments import logic

    rng = random.Random(seed)
    players = list(range(entrants))
    rng.shuffle(players)
    stacks = dict.fromkeys(players, stack)
    tables = logic.seat_players(players, seats=seats)
    schedule = {"base": 1, "double_every": 5}
    rounds = table_hands = moves = 0
    places: dict[int, int] = {}
    start = time.perf_counter()
    counter = {"moves": 0}

    def count(_state, _seat, _move) -> None:
        counter["moves"] += 1

    while sum(len(t.players) for t in tables) > 1:
        rounds += 1
        busts: list[logic.Bust] = []
        for t in tables:
            options = {"stacks": [stacks[p] for p in t.players], "hands": 1, "ante_schedule": schedule,
                       "hand_offset": t.hands}
            if t.ebe is not None:
                options["ebe"] = t.players.index(t.ebe)
            bots = [get_bot("otuzbir", "random") for _ in t.players]
            state = play_game("otuzbir", rng.randbytes(32), len(t.players), options=options, bots=bots,
                              rng_seed=rng.randrange(1 << 30), on_step=count)
            result = state["result"]
            table_hands += 1
            out = []
            for s, p in enumerate(t.players):
                start_stack = stacks[p]
                stacks[p] = result["stacks"][s]
                if result["eliminated"][s] is not None:
                    busts.append(logic.Bust(p, start_stack, s))
                    out.append(p)
            ebe = t.players[state["ebe"]]
            staying = [p for p in t.players if p not in out]
            t.ebe = logic.pass_ebe(t.players, ebe, staying)
            t.players = staying
            t.hands += 1
        alive = sum(len(t.players) for t in tables)
        places.update(logic.rank_busts(busts, remaining=alive))
        if alive <= 1:
            break
        tables = logic.balance(tables, seats=seats).tables
    wall = time.perf_counter() - start
    moves = counter["moves"]
    winner = [p for t in tables for p in t.players]
    return {"mode": "sim", "entrants": entrants, "seats": seats, "rounds": rounds, "table_hands": table_hands,
            "moves": moves, "wall_s": round(wall, 2), "moves_per_s": round(moves / wall, 1),
            "table_hands_per_s": round(table_hands / wall, 1), "winner": winner,
            "placed": len(places) + len(winner), "machine": machine()}


# ----- the real pipeline -----------------------------------------------------------------------

def pipeline(entrants: int, *, workers: int, timeout: float, bot_delay: str, turn_seconds: int) -> dict:
    os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/cardroom_bench")
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/3")
    os.environ.setdefault("CARDROOM_VAR_DIR", str(ROOT / "var" / "bench"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from bench.load import Stack, setup_django
    from bench.probe import start_speed_probe, stop_speed_probe

    setup_django()
    from django.db.models import Sum
    from django.utils import timezone

    from accounts.models import User
    from accounts.services import bot_create
    from rooms.models import Room, Table, TableMove
    from tournaments import services
    from tournaments.models import Entry, Status, Tournament, TournamentTable

    run = int(time.time())
    room, _ = Room.objects.get_or_create(slug="bench-tournament-31", defaults={
        "name": "Bench 31 tournaments", "game": "otuzbir", "seats": 7, "min_seats": 2,
        "turn_seconds": turn_seconds})
    have = User.objects.filter(is_bot=True, username__startswith="tbench-").count()
    for i in range(have, entrants):
        bot_create(username=f"tbench-{i}", display_name=f"TB {i}", style="random", description="Bench bot.")
    stack = Stack(workers=workers, bot_delay=bot_delay)
    stack.start()
    probe = start_speed_probe()
    try:
        t = services.tournament_create(name=f"Bench {entrants} #{run}", room=room, starts_at=timezone.now(),
                                       min_entrants=entrants, fill_with_bots=True, seats_per_table=7)
        begin = time.monotonic()
        cpu0 = stack.cpu_seconds()
        parts0 = stack.cpu_by_part()
        started = None
        while time.monotonic() - begin < timeout:
            t = Tournament.objects.get(pk=t.pk)
            if started is None and t.status == Status.RUNNING:
                started = time.monotonic()
            if t.status in (Status.FINISHED, Status.CANCELLED):
                break
            time.sleep(1)
        end = time.monotonic()
        cpu = stack.cpu_seconds() - cpu0
        parts = {k: v - parts0.get(k, 0.0) for k, v in stack.cpu_by_part().items()}
    finally:
        speed = stop_speed_probe(probe)
        stack.stop()
    table_ids = list(TournamentTable.objects.filter(tournament=t).values_list("table_id", flat=True))
    tables = Table.objects.filter(room=room, created_at__gte=t.created_at)
    # The move logs' rows: a table's version also counts its non-move steps (opening, seating, deal, end).
    moves = TableMove.objects.filter(table__in=tables).count()
    versions = tables.aggregate(total=Sum("version"))["total"] or 0
    wall = end - (started or begin)
    left = Entry.objects.filter(tournament=t, status="playing").count()
    return {"mode": "pipeline", "entrants": entrants, "workers": workers, "bot_delay_ms": bot_delay,
            "status": t.status, "rounds": t.round, "players_left": left, "rooms_tables": tables.count(),
            "tournament_tables": len(table_ids), "moves": moves, "table_versions": versions, "wall_s": round(wall, 1),
            "moves_per_s": round(moves / wall, 1) if wall else None, "cpu_s": round(cpu, 1),
            "cpu_ms_per_move": round(1000 * cpu / moves, 2) if moves else None,
            "cpu_ms_per_move_by_part": {k: round(1000 * v / moves, 2) for k, v in parts.items()} if moves else None,
            "speed_probe_cpu_ms": speed,
            "database": os.environ["DATABASE_URL"].split("@")[-1], "machine": machine()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=["sim", "pipeline"], default="sim")
    parser.add_argument("--entrants", type=int, default=None)
    parser.add_argument("--seats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument("--bot-delay", default="5,20")
    parser.add_argument("--turn-seconds", type=int, default=5)
    args = parser.parse_args()
    if args.mode == "sim":
        result = simulate(args.entrants or 10_000, seats=args.seats, seed=args.seed)
    else:
        result = pipeline(args.entrants or 1000, workers=args.workers, timeout=args.timeout,
                          bot_delay=args.bot_delay, turn_seconds=args.turn_seconds)
    result["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
