"""config.celery: a worker that lost its broker (a Redis restart) is back within a second of it, not after
kombu's growing waits (2, 4, 6 ... 30 s), while the due deadlines' tasks wait for it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pytest
import redis
from celery.utils.imports import symbol_by_name

from config.celery import BROKER_RETRY_S, BrokerRetryingConsumer, app
from tests.conftest import ROOT, free_port, stop_process, subprocess_env


class _Connection:
    def __init__(self) -> None:
        self.calls: list[dict] = []

    def ensure_connection(self, errback=None, max_retries=None, **options):
        self.calls.append(options)
        return self


def test_the_workers_consumer_retries_the_broker_at_short_intervals():
    assert symbol_by_name(app.conf.worker_consumer) is BrokerRetryingConsumer
    consumer = BrokerRetryingConsumer.__new__(BrokerRetryingConsumer)  # only what ensure_connected reads
    consumer.app, consumer.first_connection_attempt, consumer.broker_connection_retry_attempt = app, False, 0
    connection = _Connection()
    assert consumer.ensure_connected(connection) is connection
    start, step, longest = BROKER_RETRY_S
    assert connection.calls[0] | {"callback": None} == {"interval_start": start, "interval_step": step,
                                                         "interval_max": longest, "callback": None}
    assert longest <= 2


def _redis_server(port: int) -> subprocess.Popen:
    server = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no"], stdout=subprocess.DEVNULL, start_new_session=True)
    for _ in range(100):
        if subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True, text=True).stdout.strip() == "PONG":
            return server
        time.sleep(0.05)
    raise RuntimeError("redis-server did not start")


def _consuming(port: int) -> bool:
    """Whether a client of this Redis server waits on a queue (a worker's consumer, BRPOP)."""
    try:
        return any(c.get("cmd") == "brpop" for c in redis.Redis(port=port, socket_timeout=1).client_list())
    except redis.ConnectionError:
        return False


@pytest.mark.django_db(transaction=True)
def test_a_real_worker_consumes_again_soon_after_its_redis_restarts():
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    port = free_port()
    server = _redis_server(port)
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "default", "--pool", "solo",
         "--loglevel", "ERROR", "-n", f"restart-{os.getpid()}@%h", "--without-gossip", "--without-mingle"],
        cwd=ROOT, env=subprocess_env(REDIS_URL=f"redis://127.0.0.1:{port}/0"), start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def consuming_within(seconds: float) -> float | None:
        begin = time.monotonic()
        while time.monotonic() - begin < seconds:
            if _consuming(port):
                return time.monotonic() - begin
            time.sleep(0.05)
        return None

    try:
        assert consuming_within(60) is not None, "the worker never consumed"
        stop_process(server)
        server.wait(10)
        time.sleep(2.2)  # kombu's own waits would try at 0 and 2 s, then not before 6 s
        server = _redis_server(port)
        back = consuming_within(10)
        assert back is not None and back < 2.0, back  # waits of 0.5, 1, 1.5, 2 s: back within ~1 s
    finally:
        stop_process(worker)
        stop_process(server)
