"""bench/arenas.py at a tiny size: 8 players, a one-minute window, through the real pipeline (PostgreSQL,
Redis, Celery workers, the timer, uvicorn) to a paid-out finish with a clean ledger. Slow (about two
minutes; run with ``-m slow``) and skipped without a local PostgreSQL and Redis.

It flushes its own database (``BENCH_ARENAS_DATABASE_URL``, default ``cardroom_bench_arenas_test``) and
Redis database (``BENCH_ARENAS_REDIS_URL``, default db 3, the benchmarks' own)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATABASE_URL = os.environ.get("BENCH_ARENAS_DATABASE_URL",
                              "postgres://postgres@127.0.0.1:5432/cardroom_bench_arenas_test")
REDIS_URL = os.environ.get("BENCH_ARENAS_REDIS_URL", "redis://127.0.0.1:6379/3")


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.slow
def test_a_tiny_arena_runs_to_a_paid_out_finish_with_a_clean_ledger():
    if not (_listening(5432) and _listening(6379)):
        pytest.skip("needs a local PostgreSQL (5432) and Redis (6379)")
    env = {**os.environ, "DATABASE_URL": DATABASE_URL, "REDIS_URL": REDIS_URL}
    run = subprocess.run([sys.executable, "bench/arenas.py", "--players", "8", "--minutes", "1", "--timeout", "240"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=420)
    result = json.loads(run.stdout[run.stdout.index('{\n  "mode"'):])  # after the workers' banners
    assert run.returncode == 0, (result, run.stderr[-2000:])
    assert result["status"] == "finished" and result["ledger_check"] == "clean"
    assert result["games"] >= 2 and result["games"] == result["games_finished"] == result["games_scored"]
    assert result["moves"] > 0 and result["moves_per_s"] > 0
    assert result["prize_pool"] == 76 and result["paid_places"] >= 1  # 8 × 10 Chip less 5 % rake
