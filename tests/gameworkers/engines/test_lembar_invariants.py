"""Lembar invariants over thousands of seeded random games (../shared/spec/lembar.md, fairness.md).

tests/gameworkers/engines/test_properties.py already checks, for every engine on a few games, that
states round-trip through JSON, views hide what they must, junk input is refused without change,
``apply`` never mutates its argument and proofs reject tampering. This file plays many more Lembar
games, 2-6 seats (random legal moves, calls and no calls, catches in time, at the 3-second boundary
and too late, automatic moves and the system step that closes a catch window, refused early closes
and refused moves back in time, the odd leave) and checks after every step what the spec states:
every card is somewhere exactly once, exactly the seats in ``to_act`` may act, only the numbered
moves are logged and they are numbered 1..move_count (a window closing is not one), every
reshuffle's round is the sequence number of the move that drew from the empty stock, windows and
calls agree with the hands, and the end and ranking are as the scoring section says (recomputed
here with the spec's values, not the engine's). Every finished game's proof verifies with
tools/verify_proof.py, and its log, which holds no close step, replays to the very same state.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path

import pytest

from gameworkers.engines import IllegalMove, fairness, get_engine

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
import verify_proof  # noqa: E402 - the standalone verifier, imported from tools/

E = get_engine("lembar")
DECK = Counter(fairness.LEMBAR_DECK)
GAMES = 2000
CHUNK = 250
MAX_STEPS = 4000
CATCH_MS = 3000  # the spec: a catch is in time while now_ms <= play time + 3000


def spec_value(card: str) -> int:
    """The spec: number = its number, action = 20, W and F = 50."""
    if card in ("W", "F"):
        return 50
    return int(card[1]) if card[1].isdigit() else 20


def spec_ranks(values: list[int]) -> list[int]:
    """Competition ranks (1, 2, 2, 4), lower value better."""
    return [1 + sum(1 for w in values if w < v) for v in values]


def check_state(state: dict, seats: int) -> None:
    """What holds in every state, whoever moved last."""
    assert Counter(E.all_cards(state)) == DECK, "every card is somewhere exactly once"
    hands, active = state["hands"], state["active"]
    for i in state["removed"]:
        assert not active[i] and hands[i] == [], "a removed seat holds nothing"
    assert sorted(state["removed"]) == [i for i in range(seats) if not active[i]]
    # The log: moves only, numbered 1..move_count, all by a seat (a system step is never logged).
    moves = state["moves"]
    assert [m["seq"] for m in moves] == list(range(1, state["move_count"] + 1)), "dense, unique numbers"
    assert moves == [] or moves[-1]["now_ms"] <= state["last_move_ms"], "time never runs backwards"
    top = state["pile"][-1]
    if top not in ("W", "F"):
        assert state["motif"] == top[0], "a motif card on top sets the motif"
    if E.is_over(state):
        assert E.to_act(state) == [] and state["windows"] == []
        for i in range(seats):
            assert E.legal_moves(state, i) == []
        return
    turn = state["turn"]
    assert active[turn], "the seat on turn is in the game"
    to_act = E.to_act(state)
    # Exactly the seats in to_act have a legal move.
    assert to_act == [i for i in range(seats) if E.legal_moves(state, i)], "who may act"
    assert turn in to_act and all(active[i] for i in to_act)
    if state["phase"] == "drawn":
        assert hands[turn][-1] == state["drawn"], "the drawn card is the last one taken"
    targets = [w["seat"] for w in state["windows"]]
    assert len(targets) == len(set(targets)), "one window per seat"
    for w in state["windows"]:
        assert state["calls"][w["seat"]] == "missing" and w["since"] <= state["last_move_ms"]
    for i, call in enumerate(state["calls"]):
        if call is not None:
            assert active[i] and len(hands[i]) == 1, "a call status only for a one-card hand"


def check_result(state: dict, seats: int) -> None:
    """The spec's 'Winning and ranking', recomputed."""
    result, hands, active = E.result(state), state["hands"], state["active"]
    playing = [i for i in range(seats) if active[i]]
    removed = state["removed"]
    values = [sum(spec_value(c) for c in hands[i]) if active[i] else None for i in range(seats)]
    assert result["values"] == values
    ranks: list[int | None] = [None] * seats
    end = state["end"]
    if end == "stalemate":
        # Only when nothing is left to draw: everything is in hands but the pile's top card.
        assert state["stock"] == [] and len(state["pile"]) == 1
        for i, r in zip(playing, spec_ranks([values[i] for i in playing]), strict=True):
            ranks[i] = r
    else:
        winner = state["winner"]
        assert active[winner]
        if end == "win":
            assert hands[winner] == []
        else:
            assert end == "last_standing" and playing == [winner]
        ranks[winner] = 1
        others = [i for i in playing if i != winner]
        for i, r in zip(others, spec_ranks([values[i] for i in others]), strict=True):
            ranks[i] = r + 1
    # Removed players below everyone still in, in reverse order of removal.
    for k, i in enumerate(reversed(removed)):
        ranks[i] = len(playing) + 1 + k
    assert result["ranks"] == ranks
    assert result["winners"] == [i for i in range(seats) if ranks[i] == 1]


