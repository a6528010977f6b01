"""Shared pieces of the websocket fuzzers (in-process fast test and the real-stack slow run).

A *session* is a list of actions; each action becomes one client frame:
  garbage     any text (mostly not JSON)
  oversized   more than 4096 bytes
  json        an arbitrary JSON value (bounded depth)
  envelope    a frame shaped like the protocol with random fields
  out_of_turn a legal-looking move sent by a seat that may not act, with the current version
  stale       a move with a version other than the current one
  auto        a move carrying "auto"
  legal       the acting seat's first legal move with the current version (may change state)
  replay      the last legal frame sent again, byte for byte (must never apply twice)
"""

from __future__ import annotations

import json
import random
from typing import Any

MAX_FRAME = 4096
KINDS = ["garbage", "oversized", "json", "envelope", "out_of_turn", "stale", "auto", "legal", "replay"]
TYPES = ["move", "resync", "ping", "pong", "state", "error", "", "MOVE", "move ", None, 1]


def random_json(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.randrange(9 if depth < 4 else 6)
    if pick == 0:
        return None
    if pick == 1:
        return rng.choice([True, False])
    if pick == 2:
        return rng.choice([0, -1, 1, 2**31, 2**63, -(2**64), 10**40])
    if pick == 3:
        return rng.choice([0.5, -1e308, 1e-300, float("inf")])
    if pick in (4, 5):
        return "".join(rng.choice("abcPKTMW0123456789 \u0000\u202e\"\\") for _ in range(rng.randrange(12)))
    if pick == 6:
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = ["type", "move", "version", "id", "card", "cards", "motif", "seat", "auto", "x"]
    return {rng.choice(keys): random_json(rng, depth + 1) for _ in range(rng.randrange(5))}


def envelope(rng: random.Random, version: int) -> dict:
    frame: dict[str, Any] = {"type": rng.choice(TYPES)}
    if rng.random() < 0.8:
        frame["move"] = random_json(rng) if rng.random() < 0.5 else {"type": rng.choice(
            ["play", "draw", "pass", "call", "catch", "leave_", "bid", "knock"]), "card": random_json(rng)}
    if rng.random() < 0.8:
        frame["version"] = rng.choice([version, version - 1, version + 1, -1, 0, 2**63, "0", None, True, 1.0])
    if rng.random() < 0.5:
        frame["id"] = rng.choice(["a", 7, "x" * 64, "x" * 65, [], {}, True, None, 1.5])
    return frame


def dumps(value: Any) -> str:
    return json.dumps(value, allow_nan=True)


def frame_for(kind: str, rng: random.Random, *, version: int, legal_move: dict | None,
              last_legal: str | None) -> str:
    """The text of one client frame of this kind (``legal``/``replay`` need the table's context)."""
    if kind == "garbage":
        return "".join(rng.choice("{}[]\":,abc 0123\\\u00e9\ud7ff") for _ in range(rng.randrange(64)))
    if kind == "oversized":
        return dumps({"type": "move", "move": {"type": "draw", "pad": "x" * (MAX_FRAME + rng.randrange(1, 20000))},
                      "version": version})
    if kind == "json":
        return dumps(random_json(rng))
    if kind == "envelope":
        return dumps(envelope(rng, version))
    if kind == "stale":
        move = legal_move or {"type": "draw"}
        return dumps({"type": "move", "move": move, "version": rng.choice([version - 1, version + 1, version + 7]),
                      "id": "stale"})
    if kind == "auto":
        return dumps({"type": "move", "move": {**(legal_move or {"type": "draw"}), "auto": True}, "version": version})
    if kind == "replay" and last_legal is not None:
        return last_legal
    # legal / out_of_turn: the caller picks the socket; the frame is the same shape
    return dumps({"type": "move", "move": legal_move or {"type": "draw"}, "version": version, "id": kind})
