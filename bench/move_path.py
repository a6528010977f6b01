"""CPU per socket move in one process: ``live.move_pool.play`` with its broadcast, on PostgreSQL and Redis.

    python -m bench.move_path [--tables 40] [--rounds 40] [--profile]

Opens ``--tables`` started tables (the four games in turn, every seat a user), then plays rounds: in each,
every table's seat to act makes a random legal move twice over, once through the unlocked path (the table
row this process committed last is kept: one round trip) and once through the locked path (the kept row
dropped first: lock, then write). The two paths alternate round by round in the same process, so a virtual
machine's drifting speed hits both alike. Reported: CPU (``time.process_time``) per move of each path,
including the inline broadcast (every seat's frame built and published to Redis); the clock only runs
inside ``move_pool.play``. ``--profile`` prints cProfile's top functions of the unlocked path.

A benchmark, not a test: the database (``DATABASE_URL``, default ``cardroom_move_path``) is flushed.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/cardroom_move_path")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/9")
os.environ.setdefault("DEBUG", "false")
os.environ.setdefault("SECURE_SSL_REDIRECT", "false")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--profile", action="store_true", help="cProfile the unlocked path (15 rounds)")
    args = parser.parse_args(argv)

    from bench import load  # sets the import path and Django's settings module

    load.setup_django()
    from gameworkers.engines import get_engine
    from live import move_pool
    from rooms import broadcast
    from rooms.errors import TableError
    from rooms.models import Table, TableStatus

    broadcast.hand_off_to(None)  # the broadcast inline, on the clock (a move-pool thread hands it off)
    ids = [table_id for table_id, _ in load.make_tables(["lembar", "baloot", "cherki", "otuzbir"], args.tables,
                                                         turn_seconds=600)]
    rng = random.Random(3)
    spent = {"unlocked": [0, 0.0], "locked": [0, 0.0]}
    profiler = None

    def one(table_id: int, path: str | None) -> None:
        table = Table.objects.get(pk=table_id)
        if table.status != TableStatus.RUNNING:
            return
        engine = get_engine(table.game)
        due = engine.deadline(table.state)
        if not due or due["seat"] is None:
            return
        legal = engine.legal_moves(table.state, due["seat"])
        if not legal:
            return
        user_id = next(e["user_id"] for e in table.seating if e["seat"] == due["seat"] and e["status"] == "seated")
        if path == "locked":
            move_pool.last_written.tables.pop(table_id, None)
        elif path == "unlocked" and move_pool.last_written.get(table_id, table.version) is None:
            return  # not kept here (a stale version): not the path measured
        start = time.process_time()
        if profiler is not None:
            profiler.enable()
        try:
            move_pool.play(table_id=table_id, seat_number=due["seat"], move=rng.choice(legal),
                           expected_version=table.version, user_id=user_id)
        except TableError:
            return
        finally:
            if profiler is not None:
                profiler.disable()
        if path is not None:
            spent[path][0] += 1
            spent[path][1] += time.process_time() - start

    for table_id in ids:  # a first move each: the rows are kept from here on
        one(table_id, None)
    for _ in range(args.rounds):
        for path in ("unlocked", "locked"):
            for table_id in ids:
                one(table_id, path)
    for path, (count, seconds) in spent.items():
        print(f"{path:>8}: {count} moves, {seconds / max(count, 1) * 1000:.3f} ms CPU per move")
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        for _ in range(15):
            for table_id in ids:
                one(table_id, None)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
