"""The ASGI server's database connections are bounded (a real uvicorn on PostgreSQL).

Django runs each HTTP request of an ASGI server on a thread of its own; with persistent connections
each such thread left a connection open, so bursts of requests piled connections up until PostgreSQL
refused new clients. The ASGI process uses a bounded pool instead.
"""

from __future__ import annotations

import concurrent.futures
import subprocess
import sys
import time
import urllib.request

import pytest
from django.db import connection

from tests.conftest import ROOT, free_port, stop_process, subprocess_env

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's connection count")]

POOL_SIZE = 6


def _server_connections() -> int:
    """Connections to the test database other than this test's own."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                       "AND pid <> pg_backend_pid()")
        return cursor.fetchone()[0]


def _get(url: str) -> int:
    with urllib.request.urlopen(url, timeout=30) as response:
        response.read()
        return response.status


def test_bursts_of_concurrent_requests_leave_a_bounded_number_of_connections():
    port = free_port()
    env = subprocess_env(DEBUG="false", SECURE_SSL_REDIRECT="false", DB_POOL_SIZE=str(POOL_SIZE), MOVE_THREADS="1")
    baseline = _server_connections()
    web = subprocess.Popen([sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1",
                            "--port", str(port), "--log-level", "warning", "--no-access-log"],
                           cwd=ROOT, env=env, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}/api/rooms/"
        deadline = time.monotonic() + 60
        while True:
            try:
                _get(url)
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
        counts = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=30) as pool:
            for _ in range(4):
                assert set(pool.map(_get, [url] * 30)) == {200}
                time.sleep(0.5)
                counts.append(_server_connections() - baseline)
        # Before: 30 more after every burst (31, 61, 91, ...), each open until its thread was collected.
        assert max(counts) <= POOL_SIZE, counts
    finally:
        stop_process(web)
