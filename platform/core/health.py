"""Selectors for /healthz: each check returns (ok, detail) and never raises."""

from __future__ import annotations

from django.conf import settings
from django.db import connection


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
    from config.celery import app

    try:
        replies = app.control.ping(timeout=timeout)
    except Exception as exc:
        return False, type(exc).__name__
    if not replies:
        return False, "no worker answered"
    return True, f"{len(replies)} worker(s)"
