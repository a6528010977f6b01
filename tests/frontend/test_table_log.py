"""Every event of every engine becomes a log sentence naming its player (games.js, run in Node).

The events come from random playouts of each engine (the real event shapes) plus a catalogue of every
event type the engines and the table services emit (docs/rules/*.md, "Events"); games.js is imported
as it is served, with the English labels the table page hands it.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from gameworkers.engines import get_engine

JS = Path(__file__).resolve().parents[2] / "frontend" / "static" / "frontend" / "js"
NODE = shutil.which("node")
NAMES = ["Ayu", "Budi", "Citra", "Deniz", "Emre", "Fikri", "Gul"]

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

# Events the page shows elsewhere (turn line, result panel) or that are bookkeeping: no log line.
QUIET = {"turn", "started", "game_over", "window_closed"}
# Fields that name the seat a line is about, by event type (default: "seat").
WHO = {"trick": "winner", "contract": "player", "hand_over": "winner", "hand_start": "ebe", "deal": "dealer"}

CATALOGUE: dict[str, list[dict]] = {
    "lembar": [
        {"type": "play", "seat": 0, "card": "K5", "motif": "K", "left": 3},
        {"type": "play", "seat": 1, "card": "W", "motif": "T", "left": 4},
        {"type": "play", "seat": 2, "card": "P7", "motif": "P", "left": 1, "call": True},
        {"type": "window", "seat": 0, "since_ms": 1, "until_ms": 3001},
        {"type": "skip", "seat": 1}, {"type": "reverse", "direction": -1},
        {"type": "penalty", "seat": 1, "count": 2, "reason": "draw_two"},
        {"type": "penalty", "seat": 1, "count": 4, "reason": "draw_four"},
        {"type": "penalty", "seat": 0, "count": 2, "reason": "caught"},
        {"type": "draw", "seat": 2, "count": 1}, {"type": "pass", "seat": 2}, {"type": "keep", "seat": 2},
        {"type": "reshuffle", "round": 9, "cards": 30}, {"type": "call", "seat": 0},
        {"type": "catch", "seat": 1, "target": 0}, {"type": "window_closed", "seat": 0},
        {"type": "timeout", "seat": 1, "count": 2}, {"type": "leave", "seat": 2},
        {"type": "removed", "seat": 1, "reason": "timeouts", "returned": 5}, {"type": "turn", "seat": 0},
        {"type": "game_over", "end": "win", "result": {"winners": [1]}},
        {"type": "game_over", "end": "stalemate", "result": {"winners": [0, 2]}},
        {"type": "game_over", "end": "last_standing", "result": {"winners": [2]}},
    ],
    "baloot": [
        {"type": "deal", "deal": 0, "dealer": 3, "exposed": "HK"},
        *({"type": "bid", "seat": 1, "bid": b, "round": 1} for b in ("pass", "sun", "hokum", "ashkal")),
        {"type": "bid", "seat": 2, "bid": "confirm", "round": 2, "trump": "S"},
        {"type": "void_deal", "deal": 1},
        {"type": "contract", "kind": "hokum", "player": 2, "team": 0, "trump": "H", "round": 1, "taker": 2},
        {"type": "contract", "kind": "ashkal", "player": 3, "team": 1, "trump": None, "round": 1, "taker": 1},
        {"type": "doubling", "seat": 1, "call": "pass"},
        {"type": "doubling", "seat": 1, "call": "double", "lock": True},
        *({"type": "doubling", "seat": 0, "call": c} for c in ("double", "triple", "four", "gahwa")),
        {"type": "declared", "seat": 0, "kinds": []}, {"type": "declared", "seat": 3, "kinds": ["sira", "hundred"]},
        {"type": "play", "seat": 0, "card": "SA"}, {"type": "baloot", "seat": 2},
        {"type": "trick", "winner": 3, "points": 25, "cards": []}, {"type": "sawa", "seat": 1, "cards": []},
        {"type": "deal_scored", "deal_score": [16, 10], "scores": [40, 30], "sweep": None, "failed": False},
        {"type": "deal_scored", "deal_score": [0, 26], "scores": [40, 56], "sweep": None, "failed": True},
        {"type": "deal_scored", "deal_score": [44, 0], "scores": [84, 56], "sweep": 0, "failed": True},
        {"type": "left", "seat": 3}, {"type": "game_over", "result": {"winners": [0, 2]}},
    ],
    "cherki": [
        {"type": "deal", "deal": 1, "dealer": 2, "turn": 0}, {"type": "draw", "seat": 0, "auto": False},
        {"type": "take", "seat": 1, "card": "C5"}, {"type": "discard", "seat": 1, "card": "M9", "auto": False},
        {"type": "discard", "seat": 2, "card": "WF", "forced": True}, {"type": "call", "seat": 2},
        {"type": "win", "seat": 2, "card": "S3", "source": "stock", "cards": [], "points": 36, "deltas": [-36, -36, 72]},
        {"type": "deal_void", "deal": 0, "reason": "stock_out"}, {"type": "deal_void", "deal": 1, "reason": "turn_limit"},
        {"type": "leave", "seat": 0}, {"type": "game_over", "result": {"winners": [2]}},
    ],
    "otuzbir": [
        {"type": "hand_start", "hand": 0, "ebe": 1, "order": [2, 0, 1], "ante": 5, "pot": 15},
        {"type": "pass", "seat": 2},
        *({"type": "raise", "seat": 0, "amount": 4, "kind": k, "pot": 20} for k in ("predeal", "closed", "stand")),
        {"type": "see", "seat": 1, "amount": 4, "pot": 24}, {"type": "fold", "seat": 2},
        {"type": "deal", "seats": [0, 1]}, {"type": "turn", "seat": 0},
        {"type": "open_card", "seat": 0, "card": "HQ"}, {"type": "closed_card", "seat": 1},
        {"type": "stand", "seat": 0}, {"type": "made_31", "seat": 1}, {"type": "bust", "seat": 0},
        {"type": "leave", "seat": 2},
        {"type": "hand_over", "hand": 0, "pot": 30, "winner": 1, "winner_category": "cengel", "eliminated": []},
        {"type": "hand_over", "hand": 1, "pot": 12, "winner": 0, "winner_category": None, "eliminated": [2]},
        {"type": "game_over", "result": {"winners": [1]}},
    ],
}
# The table services' own events (rooms.services), the same at every game.
PLATFORM = [{"type": "sat", "seat": 1}, {"type": "stood", "seat": 0}, {"type": "started"},
            *({"type": "stopped", "reason": r} for r in ("host", "staff", "room_closed", "deserted"))]

SEATS = {"lembar": 3, "baloot": 4, "cherki": 3, "otuzbir": 3}


def _random_events(game: str, seed: int, steps: int = 500) -> list[dict]:
    """A random playout (random legal moves, some timeouts and one leave), every event it made."""
    engine = get_engine(game)
    rng = random.Random(seed)
    state = engine.new(seed.to_bytes(32, "big"), SEATS[game], None)
    events: list[dict] = []
    now = 1_000
    for step in range(steps):
        if engine.is_over(state):
            break
        now += 400
        due = engine.deadline(state)
        if step == steps // 3:
            seat, move = rng.choice(engine.to_act(state)), {"type": "leave"}
        elif due is not None and due["seat"] is None:
            now = max(now, due["since_ms"] + due["limit_ms"])
            seat, move = None, engine.timeout_move(state, None)
        elif due is not None and (due.get("limit_ms") == 0 or rng.random() < 0.2):
            seat, move = due["seat"], engine.timeout_move(state, due["seat"])
        else:
            seat = rng.choice([s for s in engine.to_act(state) if engine.legal_moves(state, s)])
            move = rng.choice(engine.legal_moves(state, seat))
        try:
            state, new = engine.apply(state, seat, move, now_ms=now)
        except Exception:  # e.g. a second leave: another random step
            continue
        events += new
    return events


def _describe(game: str, events: list[dict], labels: dict, tmp_path: Path, stake: str = "pot") -> list:
    work = Path(tempfile.mkdtemp(dir=tmp_path))
    for name in ("games.js", "cards.js", "util.js"):
        shutil.copy(JS / name, work / name)
    (work / "package.json").write_text('{"type": "module"}')
    (work / "input.json").write_text(json.dumps({"game": game, "events": events, "labels": labels,
                                                 "names": NAMES, "stake": stake}))
    (work / "run.js").write_text("""
