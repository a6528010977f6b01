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
UVICORN_WS_OPTIONS = ["--ws", "websockets-sansio", "--ws-per-message-deflate", "false"]

CRASH_LOOP_RESTARTS = 5  # restarts of one process within the window before giving up
CRASH_LOOP_WINDOW_S = 60


class Command(BaseCommand):
    help = "Start the ASGI server, a Celery worker and the turn-timer process (and the embedded Redis)."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--workers", type=int, default=int(os.environ.get("CELERY_CONCURRENCY", "2")))
        # Each ASGI process applies its own sockets' moves (rooms.move_pool): one per core.
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
            "worker": [py, "-m", "celery", "-A", "config", "worker", "-Q", "moves,bots",
                       "--concurrency", str(workers), "--loglevel", "INFO", "-n", f"worker-{os.getpid()}@%h"],
            "timers": [py, os.path.join(root, "manage.py"), "runtimers"],
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
            while not stopping:
                for name, child in list(children.items()):
                    if child.poll() is None:
                        continue
                    # A process that dies is started again (Celery's worker can die on a broker
                    # connection lost at the wrong moment); one that keeps dying stops everything.
                    now = time.monotonic()
                    recent = [t for t in restarts[name] if now - t < CRASH_LOOP_WINDOW_S]
                    if len(recent) >= CRASH_LOOP_RESTARTS:
                        self.stderr.write(f"{name} keeps exiting ({child.returncode}); stopping everything")
                        stopping = True
                        break
                    self.stderr.write(f"{name} exited with {child.returncode}; starting it again")
                    restarts[name] = [*recent, now]
                    children[name] = subprocess.Popen(commands[name], cwd=root, env=env, start_new_session=True)
                time.sleep(0.3)
        finally:
            for child in children.values():
                if child.poll() is None:
                    os.killpg(child.pid, signal.SIGTERM)
            deadline = time.monotonic() + 15
            for child in children.values():
                try:
                    child.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    os.killpg(child.pid, signal.SIGKILL)
                    child.wait()
            if started_redis:
                embedded.stop()
            self.stdout.write("stopped")
