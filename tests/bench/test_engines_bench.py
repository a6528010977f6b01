"""Smoke test: bench/engines.py runs one game per registered engine (a benchmark, not timed here)."""

from __future__ import annotations

import json

from bench import engines as bench_engines
from gameworkers.engines import available_engines


def test_quick_run_plays_one_game_per_engine(capsys):
    assert bench_engines.main(["--quick", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = out["rows"]
    names = [r["engine"] for r in rows]
    assert set(names) == set(available_engines())
    assert all(r["games"] == 1 and r["moves_per_game"] > 0 and r["deals_per_s"] > 0 for r in rows)
    lembar = [r["policy"] for r in rows if r["engine"] == "lembar"]
    assert lembar == ["uniform", "play-if-able"]


def test_play_if_able_prefers_plays():
    import random

    legal = [{"type": "draw"}, {"type": "play", "card": "K1"}]
    assert all(bench_engines.play_if_able(legal, random.Random(i)) == legal[1] for i in range(5))
