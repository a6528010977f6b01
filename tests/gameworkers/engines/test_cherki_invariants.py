"""Cherki invariants over thousands of seeded random games (../shared/spec/cherki.md, fairness.md).

tests/gameworkers/engines/test_properties.py already checks, for every engine on a few games, that
states round-trip through JSON, views hide what they must, junk input is refused without change,
``apply`` never mutates its argument and proofs reject tampering. This file plays many more Cherki
games (random legal moves with and without calls, takes, automatic moves via ``timeout_move``, the
odd ``{"type": "leave"}`` and refused moves back in time) and checks after every step what the spec
states, recomputed here with the spec's own definitions rather than the engine's helpers:

- every one of the 120 cards is somewhere exactly once; hands hold eight cards (nine for the seat
  that has drawn or taken), publicly taken cards are really held;
- exactly the seat on turn may act (``to_act``, ``legal_moves``), an automatic move never calls,
  a seat that left has its turns due at once;
- a caller's eight cards make two triples and a pair (searched here by brute force);
- the log's sequence numbers are 1..move_count, each move one entry with its ``now_ms``; a move
  stamped before the last is refused with ``time_backwards`` and changes nothing;
- every shuffle is ``(d, "kocok")`` of the canonical deck with ``d`` the deal index (fairness.md: "a
  deal's shuffle uses the deal index d"; only Lembar's reshuffles take a move's sequence number, and
  Cherki has none), deal d+1 starts only after a void deal d, dealt by the player on the left;
- a win: the nine cards make three triples, T = their card points (number = its number, honour = 1),
  the winner +2T and each opponent -T (settlement sums to 0); three void deals settle nothing;
- every finished game's proof verifies with tools/verify_proof.py, and ``new`` + ``apply`` of its
  logged moves replays to the very same state.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from gameworkers.engines import IllegalMove, fairness, get_engine
from gameworkers.engines.base import copy_json

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
import verify_proof  # noqa: E402 - the standalone verifier, imported from tools/

E = get_engine("cherki")
SORTED_DECK = sorted(fairness.CHERKI_DECK)
CANONICAL = list(fairness.CHERKI_DECK)
HONOURS = {"WF", "RF", "OT"}
GAMES = 2000
CHUNK = 250
MAX_STEPS = 3000  # at most 3 deals of 200 turns, two moves a turn


def spec_key(card: str) -> str:
    """cherki.md: number cards set by value (any suits); an honour only with copies of itself."""
    return card if card in HONOURS else card[1]


def spec_points(card: str) -> int:
    """cherki.md: a number card scores its number, each honour scores 1."""
    return 1 if card in HONOURS else int(card[1])


@cache
def _sets(keys: tuple[str, ...], triples: int, pairs: int) -> bool:
    """Can the sorted ``keys`` be split into exactly ``triples`` triples and ``pairs`` pairs?"""
    if not keys:
        return triples == 0 and pairs == 0
    n = keys.count(keys[0])
    if triples and n >= 3 and _sets(keys[3:], triples - 1, pairs):
        return True
    return bool(pairs and n >= 2 and _sets(keys[2:], triples, pairs - 1))


def spec_ready(cards: list[str]) -> bool:
    """Eight cards holding two triples and one pair."""
    return len(cards) == 8 and _sets(tuple(sorted(spec_key(c) for c in cards)), 2, 1)


def spec_complete(cards: list[str]) -> bool:
    """Nine cards making three triples."""
    return len(cards) == 9 and _sets(tuple(sorted(spec_key(c) for c in cards)), 3, 0)


def check_state(state: dict) -> list[dict]:
    """What holds in every state; returns the legal moves of the seat on turn."""
    assert sorted(E.all_cards(state)) == SORTED_DECK, "every card is somewhere exactly once"
    hands, turn, over = state["hands"], state["turn"], state["over"]
    for s in range(3):
        extra = 1 if state["phase"] == "discard" and s == turn else 0
        if not over:
            assert len(hands[s]) == 8 + extra, "eight cards, nine between the draw and the discard"
            # a caller's turn is one move, so it never holds nine (its eight: check_move)
            assert not (extra and state["called"][s])
    assert 0 <= state["turns"] < 200 or over, "a deal is void at its 200th turn"
    voids = [p for p in state["past_deals"] if p["outcome"] == "void"]
    assert state["void_deals"] == len(voids) <= 3
    assert state["deal"] == len(state["past_deals"]) - (1 if over else 0)
    if over:
        assert E.to_act(state) == [] and all(E.legal_moves(state, s) == [] for s in range(3))
        assert E.deadline(state) is None
        return []
    assert state["dealer"] == (state["first"] + state["deal"]) % 3
    assert E.to_act(state) == [turn], "only the seat on turn acts"
    legal = E.legal_moves(state, turn)
    assert legal and not E.legal_moves(state, (turn + 1) % 3) and not E.legal_moves(state, (turn + 2) % 3)
    due = E.deadline(state)
    assert due["seat"] == turn
    if state["left"][turn] or state["auto_turn"]:
        assert due["limit_ms"] == 0, "a seat that left (or an automatic turn) is due at once"
    auto = E.timeout_move(state, turn)
    assert auto["auto"] is True and not auto.get("call") and auto["type"] != "call", "automatic moves never call"
    return legal


def check_shuffles(state: dict) -> None:
    """fairness.md: deal d shuffles the canonical deck with round d, purpose kocok (each result is
    re-derived from the seed by tools/verify_proof.py at the end), and deals from its top."""
    assert [(sh["round"], sh["purpose"]) for sh in state["shuffles"]] == [
        (d, "kocok") for d in range(len(state["shuffles"]))]
    last = state["shuffles"][-1]
    assert last["initial"] == CANONICAL and last["round"] == state["deal"]
    assert state["stock"] == last["result"][24:], "8 cards each dealt from the top, the rest is the stock"


def check_move(before: dict, seat: int, move: dict, now: int, after: dict, events: list) -> None:
    """One applied move: one log entry, seq = move_count; deals, wins and calls as the spec says."""
    seq = before["move_count"] + 1
    assert after["move_count"] == seq and after["moves"][-1] == {"seq": seq, "seat": seat, "move": move, "now_ms": now}
    assert after["last_move_ms"] == now
    if after["called"][seat] and not after["over"]:  # only the mover's hand changed
        assert spec_ready(after["hands"][seat]), "a caller's eight cards stay locked and ready"
    known = after["known"][seat]
    if known:  # only the mover's hand and public takes change (a new deal starts them afresh)
        rest = list(after["hands"][seat])
        for card in known:
            assert card in rest, "a publicly taken card is still held"
            rest.remove(card)
    kinds = [e["type"] for e in events]
    new_deal = len(after["shuffles"]) - len(before["shuffles"])
    assert new_deal == kinds.count("deal") <= 1, "a shuffle only with a new deal"
    if new_deal:
        assert kinds.count("deal_void") == 1 and after["deal"] == before["deal"] + 1
        for k, past in enumerate(after["past_deals"]):
            assert past["deal"] == k and past["dealer"] == (after["first"] + k) % 3, "the next dealer: on the left"
        assert after["turn"] == (after["dealer"] + 1) % 3 and after["pile"] == [] and after["called"] == [False] * 3
        check_shuffles(after)
    if "call" in kinds:
        kept = list(before["hands"][seat])
        if move["type"] == "discard":
            kept.remove(move["card"])
        assert spec_ready(kept), "a call only on a ready hand (the eight cards kept)"
        # (a call on the discard that ends a void deal is cleared with it, docs/rules/cherki.md)
        assert after["called"][seat] or new_deal
        assert not move.get("auto"), "an automatic move never calls"
    if move["type"] == "leave":
        assert after["left"][seat] and kinds == ["leave"]
    if "win" in kinds:
        win = after["win"]
        assert win["seat"] == seat and before["called"][seat], "only a caller wins, on its own turn"
        assert spec_complete(win["cards"]), "the winning nine cards make three triples"
        total = sum(spec_points(c) for c in win["cards"])
        deltas = [2 * total if s == seat else -total for s in range(3)]
        assert win["points"] == total and win["deltas"] == deltas and sum(deltas) == 0
        assert after["over"] and E.result(after)["deltas"] == deltas and E.result(after)["winner"] == seat


def check_result(state: dict) -> None:
    result = E.result(state)
    if state["win"] is None:
        assert state["void_deals"] == 3 and len(state["past_deals"]) == 3, "three void deals in a row end it"
        assert result["deltas"] == [0, 0, 0] and not result["settled"] and result["winner"] is None
        assert result["ranks"] == [1, 1, 1]
    else:
        seat = state["win"]["seat"]
        assert result["ranks"] == [1 if s == seat else 2 for s in range(3)] and result["winners"] == [seat]
        assert sum(result["deltas"]) == 0 and result["settled"]


def refused_backwards(state: dict, seat: int, move: dict, now: int) -> None:
    # The log is only ever appended to on a copy (test_properties.py): compare the rest in full.
    before, logged = copy_json({k: v for k, v in state.items() if k != "moves"}), len(state["moves"])
    with pytest.raises(IllegalMove) as info:
        E.apply(state, seat, move, now_ms=now)
    assert info.value.code == "time_backwards", info.value.message
    assert {k: v for k, v in state.items() if k != "moves"} == before and len(state["moves"]) == logged


def pick_move(state: dict, legal: list[dict], rng: random.Random, call_bias: float) -> tuple[int, dict]:
    roll = rng.random()
    if roll < 0.004:
        return rng.randrange(3), {"type": "leave"}  # may be refused: already left
    turn = state["turn"]
    if roll < 0.08:
        return turn, E.timeout_move(state, turn)
    # Calls and completing takes often enough that many games are won (not only voided).
    calls = [m for m in legal if m["type"] == "call" or m.get("call") or (
        m["type"] == "take" and state["called"][turn])]
    if calls and rng.random() < call_bias:
        return turn, rng.choice(calls)
    return turn, rng.choice(legal)


def play_one(game: int, stats: Counter) -> None:
    rng = random.Random(game)
    seed = rng.randbytes(32)
    state = E.new(seed, 3)
    check_shuffles(state)
    # Mostly games whose callers go for the win (they end sooner: more games in the time), some that
    # seldom call, so that three void deals in a row end a game now and then.
    call_bias = rng.choice((0.0, 0.5, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95))
    now = rng.randrange(10**6)
    for _ in range(MAX_STEPS):
        legal = check_state(state)
        if state["over"]:
            break
        seat, move = pick_move(state, legal, rng, call_bias)
        legal = move["type"] != "leave" or not state["left"][seat]
        if legal and state["last_move_ms"] is not None and rng.random() < 0.006:
            refused_backwards(state, seat, move, state["last_move_ms"] - rng.choice((1, 1000)))
            stats["backwards"] += 1
        now += rng.choice((0, 1, 400, 2500, 20_000))
        try:
            after, events = E.apply(state, seat, move, now_ms=now)
        except IllegalMove as exc:
            assert (move["type"], exc.code) == ("leave", "already_left"), (move, exc.code)
            continue
        check_move(state, seat, move, now, after, events)
        stats[move["type"] + (":auto" if move.get("auto") else "")] += 1
        stats["call"] += any(e["type"] == "call" for e in events)
        state = after
    else:
        pytest.fail(f"game {game} did not end within {MAX_STEPS} steps")
    check_result(state)
    stats["won" if state["win"] else "void"] += 1
    # The proof: the standalone verifier accepts it, and the log replays to the very same state.
    doc = json.loads(json.dumps(E.proof(state)))
    assert [m["seq"] for m in doc["moves"]] == list(range(1, state["move_count"] + 1)), "dense, unique numbers"
    times = [m["now_ms"] for m in doc["moves"]]
    assert times == sorted(times), "time never runs backwards"
    # verify_proof replays the log (engine.new + apply) and compares shuffles, first dealer, result
    assert verify_proof.verify(doc) == [], game
    if game % 8 == 0:  # a sample also replays to the very same state, every key
        replay = E.new(seed, 3, doc["options"])
        for entry in doc["moves"]:
            replay, _ = E.apply(replay, entry["seat"], entry["move"], now_ms=entry["now_ms"])
        assert replay == state, f"game {game}: the replay differs"


@pytest.mark.parametrize("chunk", range(GAMES // CHUNK))
def test_random_games_keep_the_spec_invariants(chunk):
    stats: Counter = Counter()
    path = list(sys.path)
    try:
        for game in range(chunk * CHUNK, (chunk + 1) * CHUNK):
            play_one(game, stats)
    finally:
        sys.path[:] = path  # verify_proof puts the repository on sys.path at every call
    # Every path this file is about was taken in every chunk.
    for kind in ("won", "void", "call", "leave", "take", "draw:auto", "discard:auto", "backwards"):
        assert stats[kind] > 0, (kind, stats)
