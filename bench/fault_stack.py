"""The fault harness's platform: its own Redis and PostgreSQL database, and the stack run as
``manage.py runplatform`` runs it, each process in a process group of its own (see bench/faults.py).

Importing this module points the environment at the harness's Redis and database (before
``bench.load`` reads it): import it before anything that sets Django up.
"""

from __future__ import annotations

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
# The harness's fresh humans sit at Kelereng tables at once: their whole welcome grant now, not after a
# first game or a day (economy.md; an unknown setting is ignored).
os.environ.setdefault("WELCOME_REAL_VALUE_DELAY_H", "0")
os.environ.setdefault("WELCOME_REQUIRES_VERIFIED_EMAIL", "0")  # its players have no e-mail to verify
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]

from bench import load  # noqa: E402  (after the environment: load.py only sets defaults)

TIMERS = ("timer0", "timer1")


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


class Platform(load.Stack):
    """bench/load.py's stack as ``manage.py runplatform`` runs it: uvicorn with ``--workers``, the Celery
    workers, two timers; every process the leader of a process group of its own (start_new_session), so
    that what a dead process leaves behind (a uvicorn master's workers) can be ended with it."""

    def command(self, name: str) -> list[str]:
        py = sys.executable
        if name == "web":
            return [py, "-m", "uvicorn", "config.asgi:application", "--port", str(self.port), "--no-access-log",
                    "--log-level", "warning", *load.UVICORN_WS_OPTIONS,
                    *(["--workers", str(self.web_processes)] if self.web_processes > 1 else [])]
        if name.startswith("worker"):
            return [py, "-m", "celery", "-A", "config", "worker", "-Q", "default,bots", "--concurrency", "1",
                    "--pool", "solo", "--loglevel", "WARNING", "-n", f"faults{name[6:]}-{os.getpid()}@%h",
                    "--without-gossip", "--without-mingle", "--without-heartbeat"]
        return [py, "manage.py", "runtimers", "--interval", "0.1"]

    def names(self) -> list[str]:
        return ["web", *(f"worker{i}" for i in range(self.workers)), *TIMERS]

    def spawn(self, name: str) -> subprocess.Popen:
        self.procs[name] = subprocess.Popen(self.command(name), cwd=ROOT, env=self.env, start_new_session=True)
        return self.procs[name]

    def start(self) -> None:
        for name in self.names():
            self.spawn(name)
        deadline = time.monotonic() + 90
        while not (http_answers(self.port) and lease_holder() is not None):
            if time.monotonic() > deadline:
                raise RuntimeError("the platform did not come up within 90 s")
            time.sleep(0.5)
        time.sleep(2)  # the Celery workers

    def start_worker(self, i: int) -> subprocess.Popen:
        return self.spawn(f"worker{i}")

    def end_group(self, name: str, sig: int = signal.SIGKILL) -> list[int]:
        """Signal the process group of ``name`` (its leader may be gone); returns the pids still in it."""
        pgid = self.procs[name].pid
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        return group_members(pgid)

    def web_workers(self) -> list:
        """uvicorn's worker processes (multiprocessing spawn children of the master)."""
        import psutil

        try:
            children = psutil.Process(self.procs["web"].pid).children()
        except psutil.Error:
            return []
        found = []
        for child in children:
            try:
                if "spawn_main" in " ".join(child.cmdline()):
                    found.append(child)
            except psutil.Error:
                pass
        return found

    def stop(self) -> None:
        for name in list(self.procs):
            self.end_group(name, signal.SIGCONT)  # a frozen timer cannot act on SIGTERM
            self.end_group(name, signal.SIGTERM)
        deadline = time.monotonic() + 20
        for name, proc in self.procs.items():
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            self.end_group(name, signal.SIGKILL)
            proc.wait()


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group."""
    import psutil

    members = []
    for p in psutil.process_iter(["status"]):
        try:
            if p.info["status"] != psutil.STATUS_ZOMBIE and os.getpgid(p.pid) == pgid:
                members.append(p.pid)
        except (ProcessLookupError, psutil.Error):
            pass
    return members


def http_answers(port: int) -> bool:
    """Whether an HTTP server answers on the port (any status line: a 404 costs the server least)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.settimeout(2)
            s.sendall(b"GET /faults-probe HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return s.recv(12).startswith(b"HTTP/1.1")
    except OSError:
        return False


def lease_holder() -> int | None:
    """The pid of the timer that holds the sweeping lease (gameworkers.timers), None when none holds it."""
    from django.core.cache import cache

    from gameworkers.timers import LEASE_KEY

    try:
        name = cache.get(LEASE_KEY)
    except Exception:  # the harness's own Redis restarting
        return None
    return int(name.rsplit(":", 1)[1]) if name else None


def ensure_database() -> None:
    if not os.environ["DATABASE_URL"].startswith("postgres"):
        raise SystemExit("bench/faults.py needs PostgreSQL (pg_terminate_backend)")
    load.ensure_database()


def drop_db_connections() -> int:
    """pg_terminate_backend for every other connection to the app's database (workers, timer, web)."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        return len(cur.fetchall())