import { readFileSync } from "node:fs";
import { describeEvent } from "./games.js";
const input = JSON.parse(readFileSync(new URL("./input.json", import.meta.url)));
const L = input.labels;
const ctx = { C: L.common, M: L.moves, G: L.game, L: L.log, facts: L.facts, stake: input.stake,
  name: (s) => (typeof s === "number" ? input.names[s] : "") };
console.log(JSON.stringify(input.events.map((ev) => describeEvent(input.game, ev, ctx))));
""")
    out = subprocess.run([NODE, str(work / "run.js")], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout)


def _problems(game: str, events: list[dict], texts: list) -> list[str]:
    problems = []
    for ev, text in zip(events, texts, strict=True):
        kind = ev["type"]
        if text is None:
            quiet_ok = kind in QUIET or (kind == "removed" and ev.get("reason") == "left") or (
                kind == "draw" and game == "lembar" and not ev.get("count"))
            if not quiet_ok:
                problems.append(f"{kind}: no log line for {ev}")
            continue
        if re.search(r"undefined|NaN|null|%\(|\[object|\b[a-z]+_[a-z_]+\b", text):
            problems.append(f"{kind}: raw token in {text!r}")
        who = ev.get(WHO.get(kind, "seat"))
        if isinstance(who, int) and NAMES[who] not in text:
            problems.append(f"{kind}: {text!r} does not name {NAMES[who]}")
    return problems


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["lembar", "baloot", "cherki", "otuzbir"])
def test_every_event_is_a_sentence_naming_its_player(game, tmp_path):
    from rooms.labels import table_labels

    played = [ev for seed in (1, 2, 3) for ev in _random_events(game, seed)]
    catalogued = {ev["type"] for ev in CATALOGUE[game]}
    unknown = {ev["type"] for ev in played} - catalogued
    assert not unknown, f"{game} emits event types this test (and games.js) do not know: {unknown}"
    events = CATALOGUE[game] + PLATFORM + played
    texts = _describe(game, events, table_labels(game), tmp_path)
    assert not _problems(game, events, texts)
    by_type: dict[str, str] = {}
    for ev, text in zip(events, texts, strict=True):  # the catalogue's (first) line of each type
        by_type.setdefault(ev["type"], text)
    if game == "baloot":  # the example: the contract line names who took it
        assert by_type["contract"].startswith(NAMES[2]) and "takes the contract" in by_type["contract"]
    if game == "otuzbir":
        assert by_type["closed_card"] == f"{NAMES[1]} takes a closed card."


@pytest.mark.django_db
def test_lembar_removal_says_the_entry_is_forfeited_only_at_a_pot_table(tmp_path):
    from rooms.labels import table_labels

    event = [{"type": "removed", "seat": 1, "reason": "timeouts", "returned": 5}]
    labels = table_labels("lembar")
    (pot,) = _describe("lembar", event, labels, tmp_path)
    (free,) = _describe("lembar", event, labels, tmp_path, stake="casual")
    assert "entry" in pot and "entry" not in free and NAMES[1] in free and "3 timeouts" in free
