"""Shared engine helpers."""

from __future__ import annotations

import pytest

from gameworkers.engines.base import copy_json


def test_copy_json_is_equal_and_shares_nothing_mutable():
    original = {"a": [1, {"b": [2, 3]}, (4, [5])], "c": None, "d": "x", "e": 1.5, "f": True}
    copied = copy_json(original)
    assert copied == original
    copied["a"][1]["b"].append(9)
    copied["a"][2][1].append(6)
    assert original == {"a": [1, {"b": [2, 3]}, (4, [5])], "c": None, "d": "x", "e": 1.5, "f": True}


@pytest.mark.parametrize("game,seats", [("lembar", 2), ("baloot", 4), ("cherki", 3), ("otuzbir", 3)])
def test_every_engine_answers_the_same_bad_envelope_the_same_way(game, seats):
    """Issue 21: ``auto`` only ever as true; a move needs a dict with a string type; a seat must be a
    seat (None is a system step, which only Lembar has)."""
    from gameworkers.engines import IllegalMove, get_engine

    engine = get_engine(game)
    state = engine.new(bytes(32), seats)
    seat = engine.deadline(state)["seat"]
    move = engine.legal_moves(state, seat)[0]
    for bad in ({**move, "auto": False}, {**move, "auto": "yes"}, {**move, "auto": 1}, None, "draw", {"type": 3}, {}):
        with pytest.raises(IllegalMove) as info:
            engine.apply(state, seat, bad, now_ms=10)
        assert info.value.code == "malformed", (bad, info.value.code)
    for bad_seat in (-1, "0", True, seats, None):
        with pytest.raises(IllegalMove) as info:
            engine.apply(state, bad_seat, move, now_ms=10)
        assert info.value.code == "bad_seat", (bad_seat, info.value.code)
    engine.apply(state, seat, {**move, "auto": True}, now_ms=10)  # the server's automatic form is fine
