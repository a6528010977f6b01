#!/usr/bin/env python3
"""Load harness: the real stack (uvicorn, Celery workers, the timer process, PostgreSQL, Redis).

Modes (results go to docs/benchmarks.md by hand, with date and machine):
  play    T tables of the chosen games, every seat a websocket client that plays like a human (a legal
          move after a think time); reports sustained moves/s, client-measured move -> broadcast latency
          p50/p99, timer lateness, server CPU per move.
  timers  T tables whose players never move (turn timer --turn-seconds): the timer process and workers play every
          move; reports timer lateness p50/p99 (auto-move applied minus deadline).
  bots    T tables where every seat is a bot: the bots' turns (and any deadline) are all the moves there
          are; reports moves/s and CPU per bot move, by part of the stack (compare with a socket move in play).
  idle    C idle websocket connections to one ASGI process; reports memory per connection.

Only 127.0.0.1 is ever contacted. Needs PostgreSQL and Redis (defaults: the local ones):
  python bench/load.py --mode play --tables 100 --seconds 60
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/cardroom_bench")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/3")
os.environ.setdefault("CARDROOM_VAR_DIR", str(ROOT / "var" / "bench"))
from bench.probe import start_speed_probe, stop_speed_probe  # noqa: E402
from config.management.commands.runplatform import UVICORN_WS_OPTIONS  # noqa: E402  (the platform's own)

SEATS = {"lembar": 4, "baloot": 4, "cherki": 3, "otuzbir": 4}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


class Stack:
    def __init__(self, workers: int, bot_delay: str = "50,150", web_processes: int = 1) -> None:
        self.port = free_port()
        self.env = {**os.environ, "PYTHONPATH": f"{ROOT}:{ROOT / 'platform'}", "DEBUG": "false",
                    "SECURE_SSL_REDIRECT": "false", "SESSION_COOKIE_SECURE": "false",
                    "CSRF_COOKIE_SECURE": "false", "BOT_DELAY_MS": bot_delay, "LOG_LEVEL": "WARNING"}
        self.procs: dict[str, subprocess.Popen] = {}
        self.workers = workers
        self.web_processes = web_processes

    def start(self) -> None:
        py = sys.executable
        self.procs["web"] = subprocess.Popen(
            [py, "-m", "uvicorn", "config.asgi:application", "--port", str(self.port), "--no-access-log",
             "--log-level", "warning", *UVICORN_WS_OPTIONS,
             *(["--workers", str(self.web_processes)] if self.web_processes > 1 else [])], cwd=ROOT, env=self.env)
        for i in range(self.workers):
            self.start_worker(i)
        self.procs["timers"] = subprocess.Popen([py, "manage.py", "runtimers", "--interval", "0.1"],
                                                cwd=ROOT, env=self.env)
        time.sleep(4)
        self.wait_for_web()

    def wait_for_web(self, timeout_s: float = 60.0) -> None:
        """Until uvicorn accepts connections (the idle mode connects at once, before it had sometimes)."""
        import socket

        deadline = time.monotonic() + timeout_s
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"uvicorn is not listening on {self.port} after {timeout_s:.0f} s") from None
                time.sleep(0.2)

    def start_worker(self, i: int) -> subprocess.Popen:
        """(Re)start Celery worker ``i`` (bench/faults.py restarts a SIGKILLed one)."""
        self.procs[f"worker{i}"] = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "default,bots", "--concurrency", "1",
             "--pool", "solo", "--loglevel", "WARNING", "-n", f"bench{i}-{os.getpid()}@%h",
             "--without-gossip", "--without-mingle", "--without-heartbeat"], cwd=ROOT, env=self.env)
        return self.procs[f"worker{i}"]

    def cpu_seconds(self) -> float:
        return sum(v for k, v in self.cpu_by_part().items() if k in ("web", "workers", "timers"))

    def cpu_by_part(self) -> dict[str, float]:
        """CPU seconds so far of each part of the stack: the stack's own processes, the local
        PostgreSQL and Redis servers (every process of theirs on the machine) and this harness's
        clients, so a profile says where a move's CPU goes."""
        import psutil

        parts: dict[str, float] = {"web": 0.0, "workers": 0.0, "timers": 0.0, "postgres": 0.0, "redis": 0.0}

        def add(part: str, process) -> None:
            try:
                t = process.cpu_times()
                parts[part] += t.user + t.system
            except psutil.Error:
                pass

        for name, proc in self.procs.items():
            part = "workers" if name.startswith("worker") else name
            try:
                p = psutil.Process(proc.pid)
                family = [p, *p.children(recursive=True)]
            except psutil.Error:
                continue
            for q in family:
                add(part, q)
        for q in psutil.process_iter(["name"]):
            name = q.info["name"] or ""
            if name.startswith("postgres"):
                add("postgres", q)
            elif name.startswith("redis-server"):
                add("redis", q)
        me = psutil.Process().cpu_times()
        parts["clients"] = me.user + me.system
        return parts

    def rss(self, name: str) -> int:
        import psutil

        return psutil.Process(self.procs[name].pid).memory_info().rss

    def stop(self) -> None:
        for proc in self.procs.values():
            proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def ensure_database() -> None:
    """Create the bench's own PostgreSQL database on a fresh machine."""
    import psycopg

    url = os.environ["DATABASE_URL"]
    if not url.startswith("postgres"):
        return
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def setup_django():
    """Migrate and empty the bench database: tables left running by an earlier run would fire timers."""
    import django
    import redis

    ensure_database()
    for command in (["migrate", "-v0"], ["flush", "--noinput", "-v0"]):
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, check=True, env=os.environ)
    # Its own Redis database: stale group memberships of reused table ids would eat capacity.
    redis.Redis.from_url(os.environ["REDIS_URL"]).flushdb()
    django.setup()


