"""Random-playout speed of every registered engine, side by side with RLCard's UNO.

    .venv/bin/python -m bench.engines [--seconds 10] [--quick] [--no-rlcard] [--engines lembar ...] [--json]
                                      [--baseline lembar=/tmp/lembar_old.py]

For each engine in ``available_engines()`` it plays whole games with the engine alone:
each step the due automatic step (``deadline``) decides who moves; a system step
(seat None) is applied as ``timeout_move``, a seat picks a uniformly random legal move.
Reported: games/s, deals/s (``kocok`` shuffles in ``state["shuffles"]``), moves/game.

Lembar is also run with the "play-if-able" policy: a uniformly random play when the seat
has one, otherwise a random other move (draw, keep, ...). That is the policy RLCard's UNO
environment enforces by its rules (draw is legal only without a playable card), so it is the
like-for-like figure for the ratio against RLCard (optional dependency: ``pip install rlcard``).

All contenders run interleaved in round-robin slices of ``--slice`` seconds, so a busy shared
machine slows them alike and the ratios stay fair. ``--seconds`` is each contender's total (wall).
Games per CPU-second (``time.process_time``) is reported too: on a shared machine it leaves out
the time the process waited for a core.
``--baseline NAME=FILE`` adds an older copy of an engine's module (e.g. from
``git show HEAD:gameworkers/engines/lembar.py > /tmp/lembar_old.py``) as ``NAME@baseline``, run in
the same interleaved slices, so a change is measured before and after in one run on one machine.
FILE may be a directory of module copies for an engine split over several files, e.g.
``for m in lembar lembar_engine lembar_moves lembar_cards base fairness states; do
git show HEAD:gameworkers/engines/$m.py > /tmp/lembar_old/$m.py; done`` and ``--baseline lembar=/tmp/lembar_old``.
A benchmark, not a test: run it once; ``--quick`` plays 1 game per engine and skips RLCard.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import random
import sys
import time
import types
from collections.abc import Callable
from typing import Any

from bench.probe import start_speed_probe, stop_speed_probe
from gameworkers.engines import available_engines, get_engine

MAX_STEPS = 20_000
STEP_MS = 400
DEFAULT_SEATS = {"lembar": 2}  # otherwise the engine's min_seats

Policy = Callable[[list[dict], random.Random], dict]


def uniform(legal: list[dict], rng: random.Random) -> dict:
    return legal[int(rng.random() * len(legal))]  # uniform; cheaper than rng.choice


def play_if_able(legal: list[dict], rng: random.Random) -> dict:
    plays = []
    for m in legal:  # a plain loop: a comprehension's own frame cost more here
        if m["type"] == "play":
            plays.append(m)
    if not plays:
        plays = legal
    return plays[int(rng.random() * len(plays))]


POLICIES: dict[str, Policy] = {"uniform": uniform, "play-if-able": play_if_able}


def play_one(engine: Any, seed: bytes, seats: int, rng: random.Random, policy: Policy) -> tuple[dict, int]:
    """One whole random game; returns the final state and the number of moves applied."""
    deadline, legal_moves, apply = engine.deadline, engine.legal_moves, engine.apply  # bound once (hot loop)
    state = engine.new(seed, seats)
    now = 0
    for step in range(MAX_STEPS):
        due = deadline(state)  # None once over (a game in progress always has one)
        if due is None:
            if engine.is_over(state):
                return state, step
            raise RuntimeError(f"{engine.name}: no deadline but the game is not over")
        now += STEP_MS
        seat = due["seat"]
        if seat is None:
            # A system step (Lembar closing a catch window) is only due once its time has come.
            if due.get("since_ms") is not None and due.get("limit_ms") is not None:
                now = max(now, due["since_ms"] + due["limit_ms"])
            move = engine.timeout_move(state, None)
        else:
            legal = legal_moves(state, seat)
            move = policy(legal, rng) if legal else engine.timeout_move(state, seat)
        state, _ = apply(state, seat, move, now_ms=now)
    raise RuntimeError(f"{engine.name}: no end after {MAX_STEPS} moves")


class Contender:
    """Accumulates games, deals, moves and time over several slices."""

    label = ""
    seats = 0
    policy = ""

    def __init__(self) -> None:
        self.games = self.deals = self.moves = 0
        self.elapsed = 0.0
        self.cpu = 0.0

    def one_game(self) -> tuple[int, int]:  # pragma: no cover - abstract
        """Play one game; return (deals, moves)."""
        raise NotImplementedError

    def run(self, seconds: float, max_games: int | None = None) -> None:
        start = time.perf_counter()
        cpu_start = time.process_time()
        while True:
            deals, moves = self.one_game()
            self.games += 1
            self.deals += deals
            self.moves += moves
            spent = time.perf_counter() - start
            if (max_games is not None and self.games >= max_games) or (max_games is None and spent >= seconds):
                break
        self.elapsed += spent
        self.cpu += time.process_time() - cpu_start

    def row(self) -> dict:
        e = self.elapsed or 1e-9
        return {"engine": self.label, "seats": self.seats, "policy": self.policy, "games": self.games,
                "seconds": round(self.elapsed, 3), "cpu_seconds": round(self.cpu, 3),
                "games_per_s": self.games / e, "deals_per_s": self.deals / e,
                "games_per_cpu_s": self.games / (self.cpu or 1e-9),
                "moves_per_game": self.moves / max(self.games, 1)}


def load_baseline(name: str, path: str) -> Any:
    """The ``ENGINE`` of an engine module read from ``path``, imported inside ``gameworkers.engines`` so
    its relative imports (base, fairness) resolve to today's. ``path`` may also be a directory of
    module copies (an engine split over several files): its ``NAME.py`` is imported as part of a package
    made of that directory, so its relative imports resolve to the copies there (copy every module it
    imports: e.g. lembar, lembar_engine, lembar_moves, lembar_cards, base, fairness, states)."""
    if os.path.isdir(path):
        package = f"gameworkers.engines._baseline_{name}_pkg"
        holder = types.ModuleType(package)
        holder.__path__ = [path]
        for stale in [k for k in sys.modules if k.startswith(f"{package}.")]:  # an earlier load's copies
            del sys.modules[stale]
        sys.modules[package] = holder
        return importlib.import_module(f"{package}.{name}").ENGINE
    spec = importlib.util.spec_from_file_location(f"gameworkers.engines._baseline_{name}", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"--baseline: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.ENGINE


class EngineContender(Contender):
    def __init__(self, name: str, seats: int, policy: str, rng_seed: int = 1, *,
                 engine: Any = None, label: str | None = None) -> None:
        super().__init__()
        self.engine = engine if engine is not None else get_engine(name)
        self.label, self.seats, self.policy = label or name, seats, policy
        self._policy = POLICIES[policy]
        self.rng = random.Random(rng_seed)

    def one_game(self) -> tuple[int, int]:
        state, moves = play_one(self.engine, self.rng.randbytes(32), self.seats, self.rng, self._policy)
        return sum(1 for sh in state["shuffles"] if sh["purpose"] == "kocok"), moves


class UnoContender(Contender):
    def __init__(self, rng_seed: int = 1) -> None:
        super().__init__()
        import rlcard
        from rlcard.agents import RandomAgent

        self.env = rlcard.make("uno", config={"seed": rng_seed})
        self.env.set_agents([RandomAgent(num_actions=self.env.num_actions) for _ in range(self.env.num_players)])
        self.label, self.seats, self.policy = f"rlcard-uno {rlcard.__version__}", self.env.num_players, "RandomAgent"

    def one_game(self) -> tuple[int, int]:
        trajectories, _ = self.env.run(is_training=False)
        # A trajectory alternates state, action, state, ...: a player's actions = len // 2.
        return 1, sum(len(t) // 2 for t in trajectories)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="total seconds per contender")
    parser.add_argument("--slice", type=float, default=1.0, help="seconds per round-robin slice")
    parser.add_argument("--quick", action="store_true", help="1 game per engine, no RLCard (smoke run)")
    parser.add_argument("--no-rlcard", action="store_true", help="skip RLCard's UNO")
    parser.add_argument("--engines", nargs="*", help="only these engines (default: every registered one)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--baseline", action="append", default=[], metavar="NAME=FILE",
                        help="also run an older copy of engine NAME's module, as NAME@baseline")
    args = parser.parse_args(argv)

    baselines: dict[str, Any] = {}
    for item in args.baseline:
        name, sep, path = item.partition("=")
        if not sep or name not in available_engines():
            parser.error(f"--baseline wants NAME=FILE with a registered engine NAME, not {item!r}")
        baselines[name] = load_baseline(name, path)
    contenders: list[Contender] = []
    for name in args.engines if args.engines is not None else available_engines():
        seats = DEFAULT_SEATS.get(name, get_engine(name).min_seats)
        for p in (["uniform", "play-if-able"] if name == "lembar" else ["uniform"]):
            contenders.append(EngineContender(name, seats, p))
            if name in baselines:  # the same seed sequence, so both play the same games while equal
                contenders.append(EngineContender(name, seats, p, engine=baselines[name],
                                                  label=f"{name}@baseline"))
    uno: Contender | None = None
    note = ""
    if not (args.quick or args.no_rlcard):
        try:
            uno = UnoContender()
            contenders.append(uno)
        except ImportError:
            note = "RLCard is not installed: no UNO comparison (pip install rlcard)"

    speed: dict | None = None
    if args.quick:
        for c in contenders:
            c.run(0, max_games=1)
    else:
        # The ratio to RLCard moves with the machine's speed (RLCard's side loses more on a slow spell),
        # so every run says how fast the machine was.
        probe = start_speed_probe()
        try:
            rounds = max(1, round(args.seconds / args.slice))
            for _ in range(rounds):
                for c in contenders:
                    c.run(args.seconds / rounds)
        finally:
            speed = stop_speed_probe(probe)

    rows = [c.row() for c in contenders]
    ratios = {}
    if uno is not None and uno.games:
        uno_row = uno.row()
        for r in rows:
            if r["engine"] in ("lembar", "lembar@baseline"):
                ratios[f"{r['engine']} {r['policy']} / rlcard-uno games/s (wall)"] = (
                    r["games_per_s"] / uno_row["games_per_s"])
                ratios[f"{r['engine']} {r['policy']} / rlcard-uno games per CPU-second"] = (
                    r["games_per_cpu_s"] / uno_row["games_per_cpu_s"])
    for r in rows:
        name, _, tag = r["engine"].partition("@")
        now = next((x for x in rows if x["engine"] == name and x["policy"] == r["policy"]), None)
        if tag == "baseline" and now is not None and r["games"]:
            ratios[f"{name} {r['policy']} / its baseline games per CPU-second"] = (
                now["games_per_cpu_s"] / r["games_per_cpu_s"])
    if args.json:
        print(json.dumps({"rows": rows, "ratios": ratios, "note": note, "speed_probe_cpu_ms": speed}, indent=2))
        return 0
    print(f"{'engine':<18} {'seats':>5} {'policy':<13} {'games':>7} {'games/s':>9} {'deals/s':>9} "
          f"{'games/cpu-s':>11} {'moves/game':>10}")
    for r in rows:
        print(f"{r['engine']:<18} {r['seats']:>5} {r['policy']:<13} {r['games']:>7} "
              f"{r['games_per_s']:>9.1f} {r['deals_per_s']:>9.1f} {r['games_per_cpu_s']:>11.1f} "
              f"{r['moves_per_game']:>10.1f}")
    if note:
        print(note)
    for k, v in ratios.items():
        print(f"{k}: {v:.2f}x")
    if speed is not None:
        print(f"speed probe (bench/probe.py, lower is faster): median {speed['median']} ms, "
              f"{speed['min']}-{speed['max']} over {speed['samples']} readings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
