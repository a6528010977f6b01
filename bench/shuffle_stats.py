#!/usr/bin/env python3
"""Position-uniformity chi-square for the platform's shuffle (../shared/spec/fairness.md).

For N shuffles of the canonical 108-card Lembar deck (seed i = SHA-256 of the decimal index i, the
deal's shuffle ``0:kocok``), count how often the card at canonical INDEX c ends at position p: a 108 x 108
table. (The Lembar deck has duplicate codes, so the test runs on indices, not codes.) Under a uniform
shuffle every cell expects N/108. The whole-table Pearson statistic of permutation counts has
expectation n(n-1), not the (n-1)^2 degrees of freedom of the table (both margins are fixed), so the
statistic is scaled by (n-1)/n and compared with chi-square((n-1)^2) at alpha = 0.001.

Standard library only: the upper tail uses the Wilson-Hilferty approximation (``chi2_sf``), checked
against the exact even-degrees formula in tests/harness/test_shuffle_stats.py.

  python bench/shuffle_stats.py                    # 108,000 shuffles of the real shuffle + two bad ones
  python bench/shuffle_stats.py --shuffles 10800 --processes 2
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from gameworkers.engines import fairness  # noqa: E402

N_CARDS = len(fairness.LEMBAR_DECK)  # 108
ALPHA = 0.001

Shuffle = Callable[[bytes, int], list[int]]


def seed_for(index: int) -> bytes:
    """Deterministic 32-byte seed of a shuffle: SHA-256 of the decimal index."""
    return hashlib.sha256(str(index).encode()).digest()


def platform_shuffle(seed: bytes, n: int) -> list[int]:
    """The platform's own Fisher-Yates (``fairness.shuffle``) applied to card indices 0..n-1."""
    return fairness.shuffle(seed, 0, "kocok", list(range(n)))  # type: ignore[arg-type]


def naive_shuffle(seed: bytes, n: int) -> list[int]:
    """Known bad: swap every position with ANY index (n^n equally likely paths, not n!)."""
    a = list(range(n))
    for i in range(n):
        j = fairness.draw(seed, f"0:kocok:{i}", n)
        a[i], a[j] = a[j], a[i]
    return a


def off_by_one_shuffle(seed: bytes, n: int) -> list[int]:
    """Known bad: Fisher-Yates with j in [0, i) (Sattolo): only cyclic permutations, no card stays put."""
    a = list(range(n))
    for i in range(n - 1, 0, -1):
        j = fairness.draw(seed, f"0:kocok:{i}", i)
        a[i], a[j] = a[j], a[i]
    return a


SHUFFLES: dict[str, Shuffle] = {"platform": platform_shuffle, "naive": naive_shuffle, "off_by_one": off_by_one_shuffle}


def count_positions(kind: str, start: int, stop: int, n: int = N_CARDS) -> list[int]:
    """Flat n*n table: counts[card * n + position] over the shuffles with seed indices [start, stop)."""
    shuffle = SHUFFLES[kind]
    counts = [0] * (n * n)
    for index in range(start, stop):
        order = shuffle(seed_for(index), n)
        for position, card in enumerate(order):
            counts[card * n + position] += 1
    return counts


def table_for(kind: str, shuffles: int, processes: int = 1, n: int = N_CARDS) -> list[int]:
    if processes <= 1:
        return count_positions(kind, 0, shuffles, n)
    step = math.ceil(shuffles / processes)
    bounds = [(k, min(k + step, shuffles)) for k in range(0, shuffles, step)]
    total = [0] * (n * n)
    with ProcessPoolExecutor(processes) as pool:
        for part in pool.map(count_positions, [kind] * len(bounds), [b[0] for b in bounds],
                             [b[1] for b in bounds], [n] * len(bounds)):
            total = [x + y for x, y in zip(total, part, strict=True)]
    return total


def corrected_statistic(counts: list[int], shuffles: int, n: int = N_CARDS) -> float:
    """(n-1)/n times the whole-table Pearson statistic; ~ chi-square((n-1)^2) for a uniform shuffle."""
    expected = shuffles / n
    pearson = sum((c - expected) ** 2 for c in counts) / expected
    return pearson * (n - 1) / n


def chi2_sf(x: float, df: int) -> float:
    """Upper tail P(X >= x) of chi-square(df), Wilson-Hilferty (accurate to ~1e-4 absolute for df >= 100)."""
    if x <= 0:
        return 1.0
    k = float(df)
    z = ((x / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))
    return 0.5 * math.erfc(z / math.sqrt(2))


def chi2_sf_even(x: float, df: int) -> float:
    """Exact upper tail for even df: P(Poisson(x/2) < df/2), summed in log space."""
    if df % 2:
        raise ValueError("df must be even")
    m, lam = df // 2, x / 2
    log_terms = [i * math.log(lam) - lam - math.lgamma(i + 1) for i in range(m)] if lam > 0 else [0.0]
    top = max(log_terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in log_terms))


def evaluate(kind: str, shuffles: int, processes: int = 1, n: int = N_CARDS) -> dict:
    started = time.monotonic()
    counts = table_for(kind, shuffles, processes, n)
    df = (n - 1) ** 2
    stat = corrected_statistic(counts, shuffles, n)
    p = chi2_sf(stat, df)
    expected = shuffles / n
    return {"shuffle": kind, "shuffles": shuffles, "cards": n, "df": df, "statistic": round(stat, 1),
            "p_value": p, "alpha": ALPHA, "uniform": p >= ALPHA,
            "max_rel_dev": round(max(abs(c - expected) for c in counts) / expected, 3),
            "seconds": round(time.monotonic() - started, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shuffles", type=int, default=108_000)
    parser.add_argument("--bad-shuffles", type=int, default=None, help="shuffles for the bad ones (default: same)")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--kinds", default="platform,naive,off_by_one")
    args = parser.parse_args()
    ok = True
    for kind in args.kinds.split(","):
        count = args.shuffles if kind == "platform" else (args.bad_shuffles or args.shuffles)
        result = evaluate(kind, count, args.processes)
        print(json.dumps(result), flush=True)
        ok &= result["uniform"] == (kind == "platform")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
