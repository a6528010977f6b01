import os
import signal
import subprocess
import sys
import time

import pytest
from django.core.cache import cache
from django.urls import reverse

from core import health
from gameworkers import timers
from tests.conftest import ROOT, stop_process, subprocess_env


@pytest.fixture(autouse=True)
def _fresh_report():
    health._last_report.clear()  # each test reads its own checks, not an earlier test's report
    yield
    health._last_report.clear()


@pytest.mark.django_db
def test_healthz_reports_degraded_without_a_worker(client, monkeypatch):
    monkeypatch.setattr(health, "celery_status", lambda timeout=2.0: (False, "no worker answered"))
    body = client.get(reverse("healthz"))
    assert body.status_code == 503
    data = body.json()
    assert data["status"] == "degraded"
    assert data["database"]["ok"] and data["redis"]["ok"] and not data["celery"]["ok"]


def test_healthz_all_ok_with_a_real_celery_worker(client, celery_worker_process):
    health.timer_beat("test-timer")
    data = client.get(reverse("healthz") + "?deep=1").json()  # the 2 s ping: a worker under load may be slow
    assert data == {**data, "status": "ok"}
    assert data["database"]["ok"] and data["redis"]["ok"] and data["celery"]["ok"]


@pytest.mark.django_db
def test_redis_down_is_reported_not_raised(client, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    ok, detail = health.redis_status()
    assert not ok and detail


@pytest.mark.django_db
def test_a_stalled_timer_makes_healthz_degraded(client, monkeypatch):
    monkeypatch.setattr(health, "celery_status", lambda timeout=2.0: (True, "1 worker(s)"))
    assert client.get(reverse("healthz")).json()["timer"] == {"ok": False, "detail": "no timer has swept"}
    health._last_report.clear()
    cache.set(health.TIMER_HEARTBEAT_KEY, {"at": time.time() - 20, "by": "host:1"})
    body = client.get(reverse("healthz"))
    assert body.status_code == 503 and body.json()["status"] == "degraded"
    assert body.json()["timer"]["detail"].startswith("last sweep 20.") and "host:1" in body.json()["timer"]["detail"]
    health._last_report.clear()
    health.timer_beat("host:2")
    body = client.get(reverse("healthz"))
    assert body.status_code == 200 and body.json()["timer"]["ok"]


@pytest.mark.django_db
def test_healthz_answers_from_a_short_lived_report_and_deep_checks_afresh(client, monkeypatch):
    pings = []
    monkeypatch.setattr(health, "celery_status", lambda timeout=2.0: pings.append(timeout) or (True, "1 worker(s)"))
    health.timer_beat("t")
    for _ in range(5):
        assert client.get(reverse("healthz")).status_code == 200
    assert pings == [health.PING_TIMEOUT_S]  # one ping for five calls
    client.get(reverse("healthz") + "?deep=1")
    assert pings == [health.PING_TIMEOUT_S, health.DEEP_PING_TIMEOUT_S]


def test_one_timer_holds_the_lease_and_another_takes_over_when_it_lapses(monkeypatch):
    monkeypatch.setattr(timers, "LEASE_S", 1)  # whole seconds: the cache rounds timeouts down
    assert timers.hold_lease("a") and timers.hold_lease("a")  # taken, then renewed
    assert not timers.hold_lease("b")
    time.sleep(1.3)  # "a" froze: its lease lapsed
    assert timers.hold_lease("b") and not timers.hold_lease("a")


@pytest.mark.django_db(transaction=True)
def test_a_frozen_timer_process_is_replaced_by_the_standby():
    """Two real runtimers processes: freeze the sweeping one (SIGSTOP); the other sweeps within
    a few seconds, and /healthz's heartbeat names it."""
    env = subprocess_env()
    procs = [subprocess.Popen([sys.executable, "manage.py", "runtimers", "--interval", "0.1"], cwd=ROOT, env=env,
                              start_new_session=True) for _ in range(2)]
    try:
        def sweeper(deadline_s: float, not_pid: int | None = None) -> int:
            end = time.monotonic() + deadline_s
            while time.monotonic() < end:
                beat = cache.get(health.TIMER_HEARTBEAT_KEY)
                if beat and time.time() - beat["at"] < 1:
                    pid = int(beat["by"].rsplit(":", 1)[1])
                    if pid != not_pid:
                        return pid
                time.sleep(0.1)
            raise AssertionError("no timer swept")

        first = sweeper(30)
        assert first in {p.pid for p in procs}
        os.kill(first, signal.SIGSTOP)
        second = sweeper(10, not_pid=first)
        assert second in {p.pid for p in procs} - {first}
        assert health.timer_status()[0]
        os.kill(first, signal.SIGCONT)
        time.sleep(1)  # the thawed timer finds the lease taken and stands by
        assert int(cache.get(health.TIMER_HEARTBEAT_KEY)["by"].rsplit(":", 1)[1]) == second
    finally:
        for proc in procs:
            try:
                os.kill(proc.pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
            stop_process(proc)
