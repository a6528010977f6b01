"""31 (Otuz bir) bot measurements. Not a test: run once and copy the figures into docs/benchmarks/otuzbir.md.

    .venv/bin/python bench/bots_otuzbir.py --hands 2000 [--bluff-hands 1000] [--json out.json]
    .venv/bin/python bench/bots_otuzbir.py --timing-only 1000

1. Each style against a uniformly random player, heads-up, ``--hands`` seeded hands (tables of 10).
2. The styles against each other: all four at one table (seats rotated per table), ``--hands`` hands.
3. Decision time of every simulated decision (own turn and answers; 300 simulations each).
4. Bluff learning: the default bot (fresh memory) heads-up against a frequent bluffer and against an
   honest raiser, once learning and once with learning off on the same seeds; the see rate when
   answering the opponent's raises shows whether the learned model changes decisions. Plus a
   controlled check: the same answer positions decided with a "bluffer" and an "honest" memory.
Chips are in antes (ante 1, no rake). A table runs like the runtime: ``observe`` after every move.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gameworkers.bots import Bot, RandomBot  # noqa: E402
from gameworkers.bots import otuzbir as bots  # noqa: E402
from gameworkers.engines import get_engine  # noqa: E402
from gameworkers.engines import otuzbir as rules  # noqa: E402

ENGINE = get_engine("otuzbir")
HANDS_PER_TABLE = 10


class Bluffer(bots.SimBot):
    """Bench opponent: stands as soon as it may and always raises half the pot as it does (26 too)."""

    style = "bench-bluffer"

    def _turn(self, view: dict, legal: list[dict], rng: random.Random) -> dict:
        if any(m["type"] == "stand" for m in legal):
            return self._amount(legal, "raise_stand", self._size(view))
        return {"type": "open"}


class Honest(bots.SimBot):
    """Bench opponent: raises (raise and stand) only on 29, 30 or a special hand; never bluffs."""

    style = "bench-honest"

    def _turn(self, view: dict, legal: list[dict], rng: random.Random) -> dict:
        can_stand = any(m["type"] == "stand" for m in legal)
        p_stand, p_draw = self.simulate_turn(view, rng)
        if can_stand and p_stand >= p_draw:
            cards = view["players"][view["seat"]]["closed"] + view["players"][view["seat"]]["open"]
            if rules.hand_score(cards) >= bots.WEAK_BELOW:
                return self._amount(legal, "raise_stand", self._size(view))
            return {"type": "stand"}
        return {"type": "open"}


def seed_for(label: str, k: int) -> bytes:
    return hashlib.sha256(f"otuzbir-bench:{label}:{k}".encode()).digest()


def play_table(seed: bytes, players: list[Bot], names: list[str], rng: random.Random, log: dict) -> dict:
    """Play one table to its end like the runtime; records times, answers and per-seat net.

    Like the platform, the bench adds ``player_ids`` to each view so bots key what they learn
    by player, not by seat (seats rotate between tables)."""
    state = ENGINE.new(seed, len(players), {"hands": HANDS_PER_TABLE})
    now = 0
    while not ENGINE.is_over(state):
        now += 400
        due = ENGINE.deadline(state)
        seat = due["seat"]
        if due["limit_ms"] == 0:
            move = ENGINE.timeout_move(state, seat)
        else:
            view = ENGINE.view(state, seat)
            view["player_ids"] = names
            legal = ENGINE.legal_moves(state, seat)
            t0 = time.perf_counter()
            move = players[seat].choose(view, legal, rng)
            took = time.perf_counter() - t0
            if isinstance(players[seat], bots.SimBot) and view["phase"] in ("turn", "answer", "predeal_answer"):
                log["times"].append(took)
            if view["phase"] == "answer" and view["raise"]["kind"] in ("closed", "stand"):
                log["answers"].append({"who": names[seat], "raiser": names[view["raise"]["seat"]],
                                       "see": move["type"] == "see",
                                       "view": view if log.get("keep_views") else None})
        state, events = ENGINE.apply(state, seat, move, now_ms=now)
        if any(e["type"] == "hand_over" for e in events):
            for s, bot in enumerate(players):
                seen = ENGINE.view(state, s)
                seen["player_ids"] = names
                bot.observe(seen, events)
            log["hands"] += sum(1 for e in events if e["type"] == "hand_over")
    return ENGINE.result(state)


def match(label: str, makers: list, hands: int, rotate: bool, keep_views: bool = False) -> dict[str, Any]:
    """Tables of HANDS_PER_TABLE; ``makers`` are (name, factory); seats rotate per table if asked."""
    tables = max(1, hands // HANDS_PER_TABLE)
    names = [name for name, _ in makers]
    net: dict[str, list[int]] = {name: [] for name in names}
    log: dict[str, Any] = {"times": [], "answers": [], "hands": 0, "keep_views": keep_views}
    players = {name: make() for name, make in makers}  # one bot (and memory) per name for the whole run
    for t in range(tables):
        shift = t % len(makers) if rotate else 0
        seating = names[shift:] + names[:shift]
        result = play_table(seed_for(label, t), [players[n] for n in seating], seating, random.Random(t), log)
        for s, name in enumerate(seating):
            net[name].append(result["net"][s])
    out: dict[str, Any] = {"label": label, "hands": log["hands"], "tables": tables, "per_style": {}}
    for name in names:
        per_table = net[name]
        mean = statistics.fmean(per_table) / HANDS_PER_TABLE
        se = statistics.stdev(per_table) / HANDS_PER_TABLE / len(per_table) ** 0.5 if len(per_table) > 1 else 0.0
        out["per_style"][name] = {"net_chips": sum(per_table), "per_hand": round(mean, 3), "se_per_hand": round(se, 3)}
    out["times"] = log["times"]
    out["answers"] = log["answers"]
    out["players"] = players
    return out


def style(name: str, **overrides: Any):
    cls = bots.STYLES[name]
    if overrides:
        cls = type(f"{cls.__name__}Variant", (cls,), overrides)
    return lambda: cls({})


def timing(decisions: int) -> dict[str, Any]:
    """Wall and CPU time of simulated decisions (own turn, answers) of every style at 4-seat tables.

    CPU time (``process_time``) is given beside wall time because the machine is shared: wall time
    includes waiting for a core."""
    wall: list[float] = []
    cpu: list[float] = []
    k = 0
    names = list(bots.STYLES)
    while len(wall) < decisions:
        players = [bots.STYLES[n]({}) for n in names]
        state = ENGINE.new(seed_for("timing", k), 4, {"hands": 3})
        rng = random.Random(k)
        now = 0
        k += 1
        while not ENGINE.is_over(state) and len(wall) < decisions:
            now += 400
            due = ENGINE.deadline(state)
            seat = due["seat"]
            if due["limit_ms"] == 0:
                move = ENGINE.timeout_move(state, seat)
            else:
                view = ENGINE.view(state, seat)
                legal = ENGINE.legal_moves(state, seat)
                w0, c0 = time.perf_counter(), time.process_time()
                move = players[seat].choose(view, legal, rng)
                w1, c1 = time.perf_counter(), time.process_time()
                if view["phase"] != "predeal":
                    wall.append(w1 - w0)
                    cpu.append(c1 - c0)
            state, _ = ENGINE.apply(state, seat, move, now_ms=now)

    def stats(xs: list[float]) -> dict[str, float]:
        xs = sorted(xs)
        return {"median_ms": round(1000 * xs[len(xs) // 2], 2), "p90_ms": round(1000 * xs[int(len(xs) * 0.9)], 2),
                "max_ms": round(1000 * xs[-1], 2), "per_second": round(len(xs) / sum(xs), 1)}

    return {"decisions": len(wall), "sims": bots.SimBot.sims, "wall": stats(wall), "cpu": stats(cpu)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--bluff-hands", type=int, default=1000)
    parser.add_argument("--json", type=str, default="")
    parser.add_argument("--timing-only", type=int, default=0, help="only time this many decisions")
    args = parser.parse_args()
    if args.timing_only:
        print(json.dumps(timing(args.timing_only)))
        return
    report: dict[str, Any] = {"vs_random": {}, "all_styles": None, "bluff": {}}
    times: list[float] = []
    started = time.time()

    for name in bots.STYLES:
        res = match(f"vs-random:{name}", [(name, style(name)), ("random", RandomBot)], args.hands, rotate=True)
        times += res["times"]
        report["vs_random"][name] = {k: res[k] for k in ("hands", "per_style")}
        print(name, "vs random:", json.dumps(res["per_style"]), res["hands"], "hands", flush=True)

    res = match("all-styles", [(n, style(n)) for n in bots.STYLES], args.hands, rotate=True)
    times += res["times"]
    report["all_styles"] = {k: res[k] for k in ("hands", "per_style")}
    print("all four styles at one table:", json.dumps(res["per_style"]), res["hands"], "hands", flush=True)

    times.sort()
    report["decisions"] = {
        "count": len(times), "sims": bots.SimBot.sims,
        "median_ms": round(1000 * times[len(times) // 2], 2),
        "p90_ms": round(1000 * times[int(len(times) * 0.9)], 2),
        "max_ms": round(1000 * times[-1], 2),
        "per_second": round(len(times) / sum(times), 1),
    }
    print("decisions:", json.dumps(report["decisions"]), flush=True)

    # Bluff learning, live: the default bot (fresh memory) against each opponent type.
    kept: list[dict] = []
    for opp_name, opp in (("bluffer", Bluffer), ("honest", Honest)):
        for learn in (True, False):
            res = match(f"bluff:{opp_name}", [("learner", style("balanced", learn=learn)),
                                               (opp_name, lambda o=opp: o({}))],
                        args.bluff_hands, rotate=True, keep_views=not learn)
            learner = res["players"]["learner"]
            mine = [a for a in res["answers"] if a["who"] == "learner"]
            late = mine[len(mine) // 2:]  # second half: the model has seen showdowns by then
            rate = sum(a["see"] for a in late) / len(late) if late else 0.0
            key = f"{opp_name}:{'learn' if learn else 'no-learn'}"
            report["bluff"][key] = {
                "see_rate_2nd_half": round(rate, 3), "answers_2nd_half": len(late),
                "learned": learner.memory.get("opponents", {}).get(opp_name),
                "learned_bluff_rate": round(learner.bluff_rate({"player_ids": ["learner", opp_name]}, 1), 3),
                "learner_per_hand": res["per_style"]["learner"]["per_hand"],
            }
            print(key, json.dumps(report["bluff"][key]), flush=True)
            if not learn:
                kept += [a["view"] for a in mine[:150]]

    # Controlled: the same answer positions, decided with a "bluffer" and an "honest" memory.
    controlled = {}
    for label, weak in (("bluffer-memory", 40), ("honest-memory", 2), ("fresh-memory", None)):
        sees = 0
        for i, view in enumerate(kept):
            raiser_id = view["player_ids"][view["raise"]["seat"]]
            memory = {} if weak is None else {"version": 1, "last": None,
                                              "opponents": {raiser_id: {"raised": 50, "weak": weak}}}
            bot = bots.SimBot(memory)
            sees += bot.choose(view, [{"type": "see"}, {"type": "fold"}], random.Random(i))["type"] == "see"
        controlled[label] = {"positions": len(kept), "see_rate": round(sees / max(1, len(kept)), 3)}
    report["bluff"]["controlled"] = controlled
    print("controlled:", json.dumps(controlled), flush=True)

    report["seconds"] = round(time.time() - started, 1)
    print("total seconds:", report["seconds"])
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
