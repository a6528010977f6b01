#!/usr/bin/env python3
"""Fault injection during load: SIGKILL a Celery worker, restart Redis, drop the database connections.

The real stack of bench/load.py (uvicorn, N Celery workers, the timer process) runs against its OWN Redis
(``redis-server`` started here on 127.0.0.1:6390, no persistence, never the machine's shared 6379) and its
own PostgreSQL database (``cardroom_faults``, created if missing). T staked tables of all four games are
played by bots and one human per table. On every other table the human plays over a websocket (a legal
move after a think time: the ASGI process's move pool), on the rest the human is idle and the timer
plays every turn (turn timer 2 s), so the socket path, the bot path and the deadline path all run while
the faults hit. Then the harness reports:

  games_lost        tables still running whose deadline is more than 5 s overdue at the end (target 0)
  applied_twice     tables whose move log is not the state's move count, or version < len(moves), or move
                    seqs or event seqs are not contiguous (0); the version counts every applied step,
                    so it is above len(moves) by the steps that are not moves (Lembar's window closes)
  late_over_5s      timer events (kind "timer", payload late_ms) later than 5,000 ms (0)
  ledger_problems   wallets.checks.ledger_problems(), i.e. ``manage.py ledger_check`` (0)
  dead_processes    platform processes that exited by themselves (a crash: 0)
  socket_moves_sent moves the websocket players sent (and their errors by kind)
  socket_moves_after_faults  of those, moves sent from 2 s after the last fault on and answered with the
                    next state: the sockets still get their frames (the relay subscribed again after Redis)

Only 127.0.0.1 is contacted; every phase is bounded in time. Small run (about 2 minutes):
  python bench/faults.py --tables 8 --seconds 60 --drain 30
  python bench/faults.py --faults restart_redis --restart-dead     # the rest, with the timer supervised
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REDIS_PORT = int(os.environ.get("FAULTS_REDIS_PORT", "6390"))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/cardroom_faults")
os.environ["REDIS_URL"] = f"redis://127.0.0.1:{REDIS_PORT}/0"
os.environ.setdefault("CARDROOM_VAR_DIR", str(ROOT / "var" / "faults"))
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]

from bench import load  # noqa: E402  (after the environment: load.py only sets defaults)

GAMES = ["lembar", "baloot", "cherki", "otuzbir"]
STAKES = {"lembar": ("pot", 10), "baloot": ("pot", 10), "cherki": ("per_point", 1), "otuzbir": ("ante", 1)}


class OwnRedis:
    """A throwaway redis-server on its own port (no persistence): restarting it loses every queued task."""

    def __init__(self, port: int = REDIS_PORT) -> None:
        self.port = port
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no", "--daemonize", "no"], stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"redis-server on {self.port} did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def ensure_database() -> None:
    if not os.environ["DATABASE_URL"].startswith("postgres"):
        raise SystemExit("bench/faults.py needs PostgreSQL (pg_terminate_backend)")
    load.ensure_database()


def make_tables(count: int, turn_seconds: int) -> tuple[list[int], list[tuple[int, str]]]:
    """Start the tables; returns their ids and (table id, session cookie) of the humans who play by socket."""
    from accounts.services import bot_create, user_create
    from rooms import services
    from rooms.models import Room

    run = int(time.time())
    ids, players = [], []
    for i in range(count):
        game = GAMES[i % len(GAMES)]
        kind, stake = STAKES[game]
        room, _ = Room.objects.get_or_create(
            slug=f"faults-{game}-{turn_seconds}",
            defaults=dict(name=f"Faults {game}", game=game, seats=load.SEATS[game], min_seats=load.SEATS[game],
                          turn_seconds=turn_seconds, stake_kind=kind, stake=stake, currency="KEL"))
        human = user_create(username=f"fh{run}-{i}", password="pass-word-123")
        table = services.table_open(room=room, host=human)
        services.table_sit(table_id=table.pk, user=human)
        for k in range(load.SEATS[game] - 1):
            bot = bot_create(username=f"fb{run}-{i}-{k}", display_name=f"FB{i}-{k}", style="", description="")
            services.table_sit(table_id=table.pk, user=bot)
        ids.append(table.pk)
        if i % 2 == 0:
            players.append((table.pk, load.session_cookie(human)))
    return ids, players


class SocketPlayers:
    """The websocket humans (bench/load.py's client), on their own event loop in a thread."""

    def __init__(self, port: int, players: list[tuple[int, str]], stop_at: float) -> None:
        import threading

        self.stats: dict = {"connected": 0, "sent": 0, "latency": [], "errors": []}
        self.players, self.port, self.stop_at = players, port, stop_at
        self.thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    async def _main(self) -> None:
        window = {"gate": asyncio.Semaphore(50), "go": asyncio.Event(), "stop_at": self.stop_at,
                  "arrived": lambda: None}
        window["go"].set()
        await asyncio.gather(*[load.client(f"ws://127.0.0.1:{self.port}/ws/tables/{tid}/", cookie, self.stats,
                                           window, (0.2, 1.0)) for tid, cookie in self.players])

    def result(self, faults_over: float) -> dict:
        from collections import Counter

        self.thread.join(timeout=30)
        answered_after = sum(1 for sent_at, _ in self.stats.get("timeline", []) if sent_at > faults_over + 2)
        return {"socket_players": len(self.players), "socket_connected": self.stats["connected"],
                "socket_moves_sent": self.stats["sent"], "socket_moves_after_faults": answered_after,
                "socket_errors": dict(Counter(self.stats["errors"]).most_common(5))}


def drop_db_connections() -> int:
    """pg_terminate_backend for every other connection to the app's database (workers, timer, web)."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        return len(cur.fetchall())


def audit(ids: list[int], since) -> dict:
    from django.db import connection, transaction
    from django.utils import timezone

    connection.close()  # our own connection may have been terminated too
    with transaction.atomic():  # one snapshot: tables still play while the audit reads
        with connection.cursor() as cur:
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        return _audit(ids, since, timezone.now())


def _audit(ids: list[int], since, now) -> dict:
    from rooms.models import Table, TableEvent, TableStatus
    from rooms.selectors import move_log
    from wallets.checks import ledger_problems

    lost, twice, statuses = [], [], {}
    for table in Table.objects.filter(pk__in=ids):
        statuses[table.status] = statuses.get(table.status, 0) + 1
        moves = move_log(table=table)
        seqs = list(TableEvent.objects.filter(table=table).order_by("seq").values_list("seq", flat=True))
        count = (table.state or {}).get("move_count", 0)
        if (count != len(moves) or table.version < len(moves)
                or [m["seq"] for m in moves] != list(range(1, len(moves) + 1))
                or seqs != list(range(1, len(seqs) + 1)) or table.last_event_seq != len(seqs)):
            twice.append(table.pk)
        if table.status == TableStatus.RUNNING and table.deadline_at and (now - table.deadline_at).total_seconds() > 5:
            lost.append(table.pk)
    late = [e["late_ms"] for e in TableEvent.objects.filter(table_id__in=ids, kind="timer", created_at__gte=since)
            .values_list("payload", flat=True)]
    problems = ledger_problems()
    return {"tables": statuses, "moves": sum(Table.objects.filter(pk__in=ids).values_list("version", flat=True)),
            "games_lost": len(lost), "lost_ids": lost[:10], "applied_twice": len(twice), "twice_ids": twice[:10],
            "timer_fired": len(late), "late_over_5s": sum(1 for x in late if x > 5000),
            "timer_late_ms_p50": load.pct(late, 50), "timer_late_ms_p99": load.pct(late, 99),
            "timer_late_ms_max": max(late) if late else None,
            "ledger_problems": len(problems), "ledger_first": problems[:3]}


def run(args) -> dict:
    redis = OwnRedis()
    redis.start()
    ensure_database()
    load.setup_django()
    from django.utils import timezone

    stack = load.Stack(args.workers)
    stack.start()
    log: list[str] = []
    dead: list[str] = []

    def note(text: str) -> None:
        log.append(f"{time.monotonic() - t0:6.1f}s {text}")
        print(log[-1], file=sys.stderr, flush=True)

    restarts: list[str] = []

    def supervise() -> None:
        """With --restart-dead, restart a platform process that died (as a process supervisor would)."""
        for name, proc in list(stack.procs.items()):
            if proc.poll() is None:
                continue
            if name not in dead_names:
                dead_names.add(name)
                dead.append(f"{name} (exit {proc.returncode})")
                note(f"{name} died with exit code {proc.returncode}")
            if args.restart_dead and (name == "timers" or name.startswith("worker")):
                if name == "timers":
                    stack.procs[name] = subprocess.Popen(
                        [sys.executable, "manage.py", "runtimers", "--interval", "0.1"], cwd=ROOT, env=stack.env)
                else:
                    stack.start_worker(int(name.removeprefix("worker")))
                restarts.append(name)
                dead_names.discard(name)
                note(f"{name} restarted by the harness (as runplatform does)")

    def wait_until(moment: float) -> None:
        while time.monotonic() < moment:
            supervise()
            time.sleep(min(0.5, max(0.0, moment - time.monotonic())))

    dead_names: set[str] = set()
    t0 = time.monotonic()
    try:
        since = timezone.now()
        ids, players = make_tables(args.tables, args.turn_seconds)
        note(f"{len(ids)} tables started")
        t0 = time.monotonic()  # the fault schedule counts from the start of play
        sockets = SocketPlayers(stack.port, players, stop_at=t0 + args.seconds)
        sockets.thread.start()
        chosen = args.faults.split(",") if args.faults else []
        spacing = 0.6 / max(1, len(chosen))
        faults = [(0.2 + k * spacing, fault) for k, fault in enumerate(chosen)]
        faults_over = t0
        for at, fault in faults:
            wait_until(t0 + at * args.seconds)
            if fault == "kill_worker":
                proc = stack.procs["worker0"]
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
                note("SIGKILL worker0")
                time.sleep(2)
                stack.start_worker(0)
                note("worker0 restarted")
            elif fault == "restart_redis":
                redis.stop()
                note("redis stopped (queued tasks and channel messages lost)")
                time.sleep(args.redis_down)
                redis.start()
                note("redis started")
            elif fault == "drop_db":
                note(f"pg_terminate_backend: {drop_db_connections()} connections dropped")
            faults_over = time.monotonic()
        wait_until(t0 + args.seconds)
        note("faults over; draining")
        wait_until(time.monotonic() + args.drain)
        supervise()
        result = {**audit(ids, since), **sockets.result(faults_over)}
        note("audit done")
    finally:
        stack.stop()
        redis.stop()
    return {"tables_started": args.tables, "workers": args.workers, "seconds": args.seconds, "drain": args.drain,
            "faults": args.faults, **result, "dead_processes": dead, "restarted": restarts, "log": log}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=60, help="play phase; the faults are spread over 20-80%%")
    parser.add_argument("--faults", default="kill_worker,drop_db,restart_redis",
                        help="comma-separated, in order: kill_worker, restart_redis, drop_db")
    parser.add_argument("--restart-dead", action="store_true",
                        help="restart a timer process that died (what a supervisor would do) and go on")
    parser.add_argument("--drain", type=float, default=30, help="seconds after the faults before the audit")
    parser.add_argument("--turn-seconds", type=int, default=2)
    parser.add_argument("--redis-down", type=float, default=2.0)
    args = parser.parse_args()
    result = run(args)
    print(json.dumps(result))
    ok = not (result["games_lost"] or result["applied_twice"] or result["late_over_5s"] or result["ledger_problems"]
              or result["dead_processes"])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
