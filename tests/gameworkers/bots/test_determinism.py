"""Bots are deterministic: the same seeded game gives the same moves in any process, whatever
PYTHONHASHSEED is (set and dict-of-set iteration order must never decide a move) (issue 27 #4)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SEATS = {"lembar": 3, "baloot": 4, "cherki": 3, "otuzbir": 3}

SCRIPT = """
import hashlib, json, sys
sys.path[:0] = [{root!r}, {root!r} + '/platform']
from gameworkers.bots import get_bot, styles
from gameworkers.simulate import play_game
out = {{}}
for game, seats in {seats!r}.items():
    for style in styles(game):
        digest = hashlib.sha256()
        for k in range({games}):
            bots = [get_bot(game, style) for _ in range(seats)]
            state = play_game(game, bytes([k + 1]) * 32, seats, bots=bots, rng_seed=k)
            digest.update(json.dumps(state["moves"], sort_keys=True).encode())
        out[game + "/" + style] = digest.hexdigest()
print(json.dumps(out))
"""


def _digests(hash_seeds: list[str], games: int) -> list[dict[str, str]]:
    """One process per hash seed, side by side."""
    code = SCRIPT.format(root=str(ROOT), seats=SEATS, games=games)
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"})
             for seed in hash_seeds]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        results.append(json.loads(out))
    return results


@pytest.mark.parametrize("games", [2])
def test_every_bot_plays_the_same_seeded_games_whatever_the_hash_seed(games):
    first, second = _digests(["1", "2"], games)
    assert set(first) >= {f"{g}/random" for g in SEATS}
    differing = sorted(name for name in first if first[name] != second[name])
    assert not differing, differing
