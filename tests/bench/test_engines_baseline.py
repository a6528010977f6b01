"""``bench.engines --baseline NAME=DIR``: an engine split over several modules loads from a directory of
copies, with its own relative imports, and plays the same games as the engine it was copied from."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from bench import engines as bench_engines
from gameworkers.engines import get_engine

ENGINES_DIR = Path(bench_engines.__file__).resolve().parent.parent / "gameworkers" / "engines"
LEMBAR_MODULES = ("lembar", "lembar_engine", "lembar_moves", "lembar_cards", "base", "fairness", "states")


def test_directory_baseline_plays_the_same_games(tmp_path):
    for m in LEMBAR_MODULES:
        shutil.copy(ENGINES_DIR / f"{m}.py", tmp_path / f"{m}.py")
    baseline = bench_engines.load_baseline("lembar", str(tmp_path))
    engine = get_engine("lembar")
    assert type(baseline) is not type(engine)
    assert Path(type(baseline).legal_moves.__code__.co_filename).parent == tmp_path
    for policy in (bench_engines.uniform, bench_engines.play_if_able):
        seed = random.Random(3).randbytes(32)
        old, old_moves = bench_engines.play_one(baseline, seed, 2, random.Random(5), policy)
        new, new_moves = bench_engines.play_one(engine, seed, 2, random.Random(5), policy)
        assert old == new and old_moves == new_moves