def refused(state: dict, seat: int | None, move: dict, now: int, code: str) -> None:
    before = json.dumps(state, sort_keys=True)
    with pytest.raises(IllegalMove) as info:
        E.apply(state, seat, move, now_ms=now)
    assert info.value.code == code, (code, info.value.code, info.value.message)
    assert json.dumps(state, sort_keys=True) == before, "a refused move changed the state"


def pick_move(state: dict, rng: random.Random, seats: int) -> tuple[int | None, dict]:
    """A random step: mostly the seat on turn (plays preferred, so games end), sometimes another seat
    that may act (catch, late call), an automatic move, or a leave."""
    roll = rng.random()
    if roll < 0.004:
        return rng.randrange(seats), {"type": "leave"}  # may be a seat already out: refused
    turn = state["turn"]
    if roll < 0.06:
        return turn, E.timeout_move(state, turn)
    acting = E.to_act(state)
    seat = turn if roll < 0.8 or len(acting) == 1 else rng.choice(acting)
    legal = E.legal_moves(state, seat)
    plays = [m for m in legal if m["type"] == "play"]
    if seat == turn and plays and rng.random() < 0.8:
        return seat, rng.choice(plays)
    return seat, rng.choice(legal)


def play_one(game: int, stats: Counter) -> None:
    rng = random.Random(game)
    seats = rng.randint(2, 6)
    seed = rng.randbytes(32)
    state = E.new(seed, seats)
    now = rng.randrange(10**6)
    for _ in range(MAX_STEPS):
        check_state(state, seats)
        if E.is_over(state):
            break
        now += rng.choice((0, 1, 100, 400, 1000, 2500))
        windows = state["windows"]
        expired = [w for w in windows if now > w["since"] + CATCH_MS]
        probe = rng.random()
        if windows and probe < 0.25:
            # The system step: accepted only once some window is past its 3 s; never a move.
            if not expired:
                refused(state, None, E.timeout_move(state, None), now, "nothing_due")
                first = min(w["since"] for w in windows) + CATCH_MS + 1  # closes after its 3 s
                due = E.deadline(state)
                if due["seat"] is None:  # unless a turn is due first
                    assert due["since_ms"] + due["limit_ms"] == first
                now = max(now, first)  # run it when the runtime would
                expired = [w for w in windows if now > w["since"] + CATCH_MS]
                assert expired, "the deadline is the first millisecond after some window's 3 s"
            after, events = E.apply(state, None, E.timeout_move(state, None), now_ms=now)
            assert events == [{"type": "window_closed", "seat": w["seat"]} for w in expired]
            assert after["windows"] == [w for w in windows if w not in expired]
            assert after["moves"] == state["moves"]
            assert after["move_count"] == state["move_count"] and after["shuffles"] == state["shuffles"]
            stats["close"] += 1
            state = after
            continue
        if windows and probe < 0.45:
            # A catch around the boundary: in time exactly while now <= play time + 3000.
            w = rng.choice(windows)
            now = max(now, w["since"] + rng.choice((0, 2999, 3000, 3000, 3001, 3500)))
            catchers = [i for i in range(seats) if state["active"][i] and i != w["seat"]]
            seat, move = rng.choice(catchers), {"type": "catch", "target": w["seat"]}
            if now > w["since"] + CATCH_MS:
                refused(state, seat, move, now, "catch_window_closed")
                stats["late_catch"] += 1
                continue
            stats["catch_at_3000"] += now == w["since"] + CATCH_MS
        elif probe > 0.98 and state["last_move_ms"] is not None:
            seat, move = pick_move(state, rng, seats)
            refused(state, seat, move, state["last_move_ms"] - rng.choice((1, 1000)), "time_backwards")
            continue
        else:
            seat, move = pick_move(state, rng, seats)
        try:
            after, events = E.apply(state, seat, move, now_ms=now)
        except IllegalMove as exc:
            # legal_moves lists a catch while its window is in the state; apply judges it by the time.
            late = move["type"] == "catch" and any(
                w["seat"] == move["target"] and now > w["since"] + CATCH_MS for w in windows)
            assert (move["type"], exc.code) == ("leave", "not_in_game") or (
                late and exc.code == "catch_window_closed"), (move, exc.code)
            stats["late_catch"] += late
            continue
        # One numbered move: one log entry, seq = move_count; windows past their 3 s are gone.
        seq = after["move_count"]
        assert seq == state["move_count"] + 1 and after["moves"][-1] == {
            "seq": seq, "seat": seat, "move": move, "now_ms": now}
        assert after["last_move_ms"] == now
        assert all(now <= w["since"] + CATCH_MS for w in after["windows"])
        # Each reshuffle of this move is round = its sequence number, from the pile minus its top.
        new_shuffles = after["shuffles"][len(state["shuffles"]):]
        reshuffles = [e for e in events if e["type"] == "reshuffle"]
        assert [(sh["round"], sh["purpose"]) for sh in new_shuffles] == [(seq, "kocok-ulang")] * len(reshuffles)
        assert [e["round"] for e in reshuffles] == [seq] * len(reshuffles)
        for sh in new_shuffles:
            assert sh["result"] == fairness.shuffle(seed, seq, "kocok-ulang", sh["initial"])
        if new_shuffles:  # the pile but its top (a played card is the new top), oldest first
            pile = state["pile"] + ([move["card"]] if move["type"] == "play" else [])
            assert new_shuffles[0]["initial"] == pile[:-1] and after["pile"][0] == pile[-1]
        stats["reshuffle"] += len(reshuffles)
        stats[move["type"]] += 1
        state = after
    else:
        pytest.fail(f"game {game} did not end within {MAX_STEPS} steps")
    check_result(state, seats)
    stats[f"end:{state['end']}"] += 1
    stats["seats:" + str(seats)] += 1
    # The proof: the standalone verifier accepts it, and the log (no close steps in it) replays to
    # the very same state, whether or not the close steps ran in the live game.
    doc = json.loads(json.dumps(E.proof(state)))
    assert all(m["seat"] is not None for m in doc["moves"])
    assert verify_proof.verify(doc) == [], game
    replay = E.replay_start(seed, seats, doc["options"], doc["moves"])
    for entry in doc["moves"]:
        replay, _ = E.apply(replay, entry["seat"], entry["move"], now_ms=entry["now_ms"])
    assert replay == state, f"game {game}: the replay differs"


