"""Selectors for /healthz: each check returns (ok, detail) and never raises."""

from __future__ import annotations

import time

from django.conf import settings
from django.db import connection

from core.cache import cache

TIMER_HEARTBEAT_KEY = "timers:heartbeat"  # {"at": epoch seconds of the last sweep, "by": timer name}
TIMER_STALE_AFTER_S = 5.0  # the sweeping timer beats every second (timers.HEARTBEAT_EVERY_S): 5 s without one is a stall
REPORT_TTL_S = 5.0  # /healthz answers from a report at most this old (per process)
PING_TIMEOUT_S = 1.0  # workers on the same network answer a ping in milliseconds, a busy one in less than this
DEEP_PING_TIMEOUT_S = 2.0

_last_report: list = []  # [(monotonic time, report)]


def report(*, deep: bool = False) -> dict:
    """Every check with its detail and an overall ``status`` ("ok" or "degraded")."""
    now = time.monotonic()
    if not deep and _last_report and now - _last_report[0][0] < REPORT_TTL_S:
        return _last_report[0][1]
    checks = {
        "database": database_status(),
        "redis": redis_status(),
        "celery": celery_status(timeout=DEEP_PING_TIMEOUT_S if deep else PING_TIMEOUT_S),
        "timer": timer_status(),
    }
    ok = all(result for result, _ in checks.values())
    body: dict = {"status": "ok" if ok else "degraded"}
    body.update({name: {"ok": result, "detail": detail} for name, (result, detail) in checks.items()})
    _last_report[:] = [(time.monotonic(), body)]
    return body


def database_status() -> tuple[bool, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure is a "not ok", reported, never raised
        return False, type(exc).__name__
    return True, connection.vendor


def redis_status() -> tuple[bool, str]:
    import redis

    try:
        client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
        client.ping()
    except Exception as exc:
        return False, type(exc).__name__
    return True, "embedded" if settings.REDIS_EMBEDDED else "external"


def celery_status(timeout: float = 2.0) -> tuple[bool, str]:
    from celery import current_app  # the project's app (config.celery), without core importing config

    try:
        replies = current_app.control.ping(timeout=timeout)
    except Exception as exc:
        return False, type(exc).__name__
    if not replies:
        return False, "no worker answered"
    return True, f"{len(replies)} worker(s)"


def timer_beat(name: str) -> None:
    """Written by the sweeping timer after every sweep (gameworkers/management/commands/runtimers.py)."""
    try:
        cache.set(TIMER_HEARTBEAT_KEY, {"at": time.time(), "by": name}, timeout=3600)
    except Exception:  # the cache being down is reported by redis_status, not the timer's to die of
        pass


def timer_status() -> tuple[bool, str]:
    """Whether some timer swept within TIMER_STALE_AFTER_S (automatic moves are otherwise late)."""
    try:
        last = cache.get(TIMER_HEARTBEAT_KEY)
    except Exception as exc:
        return False, type(exc).__name__
    if not last:
        return False, "no timer has swept"
    age = max(0.0, time.time() - last["at"])
    if age > TIMER_STALE_AFTER_S:
        return False, f"last sweep {age:.1f} s ago ({last['by']})"
    return True, f"last sweep {age:.1f} s ago"
