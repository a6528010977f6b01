"""The live path leans on private internals of psycopg, redis-py and channels_redis (platform/live), and
hands libpq psycopg's raw connection pointer (``pgconn_ptr``: public, but only safe on the very libpq
psycopg loaded, so it is confined to the live package like the private names). These tests pin the
versions those internals were read from, check the internals are still where the live path expects
them, and fail if anything outside ``platform/live`` reaches into them: the first dependency upgrade that
moves one fails here, not in production."""

from __future__ import annotations

import ast
import re
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
LIVE = ROOT / "platform" / "live"
PINNED = ("psycopg", "psycopg-binary", "redis", "hiredis", "channels-redis")
PRIVATE_LIBRARIES = ("psycopg", "redis", "channels_redis", "hiredis")


def _locked(name: str) -> str:
    match = re.search(rf"^{re.escape(name)}==([^ \\]+)", (ROOT / "requirements.lock").read_text(), re.M)
    assert match, f"{name} is not pinned in requirements.lock"
    return match.group(1)


@pytest.mark.parametrize("name", PINNED)
def test_the_installed_library_is_the_pinned_one(name):
    """The lock pins these exactly; an upgrade means reading platform/live against the new version."""
    assert metadata.version(name) == _locked(name), (
        f"{name} {metadata.version(name)} is installed, {_locked(name)} is locked: re-check platform/live")


def test_the_private_internals_the_live_path_uses_are_still_there():
    import channels_redis.pubsub
    import psycopg
    from psycopg._queries import PostgresQuery
    from redis._parsers.hiredis import _AsyncHiredisParser

    assert hasattr(psycopg.Connection, "_get_tx_start_command")
    assert hasattr(PostgresQuery, "convert") and hasattr(PostgresQuery, "dump")
    assert hasattr(_AsyncHiredisParser, "read_response")
    # channels_redis names a group's pub/sub channel "<prefix>__group__<group>" (live.transport.pubsub_channel)
    layer = channels_redis.pubsub.RedisPubSubLoopLayer(hosts=["redis://localhost:6379"], prefix="p")
    assert layer._get_group_channel_name("g") == "p__group__g"


def test_the_pipeline_sync_runs_on_psycopg_s_own_libpq_with_the_gil_released():
    """live.pg_pipeline sends a batch's Sync through ctypes (which releases the GIL; psycopg's compiled
    call holds it while libpq writes the socket), on the very libpq psycopg's extension loaded."""
    import ctypes
    import sys

    from psycopg import pq

    from live import pg_pipeline

    if pq.__impl__ not in ("binary", "c") or not sys.platform.startswith("linux"):
        pytest.skip("psycopg's compiled implementation on Linux only")
    library = pg_pipeline._libpq
    assert library is not None and type(library) is ctypes.CDLL  # (a PyDLL would keep the GIL)
    if pq.__impl__ == "binary":
        assert "psycopg_binary" in library._name  # the wheel's own copy, not another libpq on the system
    assert pq.version() == pq.__build_version__


def _private_uses(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            parts = node.module.split(".")
            if parts[0] in PRIVATE_LIBRARIES and (any(p.startswith("_") for p in parts)
                                                   or any(a.name.startswith("_") for a in node.names)):
                found.append(f"line {node.lineno}: from {node.module} import ...")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] in PRIVATE_LIBRARIES and any(p.startswith("_") for p in parts):
                    found.append(f"line {node.lineno}: import {alias.name}")
        elif isinstance(node, ast.Attribute) and node.attr in {"_get_tx_start_command", "_encoding",
                                                                "_get_group_channel_name", "_parser",
                                                                "pgconn_ptr"}:
            found.append(f"line {node.lineno}: .{node.attr}")
    return found


SOURCES = sorted(p for top in ("platform", "matchmaking", "tournaments", "frontend", "gameworkers")
                 for p in (ROOT / top).rglob("*.py") if LIVE not in p.parents and "migrations" not in p.parts)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_outside_the_live_package_uses_those_internals(path):
    assert not _private_uses(path)


def test_the_live_package_is_where_they_are_used():
    uses = {p.name: _private_uses(p) for p in LIVE.glob("*.py")}
    assert uses["pg_pipeline.py"] and uses["redis_pubsub.py"], uses
