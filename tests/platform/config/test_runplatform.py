"""``manage.py runplatform`` supervises its processes: a killed uvicorn master comes back (its orphaned
workers are cleared off the port first) and the healthy processes are left alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT, free_port, stop_process, subprocess_env

pytestmark = pytest.mark.django_db(transaction=True)


def _children(pid: int) -> dict[int, str]:
    """Direct children of ``pid``: pid -> command line."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == pid:
                found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError, IndexError):
            continue
    return found


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except Exception:
        return False


def _wait(predicate, seconds: float, what: str):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"not within {seconds} s: {what}")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_killed_uvicorn_master_is_restarted_and_the_others_keep_running():
    port = free_port()
    env = subprocess_env(DEBUG="false", SECURE_SSL_REDIRECT="false")
    supervisor = subprocess.Popen([sys.executable, "manage.py", "runplatform", "--port", str(port),
                                   "--web-processes", "2", "--workers", "1"],
                                  cwd=ROOT, env=env, start_new_session=True,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/accounts/login/"
    try:
        _wait(lambda: _answers(url), 60, "the platform answers")
        before = _children(supervisor.pid)
        masters = [pid for pid, cmd in before.items() if "uvicorn" in cmd]
        others = {pid for pid in before} - set(masters)
        assert len(masters) == 1 and len(others) == 3  # a Celery worker and two timers
        master = masters[0]
        web_workers = [pid for pid, cmd in _children(master).items() if "spawn_main" in cmd]
        assert len(web_workers) == 2

        os.kill(master, signal.SIGKILL)  # the master alone: its workers are orphaned, holding the port
        new_master = _wait(lambda: [pid for pid, cmd in _children(supervisor.pid).items()
                                    if "uvicorn" in cmd and pid != master], 30, "a new uvicorn master")[0]
        _wait(lambda: sum("spawn_main" in cmd for cmd in _children(new_master).values()) == 2 and _answers(url),
              60, "the new master serves")
        for pid in web_workers:  # the orphans were ended, not left beside the new ones
            assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
        assert others <= set(_children(supervisor.pid))  # the worker and the timers were left alone
        assert supervisor.poll() is None
    finally:
        stop_process(supervisor)
    log = supervisor.stderr.read().decode(errors="replace") if supervisor.stderr else ""
    assert "web exited" in log and "stopping everything" not in log


def test_the_server_closes_a_socket_sending_a_frame_over_the_cap_and_answers_smaller_ones():
    """Up to WS_MAX_BYTES a frame too large for the protocol is answered `too_large`; above it the
    server closes with 1009 without reading it whole (uvicorn's own default was 16 MiB)."""
    import asyncio
    import json

    import websockets
    from django.test import Client

    from accounts.services import user_create
    from config.management.commands.runplatform import UVICORN_WS_OPTIONS, WS_MAX_BYTES
    from rooms import services
    from rooms.models import Room

    user = user_create(username="big", password="pass-word-123")
    client = Client()
    client.force_login(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}"
    table = services.table_open(room=Room.objects.create(name="Cap", slug="cap", game="lembar", seats=2,
                                                         min_seats=2), host=user)
    port = free_port()
    web = subprocess.Popen([sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1",
                            "--port", str(port), *UVICORN_WS_OPTIONS, "--log-level", "warning"],
                           cwd=ROOT, env=subprocess_env(DEBUG="false", SECURE_SSL_REDIRECT="false"),
                           start_new_session=True)

    async def run() -> tuple[str, int | None]:
        url = f"ws://127.0.0.1:{port}/ws/tables/{table.pk}/"
        headers = {"Cookie": cookie, "Origin": "http://127.0.0.1"}
        async with websockets.connect(url, additional_headers=headers, max_size=2**22) as ws:
            await ws.recv()  # the snapshot
            await ws.send(json.dumps({"type": "ping", "pad": "x" * (WS_MAX_BYTES - 100)}))
            answered = json.loads(await ws.recv())["code"]
            await ws.send(json.dumps({"type": "ping", "pad": "x" * (WS_MAX_BYTES + 100)}))
            try:
                await asyncio.wait_for(ws.recv(), 10)
            except websockets.ConnectionClosed as closed:
                return answered, closed.rcvd.code if closed.rcvd else None
        return answered, None

    try:
        _wait(lambda: _answers(f"http://127.0.0.1:{port}/accounts/login/"), 60, "uvicorn answers")
        assert asyncio.run(run()) == ("too_large", 1009)
    finally:
        stop_process(web)
