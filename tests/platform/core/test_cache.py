"""core.cache: one cache object per process, whatever thread or asyncio task asks (Django builds one per
thread and per task, each RedisCache with a Redis connection pool of its own: a websocket consumer held a
Redis connection for its whole life)."""

from __future__ import annotations

import ast
import asyncio
import threading
from pathlib import Path

from django.test import override_settings

from core import cache as shared_cache
from core.cache import cache

ROOT = Path(__file__).resolve().parents[3]


def test_every_thread_and_task_gets_the_same_cache_object():
    seen = [shared_cache.shared()]
    worker = threading.Thread(target=lambda: seen.append(shared_cache.shared()))
    worker.start()
    worker.join()

    async def tasks():
        async def one():
            return shared_cache.shared()
        return await asyncio.gather(one(), one())

    seen += asyncio.run(tasks())
    assert all(obj is seen[0] for obj in seen)
    cache.set("core-cache-test", 7)
    assert cache.get("core-cache-test") == 7


def test_a_settings_change_gives_a_new_cache_object():
    before = shared_cache.shared()
    with override_settings(CACHES={"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}):
        assert shared_cache.shared() is not before
        assert type(shared_cache.shared()).__name__ == "LocMemCache"
    assert type(shared_cache.shared()) is type(before)


def test_no_module_reads_djangos_per_task_cache():
    """One rule, one place: the platform's code takes its cache from core.cache."""
    offenders = []
    for top in ("platform", "arenas", "tournaments", "matchmaking", "gameworkers", "frontend"):
        for path in (ROOT / top).rglob("*.py"):
            if "migrations" in path.parts or path == ROOT / "platform" / "core" / "cache.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if (isinstance(node, ast.ImportFrom) and node.module == "django.core.cache"
                        and any(alias.name == "cache" for alias in node.names)):
                    offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
