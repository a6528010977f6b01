"""Run the whole platform locally: (embedded Redis), ASGI server, Celery worker, timer.

Ctrl-C (or SIGTERM) stops every child process and the embedded Redis.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand

from config import embedded

# websockets' Sans-I/O protocol (uvicorn's default since 0.50; the "websockets" one is built on the
# library's deprecated legacy module and runs three tasks per connection). Frames are a few KB of JSON:
# compressing each one for each socket cost more CPU than any other step of sending it, for little
# saved bandwidth.
# Frames over WS_MAX_BYTES close the socket (1009) before they are read whole: a client frame is at most
# 4 KB (answered `too_large` up to this size), and uvicorn's default of 16 MiB let one socket make the
# server buffer 16 MiB.
WS_MAX_BYTES = 65536
UVICORN_WS_OPTIONS = ["--ws", "websockets-sansio", "--ws-per-message-deflate", "false",
                      "--ws-max-size", str(WS_MAX_BYTES)]

CRASH_LOOP_RESTARTS = 5  # restarts of one process within the window before it is restarted slowly
CRASH_LOOP_WINDOW_S = 60
CRASH_LOOP_DELAY_S = 30  # a crash-looping process waits this long before each next start


def _end_group(child: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    """Signal a child's whole process group: a uvicorn master killed on its own leaves its workers
    running (holding the port, so every restart failed "address in use")."""
    try:
        os.killpg(child.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class Command(BaseCommand):
    help = "Start the ASGI server, a Celery worker and two turn-timer processes (and the embedded Redis)."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--workers", type=int, default=int(os.environ.get("CELERY_CONCURRENCY", "2")))
        # Each ASGI process applies its own sockets' moves (live.move_pool): one per core.
        parser.add_argument("--web-processes", type=int, default=int(os.environ.get("WEB_PROCESSES", "2")))

    def handle(self, *args, host, port, workers, web_processes, **kw):
        root = str(settings.BASE_DIR)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([root, os.path.join(root, "platform"), env.get("PYTHONPATH", "")])
        env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        started_redis = False
        if settings.REDIS_EMBEDDED:
            embedded.start()
            started_redis = True
            self.stdout.write(f"embedded Redis on {embedded.SOCKET_PATH}")
        py = sys.executable
        commands = {
            "web": [py, "-m", "uvicorn", "config.asgi:application", "--host", host, "--port", str(port),
                    "--no-access-log", *UVICORN_WS_OPTIONS,
                    *(["--workers", str(web_processes)] if web_processes > 1 else [])],
            "worker": [py, "-m", "celery", "-A", "config", "worker", "-Q", "default,bots",
                       "--concurrency", str(workers), "--loglevel", "INFO", "-n", f"worker-{os.getpid()}@%h"],
            # Two timers: one sweeps, the other takes over within seconds if it stalls (runtimers).
            "timers": [py, os.path.join(root, "manage.py"), "runtimers"],
            "timers-standby": [py, os.path.join(root, "manage.py"), "runtimers"],
        }
        children: dict[str, subprocess.Popen] = {}
        stopping = False

        def stop(*_):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        try:
            for name, cmd in commands.items():
                children[name] = subprocess.Popen(cmd, cwd=root, env=env, start_new_session=True)
            self.stdout.write(self.style.SUCCESS(f"Cardroom is running at http://{host}:{port}/  (Ctrl-C stops it)"))
            restarts: dict[str, list[float]] = {name: [] for name in commands}
            due: dict[str, float] = {}  # name -> when to start it again
            while not stopping:
                now = time.monotonic()
                for name, child in list(children.items()):
                    if name in due or child.poll() is None:
                        continue
                    # Whatever the process left behind (a uvicorn master's workers) goes with it, then
                    # it starts again. One that keeps dying is started again more slowly; the healthy
                    # processes go on serving either way.
                    _end_group(child)
                    recent = [t for t in restarts[name] if now - t < CRASH_LOOP_WINDOW_S]
                    delay = CRASH_LOOP_DELAY_S if len(recent) >= CRASH_LOOP_RESTARTS else 0.5
                    self.stderr.write(f"{name} exited with {child.returncode}; starting it again in {delay:g} s")
                    restarts[name] = [*recent, now]
                    due[name] = now + delay
                for name, at in list(due.items()):
                    if now >= at:
                        del due[name]
                        children[name] = subprocess.Popen(commands[name], cwd=root, env=env, start_new_session=True)
                time.sleep(0.3)
        finally:
            for child in children.values():
                _end_group(child, signal.SIGTERM)
            deadline = time.monotonic() + 15
            for child in children.values():
                try:
                    child.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    _end_group(child)
                    child.wait()
            if started_redis:
                embedded.stop()
            self.stdout.write("stopped")
