#!/usr/bin/env python3
"""Fault injection during load: every fault the platform must survive, then an audit.

The real stack runs the way ``manage.py runplatform`` runs it: uvicorn with ``--workers 2`` (two ASGI
processes sharing the port), N Celery workers and TWO timer processes (one sweeps holding a lease in the
cache, the other stands by), each in a process group of its own. The harness supervises them like
runplatform: when a process exits, its whole process group is killed and it is started again (0.5 s
later). It runs against its OWN Redis (``redis-server`` started here on 127.0.0.1:6390, no persistence,
never the machine's shared 6379) and its own PostgreSQL database (``cardroom_faults``, created if missing).

T staked tables of all four games are played by bots and one human per table; a table that ends during the
play phase is replaced by a new one with the same players, so T tables play throughout. On every other table
the human plays over a websocket (a legal move after a think time, applied by the ASGI process's move pool);
the socket player reconnects when its socket closes and then sends ``resync`` (docs/protocol.md), resyncs
on a version gap and after ``unavailable``. On the other tables the human is idle and the timer plays
every turn (turn timer 2 s). Faults, spread over 20-80 % of the play phase, in the order given:

  kill_worker          SIGKILL Celery worker 0; the supervisor starts it again 2 s later
  drop_db              pg_terminate_backend for every other connection to the app's database
  restart_redis        stop the harness's redis-server, start it again --redis-down s later (empty)
  kill_timer           SIGKILL the timer that holds the lease (the sweeping one); the standby must take over,
                       the supervisor starts the killed one again
  freeze_timer         SIGSTOP the sweeping timer for --freeze-seconds (20), then SIGCONT: the standby must
                       take the lease over within ~2 s, so automatic moves stay <= 5 s late
  kill_uvicorn_worker  SIGKILL the uvicorn worker process holding the most connections; uvicorn's master
                       starts another; its sockets reconnect to the other worker
  kill_uvicorn_master  SIGKILL the uvicorn master: its workers are orphaned, still holding the port; the
                       supervisor kills the whole process group and starts uvicorn again

Then the audit:

  games_lost        tables still running whose deadline is more than 5 s overdue at the end (target 0)
  applied_twice     tables whose move log is not the state's move count, or version < len(moves), or move
                    seqs or event seqs are not contiguous (0); the version counts every applied step,
                    so it is above len(moves) by the steps that are not moves (Lembar's window closes)
  late_over_5s      timer events (kind "timer", payload late_ms) later than 5,000 ms (0); also the worst
                    lateness in the window after each fault (late_ms_max_by_fault)
  ledger_problems   wallets.checks.ledger_problems(), i.e. ``manage.py ledger_check`` (0)
  dead_processes    platform processes that exited by themselves (a crash: none); the ones the harness
                    killed are listed under ``killed`` and restarted whatever --restart-dead says
  recovery_s        how long each fault took to heal: the lease taken over, a uvicorn worker replaced,
                    uvicorn serving again after its master was killed
  sockets           per websocket player: connects, closes, moves sent, and of the moves sent from 2 s after
                    the last fault on how many were answered (a state of a later version, or an error
                    for that move's id); sockets_all_answered says every one was (target: true)
  clean             the acceptance of issue 22: all of the above, every fault healed, no crashed process
                    left dead (with --restart-dead a crash restarted still counts in dead_processes); the
                    exit status is 0 when clean

Only 127.0.0.1 is contacted; every phase is bounded in time. Runs (about 3 minutes each):
  python bench/faults.py --tables 8 --seconds 90 --drain 40 --restart-dead               # every fault
  python bench/faults.py --tables 8 --seconds 90 --drain 40 --faults "" --restart-dead   # baseline
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script (python bench/faults.py): the repository root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# bench.fault_stack points the environment at the harness's Redis and database on import (fault_players
# imports it first), before bench.load reads it.
from bench.fault_players import SocketPlayers, Tables  # noqa: E402
from bench.fault_stack import (  # noqa: E402
    TIMERS,
    OwnRedis,
    Platform,
    drop_db_connections,
    ensure_database,
    group_members,
    http_answers,
    lease_holder,
    load,
)

FAULTS = ["kill_worker", "drop_db", "restart_redis", "kill_timer", "freeze_timer", "kill_uvicorn_worker",
          "kill_uvicorn_master"]
RESTART_DELAY_S = 0.5  # runplatform starts a dead child again after this long (no crash loop here)


def audit(ids: list[int], since, fault_times: list[tuple[str, float]]) -> dict:
    from django.db import connection, transaction
    from django.utils import timezone

    connection.close()  # our own connection may have been terminated too
    with transaction.atomic():  # one snapshot: tables still play while the audit reads
        with connection.cursor() as cur:
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        return _audit(ids, since, timezone.now(), fault_times)


def _audit(ids: list[int], since, now, fault_times: list[tuple[str, float]]) -> dict:
    from rooms.models import Table, TableEvent, TableMove, TableStatus
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
    fired = [(at.timestamp(), payload["late_ms"]) for at, payload in
             TableEvent.objects.filter(table_id__in=ids, kind="timer", created_at__gte=since)
             .values_list("created_at", "payload")]
    late = [ms for _, ms in fired]
    # The worst automatic move in each fault's window (from it to the next fault; the last to the end).
    named = [(name if [n for n, _ in fault_times].count(name) == 1 else f"{name}#{k}", at)
             for k, (name, at) in enumerate(fault_times)]
    bounds = [("before_faults", 0.0), *named, ("end", float("inf"))]
    by_fault = {}
    for (name, start), (_, end) in zip(bounds, bounds[1:], strict=False):
        window = [ms for at, ms in fired if start <= at < end]
        by_fault[name] = max(window) if window else None
    problems = ledger_problems()
    return {"tables": statuses, "moves": TableMove.objects.filter(table_id__in=ids).count(),
            "games_lost": len(lost), "lost_ids": lost[:10], "applied_twice": len(twice), "twice_ids": twice[:10],
            "timer_fired": len(late), "late_over_5s": sum(1 for x in late if x > 5000),
            "timer_late_ms_p50": load.pct(late, 50), "timer_late_ms_p99": load.pct(late, 99),
            "timer_late_ms_max": max(late) if late else None, "late_ms_max_by_fault": by_fault,
            "ledger_problems": len(problems), "ledger_first": problems[:3]}


def machine() -> dict:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "cpu": model, "loadavg": [round(x, 2) for x in os.getloadavg()]}


def run(args) -> dict:
    chosen = [f for f in args.faults.split(",") if f] if args.faults else []
    unknown = [f for f in chosen if f not in FAULTS]
    if unknown:
        raise SystemExit(f"unknown faults {unknown}; known: {', '.join(FAULTS)}")
    if "kill_uvicorn_worker" in chosen and args.web_processes < 2:
        raise SystemExit("kill_uvicorn_worker needs --web-processes 2 or more")
    started = {"wall": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), **machine()}
    redis = OwnRedis()
    redis.start()
    ensure_database()
    load.setup_django()
    from django.utils import timezone

    stack = Platform(args.workers, web_processes=args.web_processes)
    log: list[str] = []
    dead: list[str] = []  # exited by themselves
    killed: list[str] = []  # killed by a fault (restarted whatever --restart-dead says)
    restarts: list[str] = []
    expected: set[str] = set()  # names the harness killed and will start again
    due: dict[str, float] = {}  # name -> when the supervisor starts it again
    handled: set[int] = set()  # pids of exited processes already dealt with
    later: list[tuple[float, str, object]] = []  # (when, label, action): a fault's second half
    watches: list[dict] = []  # recovery conditions polled until they hold
    recovery: dict[str, float | None] = {}
    t0 = time.monotonic()
    last_fault = [t0]

    def note(text: str) -> None:
        log.append(f"{time.monotonic() - t0:6.1f}s {text}")
        print(log[-1], file=sys.stderr, flush=True)

    def watch(label: str, check, limit: float = 60.0) -> None:
        watches.append({"label": label, "check": check, "since": time.monotonic(), "limit": limit})

    def tick() -> None:
        """One round of the supervisor: scheduled halves of faults, dead processes, recovery watches."""
        now = time.monotonic()
        for item in sorted(later, key=lambda x: x[0]):
            if item[0] <= now:
                later.remove(item)
                item[2]()
                note(item[1])
                last_fault[0] = time.monotonic()
        for name, proc in list(stack.procs.items()):
            if name in due or proc.poll() is None or proc.pid in handled:
                continue
            handled.add(proc.pid)
            # As runplatform: whatever the process left behind goes with it, then it starts again.
            left = group_members(proc.pid)
            if left:
                serving = name == "web" and http_answers(stack.port)
                note(f"{name} exited ({proc.returncode}); its group still had {len(left)} process(es) {left}"
                     f"{' answering on the port' if serving else ''}: killing the group")
            stack.end_group(name)
            if name in expected:
                due[name] = now + (2.0 if name.startswith("worker") else RESTART_DELAY_S)
            else:
                dead.append(f"{name} (exit {proc.returncode})")
                note(f"{name} died with exit code {proc.returncode}")
                if args.restart_dead:
                    due[name] = now + RESTART_DELAY_S
        for name, at in list(due.items()):
            if now < at:
                continue
            pgid = stack.procs[name].pid
            if group_members(pgid) and now < at + 5:
                continue  # the old group is still dying (it may hold the port)
            del due[name]
            stack.spawn(name)
            restarts.append(name)
            note(f"{name} started again by the harness's supervisor (as runplatform does)")
            if name in expected:
                expected.discard(name)
                last_fault[0] = time.monotonic()
        for w in list(watches):
            waited = time.monotonic() - w["since"]
            if w["check"]():
                watches.remove(w)
                recovery[w["label"]] = round(waited, 2)
                note(f"{w['label']}: {waited:.1f} s")
            elif waited > w["limit"]:
                watches.remove(w)
                recovery[w["label"]] = None
                note(f"{w['label']}: NOT within {w['limit']:.0f} s")

    def wait_until(moment: float) -> None:
        while time.monotonic() < moment:
            tick()
            time.sleep(min(0.2, max(0.0, moment - time.monotonic())))

    def timer_name_of(pid: int | None) -> str | None:
        return next((n for n in TIMERS if n in stack.procs and stack.procs[n].pid == pid), None)

    def sweeping_timer() -> str:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            name = timer_name_of(lease_holder())
            if name is not None and stack.procs[name].poll() is None:
                return name
            tick()
            time.sleep(0.1)
        raise RuntimeError("no timer holds the lease")

    def taken_over_from(pid: int):
        return lambda: lease_holder() not in (None, pid)

    def inject(fault: str) -> None:
        if fault == "kill_worker":
            expected.add("worker0")
            killed.append("worker0")
            os.kill(stack.procs["worker0"].pid, signal.SIGKILL)
            note("SIGKILL worker0")
        elif fault == "drop_db":
            note(f"pg_terminate_backend: {drop_db_connections()} connections dropped")
        elif fault == "restart_redis":
            redis.stop()
            note("redis stopped (queued tasks and channel messages lost)")
            later.append((time.monotonic() + args.redis_down, "redis started (empty)", redis.start))
        elif fault == "kill_timer":
            name = sweeping_timer()
            pid = stack.procs[name].pid
            expected.add(name)
            killed.append(name)
            os.kill(pid, signal.SIGKILL)
            note(f"SIGKILL {name} (pid {pid}, holding the lease)")
            watch("kill_timer: lease taken over by the other timer", taken_over_from(pid), limit=30)
        elif fault == "freeze_timer":
            name = sweeping_timer()
            pid = stack.procs[name].pid
            os.kill(pid, signal.SIGSTOP)
            note(f"SIGSTOP {name} (pid {pid}, holding the lease) for {args.freeze_seconds:g} s")
            watch("freeze_timer: lease taken over by the other timer", taken_over_from(pid),
                  limit=args.freeze_seconds)

            def thaw() -> None:
                os.kill(pid, signal.SIGCONT)
                holder = timer_name_of(lease_holder())
                note(f"{name} resumed; the lease is held by {holder}")

            later.append((time.monotonic() + args.freeze_seconds, f"SIGCONT {name}", thaw))
        elif fault == "kill_uvicorn_worker":
            workers = stack.web_workers()
            if not workers:
                note("kill_uvicorn_worker: no uvicorn worker found")
                return

            def held(p) -> int:
                try:
                    return sum(1 for c in p.net_connections(kind="tcp")
                               if c.status == "ESTABLISHED" and c.laddr and c.laddr.port == stack.port)
                except Exception:
                    return 0

            victim = max(workers, key=held)
            old = {p.pid for p in workers}
            sockets_held = held(victim)
            os.kill(victim.pid, signal.SIGKILL)
            note(f"SIGKILL uvicorn worker {victim.pid} ({sockets_held} connections on it)")
            watch("kill_uvicorn_worker: uvicorn's master started a new worker",
                  lambda: len([p for p in stack.web_workers() if p.pid not in old]) >= 1
                  and len(stack.web_workers()) >= args.web_processes)
        elif fault == "kill_uvicorn_master":
            master = stack.procs["web"].pid
            workers = [p.pid for p in stack.web_workers()]
            expected.add("web")
            killed.append("web")
            os.kill(master, signal.SIGKILL)
            note(f"SIGKILL uvicorn master {master} (workers {workers} orphaned)")
            watch("kill_uvicorn_master: uvicorn serving again (new master)",
                  lambda: stack.procs["web"].pid != master and "web" not in due and http_answers(stack.port))
        last_fault[0] = time.monotonic()

    fault_times: list[tuple[str, float]] = []
    try:
        stack.start()
        since = timezone.now()
        tables = Tables(args.tables, args.turn_seconds)
        tables.open()
        t0 = time.monotonic()  # the fault schedule counts from the start of play
        last_fault[0] = t0
        socket_slots = [slot for slot in tables.slots if slot["cookie"]]
        note(f"{len(tables.slots)} tables started; {len(socket_slots)} socket players; "
             f"load average {os.getloadavg()[0]:.1f}")
        tables.keep_playing(stop_at=t0 + args.seconds)
        sockets = SocketPlayers(stack.port, socket_slots, t0, stop_at=t0 + args.seconds)
        sockets.thread.start()
        spacing = 0.6 / max(1, len(chosen))
        for k, fault in enumerate(chosen):
            wait_until(t0 + (0.2 + k * spacing) * args.seconds)
            fault_times.append((fault, time.time()))
            inject(fault)
        wait_until(t0 + args.seconds)
        note("play over; draining")
        wait_until(time.monotonic() + args.drain)
        tick()
        faults_over = last_fault[0] if chosen else t0
        result = {**audit(tables.ids, since, fault_times), **sockets.result(faults_over),
                  "tables_opened": len(tables.ids), "table_refill_failures": dict(tables.failures)}
        note(f"audit done; faults over at {faults_over - t0:.1f} s")
        for label in [w["label"] for w in watches]:
            recovery[label] = None
    finally:
        stack.stop()
        redis.stop()
    return {"started": started, "tables_started": args.tables, "workers": args.workers,
            "web_processes": args.web_processes, "seconds": args.seconds, "drain": args.drain,
            "faults": ",".join(chosen), **result, "recovery_s": recovery, "dead_processes": dead, "killed": killed,
            "restarted": restarts, "loadavg_end": [round(x, 2) for x in os.getloadavg()], "log": log}


def clean(result: dict, restart_dead: bool) -> bool:
    """The acceptance of issue 22: no game stalled, no move applied twice or lost (contiguous move and event
    seqs), no automatic move more than 5 s late, the ledger clean, every fault healed, every socket's moves
    after the faults answered; and no process crashed, or with --restart-dead every crashed one was started
    again (crashes stay listed in dead_processes either way)."""
    crashed = [entry.split(" ")[0] for entry in result["dead_processes"]]
    left_dead = [name for name in crashed if not restart_dead or name not in result["restarted"]]
    return not (result["games_lost"] or result["applied_twice"] or result["late_over_5s"]
                or result["ledger_problems"] or left_dead
                or any(v is None for v in result["recovery_s"].values())) and result["sockets_all_answered"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--web-processes", type=int, default=2, help="uvicorn --workers (runplatform's default 2)")
    parser.add_argument("--seconds", type=float, default=90, help="play phase; the faults are spread over 20-80%%")
    parser.add_argument("--faults", default=",".join(FAULTS),
                        help=f"comma-separated, in order (default all): {', '.join(FAULTS)}; '' for none")
    parser.add_argument("--restart-dead", action="store_true",
                        help="restart a process that died by itself (as runplatform does) and go on")
    parser.add_argument("--drain", type=float, default=40, help="seconds after the play phase before the audit")
    parser.add_argument("--turn-seconds", type=int, default=2)
    parser.add_argument("--redis-down", type=float, default=2.0)
    parser.add_argument("--freeze-seconds", type=float, default=20.0)
    args = parser.parse_args()
    result = run(args)
    result["clean"] = clean(result, args.restart_dead)
    print(json.dumps(result))
    sys.exit(0 if result["clean"] else 1)


if __name__ == "__main__":
    main()
