"""Baloot bot benchmark: a bot pair against a uniformly random pair over seeded games.

    .venv/bin/python bench/bots_baloot.py --games 500 --out /tmp/baloot_bots.jsonl

``--opponent greedy`` pits the bots against another style instead of the random pair.
Game ``g`` uses seed ``sha256("baloot-bench-<g>")`` and simulation rng seed ``g``; the bot pair
sits in seats 0 & 2 for even ``g`` and 1 & 3 for odd ``g`` (so both first-dealer parities are
covered). Each finished game is appended as one JSON line to ``--out``; a rerun skips the
games already there (resumable), and ``--shard k/n`` runs only games with ``g % n == k`` so
several processes can share the work (each with its own ``--out`` file, merged by
``--report``). Decision time is the wall time of each bot ``choose`` call.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gameworkers.bots import Bot, get_bot  # noqa: E402
from gameworkers.engines import get_engine  # noqa: E402
from gameworkers.simulate import play_game  # noqa: E402


class Timed(Bot):
    """Wraps a bot and records how long each decision takes, per phase."""

    def __init__(self, inner: Bot, times: dict[str, list[float]]) -> None:
        super().__init__()
        self.inner = inner
        self.times = times

    def choose(self, view, legal, rng, *, optional=False):
        t0 = time.perf_counter()
        move = self.inner.choose(view, legal, rng, optional=optional)
        ms = (time.perf_counter() - t0) * 1000
        self.times.setdefault(view["phase"], []).append(round(ms, 3))
        return move


def run_game(g: int, style: str, opponent: str = "random") -> dict:
    engine = get_engine("baloot")
    seed = hashlib.sha256(f"baloot-bench-{g}".encode()).digest()
    side = g % 2
    times: dict[str, list[float]] = {}
    bots = [Timed(get_bot("baloot", style), times) if s % 2 == side else get_bot("baloot", opponent)
            for s in range(4)]
    t0 = time.perf_counter()
    final = play_game("baloot", seed, 4, bots=bots, rng_seed=g)
    result = engine.result(final)
    return {"game": g, "style": style, "opponent": opponent, "bot_team": side, "won": result["winning_team"] == side,
            "scores": result["scores"], "deals": result["deals"], "seconds": round(time.perf_counter() - t0, 3),
            "times": times}


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def report(paths: list[Path]) -> None:
    rows = {}
    for path in paths:
        if path.exists():
            for line in path.read_text().splitlines():
                if line.strip():
                    r = json.loads(line)
                    rows[(r["style"], r.get("opponent", "random"), r["game"])] = r
    by_style: dict[str, list[dict]] = {}
    for r in rows.values():
        by_style.setdefault(f"{r['style']} vs {r.get('opponent', 'random')}", []).append(r)
    for style, rs in sorted(by_style.items()):
        won = sum(r["won"] for r in rs)
        print(f"{style}: {len(rs)} games, bot pair won {won} ({100 * won / len(rs):.1f}%), "
              f"mean {statistics.mean(r['deals'] for r in rs):.1f} deals/game, "
              f"{sum(r['seconds'] for r in rs):.0f} s total")
        all_times = [t for r in rs for ts in r["times"].values() for t in ts]
        print(f"  all decisions: n={len(all_times)} median {statistics.median(all_times):.2f} ms "
              f"p99 {pct(all_times, 0.99):.1f} ms max {max(all_times):.1f} ms")
        phases = sorted({p for r in rs for p in r["times"]})
        for phase in phases:
            ts = [t for r in rs for t in r["times"].get(phase, [])]
            print(f"  {phase}: n={len(ts)} median {statistics.median(ts):.2f} ms p99 {pct(ts, 0.99):.1f} ms "
                  f"max {max(ts):.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--style", default="pimc")
    ap.add_argument("--opponent", default="random", help="the other pair's style (default: random)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/baloot_bots.jsonl"))
    ap.add_argument("--shard", default="0/1", help="k/n: run games with g %% n == k")
    ap.add_argument("--report", nargs="*", type=Path, help="only summarise these result files")
    args = ap.parse_args()
    if args.report is not None:
        report(args.report or [args.out])
        return
    k, n = (int(x) for x in args.shard.split("/"))
    done = set()
    if args.out.exists():
        for line in args.out.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                if r["style"] == args.style and r.get("opponent", "random") == args.opponent:
                    done.add(r["game"])
    with args.out.open("a") as fh:
        for g in range(args.games):
            if g % n != k or g in done:
                continue
            fh.write(json.dumps(run_game(g, args.style, args.opponent)) + "\n")
            fh.flush()
    report([args.out])


if __name__ == "__main__":
    main()
