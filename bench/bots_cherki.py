"""Cherki bot measurements: win rate of the default bot against two uniformly random players,
and its decision time. Not a test: run once and copy the figures into docs/benchmarks/cherki.md.

    .venv/bin/python bench/bots_cherki.py --games 2000
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gameworkers.bots import Bot, get_bot  # noqa: E402
from gameworkers.engines import get_engine  # noqa: E402
from gameworkers.simulate import play_game  # noqa: E402


class Timed(Bot):
    """Wraps a bot and records how long each decision took (seconds)."""

    def __init__(self, inner: Bot, times: list[float]) -> None:
        super().__init__()
        self.inner = inner
        self.times = times

    def choose(self, view, legal, rng, *, optional=False):
        start = time.perf_counter()
        move = self.inner.choose(view, legal, rng, optional=optional)
        if not optional:
            self.times.append(time.perf_counter() - start)
        return move


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--style", default=None, help="bot style under test (default: the game's default)")
    args = parser.parse_args()
    engine = get_engine("cherki")
    times: list[float] = []
    wins = voids = 0
    random_wins = 0
    chips = 0
    started = time.perf_counter()
    for i in range(args.games):
        seed = hashlib.sha256(f"cherki-bots-{i}".encode()).digest()
        me = i % 3  # rotate the bot's seat, so the dealer position evens out
        bots = [get_bot("cherki", "random") for _ in range(3)]
        bots[me] = Timed(get_bot("cherki", args.style), times)
        final = play_game("cherki", seed, 3, bots=bots, rng_seed=i)
        result = engine.result(final)
        if result["winner"] is None:
            voids += 1
        elif result["winner"] == me:
            wins += 1
        else:
            random_wins += 1
        chips += result["deltas"][me]
    elapsed = time.perf_counter() - started
    times.sort()
    print(f"games {args.games}: bot wins {wins} ({100 * wins / args.games:.1f}%), "
          f"random players win {random_wins} ({100 * random_wins / args.games:.1f}%), "
          f"void games {voids} ({100 * voids / args.games:.1f}%)")
    print(f"bot card points per game {chips / args.games:+.2f}")
    print(f"decisions {len(times)}: median {1000 * statistics.median(times):.2f} ms, "
          f"p95 {1000 * times[int(0.95 * len(times))]:.2f} ms, max {1000 * times[-1]:.2f} ms")
    print(f"wall time {elapsed:.1f} s")


if __name__ == "__main__":
    main()
