#!/usr/bin/env python3
"""Games per CPU second of random playouts with the reference shuffle and the fast one, interleaved.

Every engine shuffles through ``fairness.shuffle``; ``fairness.shuffle_reference`` is the rule as
written (the result is identical, tests/gameworkers/engines/test_fairness.py). Results: docs/benchmarks.md.

  python bench/shuffle.py [--slices 6] [--slice-seconds 1.5]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]

from bench.engines import play_one, uniform  # noqa: E402
from gameworkers.engines import fairness, get_engine  # noqa: E402

GAMES = (("otuzbir", 4), ("baloot", 4), ("cherki", 3), ("lembar", 4))


def run(slices: int, slice_seconds: float) -> dict:
    fast, reference = fairness.shuffle, fairness.shuffle_reference
    out: dict = {}
    try:
        for game, seats in GAMES:
            engine = get_engine(game)
            cpu = {"reference": 0.0, "fast": 0.0}
            games = {"reference": 0, "fast": 0}
            rng = random.Random(1)
            for _ in range(slices):
                for name, shuffle in (("reference", reference), ("fast", fast)):
                    fairness.shuffle = shuffle
                    started = time.process_time()
                    while time.process_time() - started < slice_seconds:
                        play_one(engine, rng.randbytes(32), seats, rng, uniform)
                        games[name] += 1
                    cpu[name] += time.process_time() - started
            out[game] = {name: round(games[name] / cpu[name], 1) for name in cpu}
            out[game]["ratio"] = round(out[game]["fast"] / out[game]["reference"], 2)
    finally:
        fairness.shuffle = fast
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--slices", type=int, default=6)
    parser.add_argument("--slice-seconds", type=float, default=1.5)
    args = parser.parse_args()
    print(json.dumps(run(args.slices, args.slice_seconds)))


if __name__ == "__main__":
    main()
