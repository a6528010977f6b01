"""Lembar bots against three uniformly random players: win rate and decision time.

    .venv/bin/python -m bench.bots_lembar [--games 2000] [--styles cerdik agresif] [--versus N] [--json]

Game g (0-based) uses seed SHA-256("bots-lembar:<g>"), 4 seats, the measured bot at seat g % 4
and ``RandomBot`` elsewhere, played by ``gameworkers.simulate.play_game`` (rng_seed g), so
every run replays the same games. A win is rank 1 (``winners``); a shared first place in a
stalled game counts as a win and is also reported separately. Decision time is every
``choose`` call of the measured bot (mandatory and optional), timed with perf_counter.

``--versus N`` also plays N 4-seat games of the first two styles against each other (seats
alternate: game g puts the first style at the even seats when g is even, at the odd ones otherwise).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import statistics
import sys
import time

from gameworkers.bots import RandomBot, get_bot
from gameworkers.engines import get_engine
from gameworkers.simulate import play_game

SEATS = 4


class Timed:
    """Wraps a bot and records how long each ``choose`` takes."""

    def __init__(self, bot, times: list[float]) -> None:
        self.bot, self.times = bot, times

    def choose(self, view, legal, rng, *, optional=False):
        t0 = time.perf_counter()
        move = self.bot.choose(view, legal, rng, optional=optional)
        self.times.append(time.perf_counter() - t0)
        return move

    def observe(self, view, events) -> None:
        self.bot.observe(view, events)


def measure(style: str, games: int) -> dict:
    engine = get_engine("lembar")
    times: list[float] = []
    wins = sole = shared = 0
    start = time.perf_counter()
    for g in range(games):
        seed = hashlib.sha256(f"bots-lembar:{g}".encode()).digest()
        me = g % SEATS
        bots = [RandomBot() for _ in range(SEATS)]
        bots[me] = Timed(get_bot("lembar", style), times)  # type: ignore[assignment]
        final = play_game("lembar", seed, SEATS, bots=bots, rng_seed=g)
        winners = engine.result(final)["winners"]
        if me in winners:
            wins += 1
            if len(winners) == 1:
                sole += 1
            else:
                shared += 1
    elapsed = time.perf_counter() - start
    times.sort()
    rate = wins / games
    half = 1.96 * math.sqrt(rate * (1 - rate) / games)
    return {
        "style": style, "games": games, "wins": wins, "sole_wins": sole, "shared_wins": shared,
        "win_rate": rate, "ci95": [rate - half, rate + half],
        "decisions": len(times),
        "median_ms": statistics.median(times) * 1000,
        "p99_ms": times[min(len(times) - 1, math.ceil(0.99 * len(times)) - 1)] * 1000,
        "max_ms": times[-1] * 1000,
        "seconds": round(elapsed, 1),
    }


def versus(a: str, b: str, games: int) -> dict:
    engine = get_engine("lembar")
    wins = {a: 0, b: 0}
    for g in range(games):
        seed = hashlib.sha256(f"bots-lembar-versus:{g}".encode()).digest()
        order = [a, b, a, b] if g % 2 == 0 else [b, a, b, a]
        final = play_game("lembar", seed, SEATS, bots=[get_bot("lembar", s) for s in order], rng_seed=g)
        for w in engine.result(final)["winners"]:
            wins[order[w]] += 1
    return {"games": games, "wins": wins}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--styles", nargs="*", default=["cerdik", "agresif"])
    parser.add_argument("--versus", type=int, default=0, help="head-to-head games of the first two styles")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = [measure(style, args.games) for style in args.styles] if args.games else []
    head = versus(args.styles[0], args.styles[1], args.versus) if args.versus and len(args.styles) > 1 else None
    if args.json:
        print(json.dumps({"rows": rows, "versus": head}, indent=2))
        return 0
    if rows:
        print(f"{'style':<9} {'games':>6} {'wins':>6} {'win rate':>9} {'95% CI':>15} {'sole':>6} {'shared':>6} "
              f"{'decisions':>9} {'median ms':>9} {'p99 ms':>7} {'max ms':>7} {'secs':>6}")
    for r in rows:
        ci = f"{r['ci95'][0]:.3f}-{r['ci95'][1]:.3f}"
        print(f"{r['style']:<9} {r['games']:>6} {r['wins']:>6} {r['win_rate']:>9.3f} {ci:>15} {r['sole_wins']:>6} "
              f"{r['shared_wins']:>6} {r['decisions']:>9} {r['median_ms']:>9.3f} {r['p99_ms']:>7.3f} "
              f"{r['max_ms']:>7.2f} {r['seconds']:>6}")
    if head is not None:
        print(f"head-to-head, {head['games']} games (2 seats each): " +
              ", ".join(f"{s} {w} wins" for s, w in head["wins"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
