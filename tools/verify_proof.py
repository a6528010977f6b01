#!/usr/bin/env python3
"""Check a table's proof document: python3 tools/verify_proof.py PROOF.json

Standard library only. It re-derives, with its own code (deliberately not importing the
platform's fairness module), the commitment, every shuffle and the first player/dealer.
Then it replays the move log through the game's rules engine (pure standard-library
Python under gameworkers/engines, found next to this file) and checks that every move
is legal, that the engine's deals and draws come from exactly those shuffles, and that
the result matches. Prints OK and exits 0, or lists what differs and exits 1.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from pathlib import Path

CANONICAL = {
    "lembar": (
        [c for m in "PKTM" for c in [f"{m}0"] + [f"{m}{s}" for s in "123456789SRD"] * 2]
        + ["W"] * 4 + ["F"] * 4
    ),
    "baloot": [s + r for s in "SHDC" for r in "789TJQKA"],
    "otuzbir": [s + r for s in "SHDC" for r in "23456789TJQKA"],
    "cherki": (
        [f"{s}{n}" for s in "CSM" for n in range(1, 10)] + ["WF", "RF", "OT"]
    ) * 4,
}
SEAT_DRAWN_FIRST = {"lembar", "baloot", "cherki"}  # first = draw(seed, "0:giliran-awal", n)


def draw(seed: bytes, message: str, m: int) -> int:
    digest = hmac.new(seed, message.encode("utf-8"), hashlib.sha256).digest()
    return int.from_bytes(digest, "big") % m


def shuffle(seed: bytes, round_: int, purpose: str, initial: list) -> list:
    a = list(initial)
    for i in range(len(a) - 1, 0, -1):
        j = draw(seed, f"{round_}:{purpose}:{i}", i + 1)
        a[i], a[j] = a[j], a[i]
    return a


def otuzbir_ebe(order: list, n: int) -> int:
    """31's dealer: card i to seat i; the highest wins; only the tied draw again, in seat order."""
    value = {"A": 11, "K": 10, "Q": 10, "J": 10, "T": 10}
    pos, contenders = 0, list(range(n))
    while True:
        cards = {}
        for s in contenders:
            cards[s] = order[pos]
            pos += 1
        best = max(value.get(cards[s][1], None) or int(cards[s][1]) for s in contenders)
        contenders = [s for s in contenders
                      if (value.get(cards[s][1], None) or int(cards[s][1])) == best]
        if len(contenders) == 1:
            return contenders[0]


def check_fairness(doc: dict) -> list[str]:
    problems: list[str] = []
    game = doc.get("game")
    try:
        seed = bytes.fromhex(doc["seed"])
        assert len(seed) == 32
    except Exception:
        return ["seed missing or not 64 hex characters (is the table over?)"]
    if hashlib.sha256(seed).hexdigest() != doc.get("commitment"):
        problems.append("commitment is not SHA-256 of the seed")
    n = len(doc.get("seats") or [])
    shuffles = doc.get("shuffles") or []
    if not shuffles:
        problems.append("no shuffles listed")
    for k, sh in enumerate(shuffles):
        try:
            expect = shuffle(seed, sh["round"], sh["purpose"], sh["initial"])
        except Exception as exc:
            problems.append(f"shuffle #{k}: malformed ({exc})")
            continue
        if expect != sh["result"]:
            problems.append(f"shuffle #{k} ({sh['round']}:{sh['purpose']}): result differs from the re-derived one")
        if sh["purpose"] in ("kocok", "ebe") and game in CANONICAL and sh["initial"] != CANONICAL[game]:
            problems.append(f"shuffle #{k} ({sh['round']}:{sh['purpose']}): initial order is not the canonical deck")
    if game in SEAT_DRAWN_FIRST and n:
        if doc.get("first") != draw(seed, "0:giliran-awal", n):
            problems.append("first player/dealer is not draw(seed, '0:giliran-awal', n)")
    explicit_ebe = (doc.get("options") or {}).get("ebe") if game == "otuzbir" else None
    if explicit_ebe is not None and doc.get("first") != explicit_ebe:
        problems.append("first ebe differs from the table's explicit ebe option")
    if game == "otuzbir" and n and explicit_ebe is None:  # an explicit ebe (mid-tournament) skips 0:ebe
        ebe = [s for s in shuffles if s.get("purpose") == "ebe" and s.get("round") == 0]
        if not ebe:
            problems.append("no 0:ebe shuffle for the dealer draw")
        elif doc.get("first") != otuzbir_ebe(shuffle(seed, 0, "ebe", CANONICAL["otuzbir"]), n):
            problems.append("first ebe does not follow the high-card draw")
    return problems


def check_replay(doc: dict) -> list[str]:
    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root))
    try:
        from gameworkers.engines import get_engine  # standard-library-only package
    except ImportError as exc:
        return [f"cannot replay: rules engines not found next to this tool ({exc})"]
    try:
        engine = get_engine(doc["game"])
    except KeyError:
        return [f"unknown game {doc.get('game')!r}"]
    try:
        # replay_start: new(), under the numbering the log was recorded with (Lembar logs from before
        # a window's closing stopped being a move number it; see docs/rules/lembar.md).
        state = engine.replay_start(bytes.fromhex(doc["seed"]), len(doc["seats"]), doc.get("options") or {},
                                    list(doc.get("moves") or []))
    except Exception as exc:
        return [f"cannot start the game: {exc}"]
    expected_seq = 1
    for entry in doc.get("moves") or []:
        if entry.get("seq") != expected_seq:
            return [f"move log: expected seq {expected_seq}, found {entry.get('seq')}"]
        try:
            state, _ = engine.apply(state, entry["seat"], entry["move"], now_ms=entry["now_ms"])
        except Exception as exc:
            return [f"move {entry.get('seq')} by seat {entry.get('seat')} is not legal here: {exc}"]
        expected_seq += 1
    problems = []
    # A table stopped before its end (host, staff, room closed, deserted) publishes a partial log.
    stopped = doc.get("status") == "stopped"
    if not engine.is_over(state) and not stopped:
        problems.append("the move log does not finish the game")
    replayed = state["shuffles"]
    if replayed != doc.get("shuffles"):
        problems.append(
            f"the deals and draws do not match the listed shuffles "
            f"(replay used {len(replayed)}, proof lists {len(doc.get('shuffles') or [])})"
        )
    if state["first"] != doc.get("first"):
        problems.append("replay's first player/dealer differs")
    if engine.is_over(state) and json.loads(json.dumps(engine.result(state))) != doc.get("result"):
        problems.append("the result differs from the replayed game's result")
    return problems


def verify(doc: dict) -> list[str]:
    if not isinstance(doc, dict):
        return ["not a proof document"]
    problems = check_fairness(doc)
    problems += check_replay(doc)
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: verify_proof.py PROOF.json", file=sys.stderr)
        return 2
    try:
        doc = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"cannot read proof: {exc}")
        return 1
    problems = verify(doc)
    if problems:
        for p in problems:
            print(p)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