@pytest.mark.parametrize("chunk", range(GAMES // CHUNK))
def test_random_games_keep_the_spec_invariants(chunk):
    stats: Counter = Counter()
    for game in range(chunk * CHUNK, (chunk + 1) * CHUNK):
        play_one(game, stats)
    # Every path this file is about was taken in every chunk.
    for kind in ("close", "late_catch", "catch", "catch_at_3000", "call", "leave", "keep", "reshuffle",
                 "end:win"):
        assert stats[kind] > 0, (kind, stats)


def test_tables_running_across_the_change_still_verify():
    """A table dealt before closing a window stopped being a move goes on under today's rules: its log
    holds numbered close steps (before) and none after. Such a log is replayed with the old
    numbering (a numbered close step is in it) and must still give the recorded game. The old rules
    are played here by the engine's ``numbered_close`` mode, which is the old engine's close step."""
    checked = 0
    for game in range(60):
        rng = random.Random(10_000 + game)
        seats = rng.randint(2, 4)
        seed = rng.randbytes(32)
        state = {**E.new(seed, seats), "numbered_close": True}
        now, switch = 0, rng.randrange(50, 400)
        for step in range(MAX_STEPS):
            if E.is_over(state):
                break
            if step == switch:
                state = {k: v for k, v in state.items() if k != "numbered_close"}  # the deploy
            now += rng.choice((1, 400, 1500))
            if state["windows"] and rng.random() < 0.5:
                old = "numbered_close" in state  # the old runtime closed at +3000, today's at +3001
                now = max(now, min(w["since"] for w in state["windows"]) + CATCH_MS + (0 if old else 1))
                state, _ = E.apply(state, None, E.timeout_move(state, None), now_ms=now)
                continue
            seat, move = pick_move(state, rng, seats)
            try:
                state, _ = E.apply(state, seat, move, now_ms=now)
            except IllegalMove:
                continue
        assert E.is_over(state)
        closes = [m["seq"] for m in state["moves"] if m["seat"] is None]
        if not closes or not any(sh["round"] > closes[0] for sh in state["shuffles"]):
            continue  # only games whose numbering matters for a reshuffle
        checked += 1
        doc = json.loads(json.dumps(E.proof(state)))
        assert verify_proof.verify(doc) == [], game
    assert checked >= 3
