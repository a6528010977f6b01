"""`make test` runs the suite on pytest-xdist workers: each worker's Redis users (cache, Celery, the
channel layer) share one Redis database of the worker's own (tests/conftest.py)."""

from __future__ import annotations

import pytest
import redis
from django.conf import settings

from tests.conftest import worker_redis_url, xdist_worker_index


def test_the_worker_redis_url_adds_the_worker_index_to_the_database_number():
    assert worker_redis_url("redis://127.0.0.1:6379/11", 1) == "redis://127.0.0.1:6379/12"
    assert worker_redis_url("redis://127.0.0.1:6379", 1) == "redis://127.0.0.1:6379/1"
    assert worker_redis_url("rediss://u:p@cache:6380/0?ssl_cert_reqs=required", 0) == (
        "rediss://u:p@cache:6380/0?ssl_cert_reqs=required")
    with pytest.raises(pytest.UsageError):
        worker_redis_url("unix:///tmp/redis.sock", 1)


def test_the_worker_index_comes_from_xdist(monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw3")
    assert xdist_worker_index() == 3
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    assert xdist_worker_index() is None


def test_cache_celery_and_channel_layer_use_this_sessions_redis_database():
    from channels.layers import get_channel_layer
    from django.core.cache import cache

    from config.celery import app
    from config.settings import celery_url

    assert settings.CACHES["default"]["LOCATION"] == settings.REDIS_URL
    assert settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"] == [settings.REDIS_URL]
    assert app.conf.broker_url == celery_url(settings.REDIS_URL)
    assert get_channel_layer()._kwargs["hosts"] == [settings.REDIS_URL]  # the layer as built
    # The cache really writes to that database (the cache client was made after the worker's switch).
    cache.set("xdist-isolation-probe", 1, 30)
    client = redis.Redis.from_url(settings.REDIS_URL)
    assert any(b"xdist-isolation-probe" in key for key in client.scan_iter(match="*xdist-isolation-probe*"))
