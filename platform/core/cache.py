"""The process's one cache object.

``django.core.cache.cache`` is one cache object per thread and per asyncio task (an asgiref ``Local``),
and each ``RedisCache`` holds a connection pool of its own (Django ticket #35651). A websocket consumer
is one task for its whole life, so each socket that touched the cache (its abuse back-off, its
presence) kept a Redis connection of its own: 5,000 sockets, 5,000 Redis clients, ~35 KB each in the
ASGI process. RedisCache's client is thread-safe (redis-py's pool), so one object per process serves
every thread and task. Import ``cache`` from here, never from ``django.core.cache``.
"""

from __future__ import annotations

from functools import cache as _once
from typing import Any

from django.core.cache import BaseCache, caches
from django.core.signals import setting_changed


@_once
def shared() -> BaseCache:
    return caches.create_connection("default")


def _settings_changed(*, setting: str, **kwargs: Any) -> None:
    if setting == "CACHES":
        shared.cache_clear()


setting_changed.connect(_settings_changed)


class _SharedCache:
    """Every attribute is the shared cache object's (created at first use, after the settings are final)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(shared(), name)


cache: BaseCache = _SharedCache()  # type: ignore[assignment]