def session_cookie(user) -> str:
    """A logged-in session for the user, as the Cookie header a browser would send."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return f"sessionid={session.session_key}"


def make_tables(games: list[str], count: int, *, turn_seconds: int) -> list[tuple[int, list]]:
    """Create rooms, users with sessions and started tables; returns [(table id, [(seat, cookie)])]."""
    from accounts.models import User
    from rooms import services
    from rooms.models import Room

    run = int(time.time())
    tables = []
    for i in range(count):
        game = games[i % len(games)]
        room, _ = Room.objects.get_or_create(
            slug=f"bench-{game}-{turn_seconds}", defaults=dict(name=f"Bench {game}", game=game, seats=SEATS[game],
                                                               min_seats=SEATS[game], turn_seconds=turn_seconds))
        users = [User.objects.create(username=f"b{run}-{i}-{k}") for k in range(SEATS[game])]
        table = services.table_open(room=room, host=users[0])
        seats = []
        for user in users:
            seat = services.table_sit(table_id=table.pk, user=user)
            seats.append((seat.number, session_cookie(user)))
        tables.append((table.pk, seats))
    return tables


def make_bot_tables(games: list[str], count: int, *, turn_seconds: int) -> list[int]:
    """Started tables whose every seat is a bot (style ``random``: the bench measures the pipeline, not a
    policy's thinking); their first turns are queued as each table starts."""
    from accounts.services import bot_create
    from rooms import services
    from rooms.models import Room

    run = int(time.time())
    ids = []
    for i in range(count):
        game = games[i % len(games)]
        room, _ = Room.objects.get_or_create(
            slug=f"bench-bots-{game}-{turn_seconds}", defaults=dict(
                name=f"Bench bots {game}", game=game, seats=SEATS[game], min_seats=SEATS[game],
                turn_seconds=turn_seconds))
        bots = [bot_create(username=f"bb{run}-{i}-{k}", display_name=f"BB {i}-{k}", style="random",
                           description="Bench bot.") for k in range(SEATS[game])]
        ids.append(services.table_open_seated(room=room, players=bots).pk)
    return ids


def run_clients(coroutine) -> None:
    """The clients' event loop: uvloop (uvicorn's own loop) when installed, so the load generator takes
    less of the 2 cores that the platform is measured on."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(coroutine)
        return
    uvloop.run(coroutine)


async def client(url: str, cookie: str, stats: dict, window: dict, think: tuple[float, float]) -> None:
    """One player: connect (a bounded number of handshakes at a time, as real arrivals spread out),
    wait until every client is in, then play a legal move after a think time whenever it is their turn.
    Speaks through bench/wsclient.py, whose per-frame cost is a fraction of a general client's."""
    import orjson

    from bench import wsclient

    try:
        async with window["gate"]:
            ws = await wsclient.connect(url, {"Cookie": cookie, "Origin": "http://127.0.0.1"}, timeout=60)
    except Exception as exc:  # a refused client is counted, not fatal
        stats["errors"].append(type(exc).__name__)
        window["arrived"]()
        return
    stats["connected"] += 1
    window["arrived"]()
    loop = asyncio.get_running_loop()
    try:
        await window["go"].wait()
        pending: dict[int, float] = {}
        # Wake this task only for a frame that may need it: one that may answer a pending move, or
        # one offering this seat legal moves (an event frame, or a state with "legal":[], needs nothing).
        ws.keep = lambda raw: bool(pending) or (not raw.startswith(b'{"type":"event"') and b'"legal":[]' not in raw)
        # One timeout for the whole game, not one per frame (asyncio.wait_for costs a task each time).
        async with asyncio.timeout_at(loop.time() + window["stop_at"] - time.monotonic()):
            while True:
                raw = await ws.recv()
                if raw.startswith(b'{"type":"event"'):
                    continue  # the public event frame before each state: nothing to act on
                frame = orjson.loads(raw)
                if isinstance(frame, list):  # protocol 2: a move's [event, state] in one frame
                    frame = frame[-1]
                if frame.get("type") != "state":
                    if frame.get("type") == "error":
                        refused = stats.setdefault("refused", Counter())
                        refused[frame.get("code")] += 1
                    continue
                version = frame["version"]
                for sent_version in [v for v in pending if v < version]:
                    sent_at = pending.pop(sent_version)
                    took = time.monotonic() - sent_at
                    stats["latency"].append(took)
                    stats.setdefault("timeline", []).append((sent_at, took))
                    stats.setdefault("latency_by_game", {}).setdefault(frame.get("game"), []).append(took)
                if frame["status"] != "running" or not frame.get("legal"):
                    continue
                if frame.get("deadline_seat") != frame["seat"] or version in pending:
                    continue
                await asyncio.sleep(random.uniform(*think))
                pending[version] = time.monotonic()
                ws.send(json.dumps({"type": "move", "move": random.choice(frame["legal"]), "version": version}))
                stats["sent"] += 1
    except TimeoutError:
        pass  # the run is over
    except Exception as exc:  # a dropped client is counted, not fatal
        stats["errors"].append(type(exc).__name__)
    finally:
        ws.close()


def stagger_deadlines(ids: list[int], turn_seconds: int) -> None:
    """Setup takes a while: start every timer only now, spread over one turn, like tables in full swing."""
    from datetime import timedelta

    from django.utils import timezone

    from rooms.models import Room, Table, TableDeadline

    Room.objects.filter(tables__pk__in=ids).update(turn_seconds=turn_seconds)
    now = timezone.now()
    for k, table_id in enumerate(ids):
        due = now + timedelta(seconds=turn_seconds * (k + 1) / len(ids))
        Table.objects.filter(pk=table_id).update(deadline_at=due)
        TableDeadline.objects.filter(table_id=table_id).update(due_at=due, enqueued_at=None)


def cpu_jiffies() -> list[int] | None:
    """The machine's CPU time by kind (/proc/stat: user, nice, system, idle, iowait, irq, softirq, steal)."""
    try:
        with open("/proc/stat") as stat:
            return [int(v) for v in stat.readline().split()[1:9]]
    except (OSError, ValueError):
        return None


def stolen_pct(before: list[int] | None, after: list[int] | None) -> float | None:
    """Share of the machine's time its hypervisor gave to others (steal): runs of the same code on this
    virtual machine differed by 15-20 % in CPU per move in every process at once."""
    if not before or not after:
        return None
    delta = [b - a for a, b in zip(before, after, strict=True)]
    return round(100 * delta[7] / sum(delta), 1) if sum(delta) else None


def table_versions(ids: list[int]) -> int:
    from rooms.models import Table

    return sum(Table.objects.filter(pk__in=ids).values_list("version", flat=True))


def row_updates() -> dict[str, tuple[int, int]]:
    """Per table of the rooms app: (row updates, of which HOT) so far, as PostgreSQL's statistics have
    them (each backend reports its counts every second or so: compare shares, not totals)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT relname, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables "
                       "WHERE relname IN ('rooms_table', 'rooms_tabledeadline')")
        return {name: (updated, hot) for name, updated, hot in cursor.fetchall()}


def hot_pct(before: dict, after: dict) -> dict[str, float | None]:
    """The share of HOT updates (no index entry rewritten) per table, between two ``row_updates``."""
    shares = {}
    for name, (updated, hot) in after.items():
        updated0, hot0 = before.get(name, (0, 0))
        shares[name] = round(100 * (hot - hot0) / (updated - updated0), 1) if updated > updated0 else None
    return shares


def running_tables(ids: list[int]) -> int:
    from rooms.models import Table, TableStatus

    return Table.objects.filter(pk__in=ids, status=TableStatus.RUNNING).count()


def lateness(ids: list[int], since) -> list[int]:
    from rooms.models import TableEvent

    return [e["late_ms"] for e in TableEvent.objects.filter(table_id__in=ids, kind="timer", created_at__gte=since)
            .values_list("payload", flat=True)]


def run(args) -> dict:
    setup_django()
    from django.utils import timezone

    games = args.games.split(",")
    stack = Stack(args.workers, bot_delay=args.bot_delay, web_processes=args.web_processes)
    mark: dict = {}
    stack.start()
    try:
        if args.mode == "idle":
            tables = make_tables(["lembar"], 1, turn_seconds=600)
            return asyncio.run(idle(stack, args.connections, tables[0]))
        if args.mode == "bots":
            tables = [(table_id, []) for table_id in make_bot_tables(games, args.tables, turn_seconds=args.turn_seconds)]
        else:
            tables = make_tables(games, args.tables, turn_seconds=3600 if args.mode == "timers" else args.turn_seconds)
        ids = [t for t, _ in tables]
        if args.mode == "timers":
            stagger_deadlines(ids, args.turn_seconds)
        stats = {"connected": 0, "sent": 0, "latency": [], "errors": []}

        def start_clock() -> None:
            mark.update(since=timezone.now(), v0=table_versions(ids), cpu0=stack.cpu_by_part(), t0=time.monotonic(),
                        stat0=cpu_jiffies(), probe=start_speed_probe(), updates0=row_updates())

        async def main() -> None:
            if args.mode != "play":
                await asyncio.to_thread(start_clock)  # the ORM refuses to run on an event loop's thread
                await asyncio.sleep(args.seconds)
                return
            seats = [(tid, cookie) for tid, table_seats in tables for _seat, cookie in table_seats]
            window = {"gate": asyncio.Semaphore(args.connect_concurrency), "go": asyncio.Event(), "stop_at": 0.0}
            everyone = asyncio.Event()
            arrived = [0]

            def on_arrival() -> None:
                arrived[0] += 1
                if arrived[0] == len(seats):
                    everyone.set()

            window["arrived"] = on_arrival
            query = "?protocol=2" if args.protocol == 2 else ""
            tasks = [asyncio.create_task(client(f"ws://127.0.0.1:{stack.port}/ws/tables/{tid}/{query}", cookie, stats,
                                                window, (args.think_min, args.think_max)))
                     for tid, cookie in seats]
            await everyone.wait()  # the clock starts once every client has connected (or failed to)
            await asyncio.to_thread(start_clock)
            window["stop_at"] = time.monotonic() + args.seconds
            window["go"].set()
            await asyncio.gather(*tasks)

        run_clients(main())
        if os.environ.get("BENCH_TIMELINE"):  # (sent at, latency) of every move, for finding stalls
            Path(os.environ["BENCH_TIMELINE"]).write_text(json.dumps(stats.get("timeline", [])))
        since, v0, cpu0, t0 = mark["since"], mark["v0"], mark["cpu0"], mark["t0"]
        elapsed = time.monotonic() - t0
        moves = table_versions(ids) - v0
        late = lateness(ids, since)
        parts = {k: v - cpu0[k] for k, v in stack.cpu_by_part().items()}
        cpu = parts["web"] + parts["workers"] + parts["timers"]
        return {
            "mode": args.mode, "protocol": args.protocol, "games": games, "tables": args.tables, "workers": args.workers,
            "tables_still_running": running_tables(ids),
            "web_processes": args.web_processes,
            "seconds": round(elapsed, 1), "clients": stats["connected"], "moves": moves,
            "moves_per_s": round(moves / elapsed, 1),
            "latency_ms_p50": round(1000 * pct(stats["latency"], 50), 1),
            "latency_ms_p99": round(1000 * pct(stats["latency"], 99), 1),
            "latency_ms_p50_p99_by_game": {game: [round(1000 * pct(v, 50), 1), round(1000 * pct(v, 99), 1)]
                                           for game, v in sorted(stats.get("latency_by_game", {}).items())},
            "timer_late_ms_p50": pct(late, 50), "timer_late_ms_p99": pct(late, 99), "timer_fired": len(late),
            "server_cpu_ms_per_move": round(1000 * cpu / moves, 2) if moves else None,
            "cpu_ms_per_move_by_part": {k: round(1000 * v / moves, 2) for k, v in parts.items()} if moves else None,
            "machine_cpu_busy_pct": round(100 * sum(parts.values()) / elapsed / (os.cpu_count() or 1)),
            "machine_cpu_stolen_pct": stolen_pct(mark["stat0"], cpu_jiffies()),
            "speed_probe_cpu_ms": stop_speed_probe(mark["probe"]),
            "row_updates_hot_pct": hot_pct(mark["updates0"], row_updates()),
            "moves_refused": dict(stats.get("refused", {})),
            "client_errors": len(stats["errors"]),
            "client_error_kinds": dict(Counter(stats["errors"]).most_common(3)),
        }
    finally:
        if "probe" in mark and mark["probe"].poll() is None:  # the run failed before reporting
            mark["probe"].kill()
        stack.stop()


async def idle(stack: Stack, connections: int, table: tuple[int, list]) -> dict:
    import websockets

    table_id, seats = table
    cookie = seats[0][1]
    base = stack.rss("web")
    socks = []
    for i in range(connections):
        try:
            socks.append(await websockets.connect(f"ws://127.0.0.1:{stack.port}/ws/tables/{table_id}/",
                                                  additional_headers={"Cookie": cookie, "Origin": "http://127.0.0.1"},
                                                  open_timeout=60))
        except Exception:
            break
        if i % 500 == 0:
            await asyncio.sleep(0)
    await asyncio.sleep(3)
    alive = sum(1 for s in socks if s.state.name == "OPEN")
    rss = stack.rss("web")
    for s in socks:
        await s.close()
    return {"mode": "idle", "connections_open": alive, "asgi_rss_mb": round(rss / 2**20, 1),
            "kb_per_connection": round((rss - base) / 1024 / max(1, alive), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=["play", "timers", "bots", "idle"], default="play")
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--games", default="lembar,baloot,cherki,otuzbir")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--web-processes", type=int, default=1,
                        help="ASGI processes sharing the port (each applies its own sockets' moves)")
    parser.add_argument("--turn-seconds", type=int, default=20)
    parser.add_argument("--think-min", type=float, default=0.2)
    parser.add_argument("--think-max", type=float, default=1.0)
    parser.add_argument("--protocol", type=int, choices=(1, 2), default=2,
                        help="the table socket's protocol (docs/protocol.md): 2, as the site's table page speaks "
                             "(a move's event and state in one frame), or 1 (two frames)")
    parser.add_argument("--bot-delay", default="50,150", help="the bots' think time, ms (BOT_DELAY_MS)")
    parser.add_argument("--connections", type=int, default=5000)
    parser.add_argument("--connect-concurrency", type=int, default=100,
                        help="handshakes in flight at once while the play clients connect")
    args = parser.parse_args()
    print(json.dumps(run(args)))


if __name__ == "__main__":
    main()
