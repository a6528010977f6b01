"""The move envelope (issue 21; docs/rules/moves.md): ``Engine.apply`` is one template for every game,
so the four engines refuse the same bad input with the same stable code and leave the state as it was.

Each case below is fed to every engine: a fresh table, the seat the next automatic step is due for and
its first legal move, varied one way at a time.
"""

from __future__ import annotations

import pytest

from gameworkers.engines import ENGINE_NAMES, IllegalMove, get_engine
from gameworkers.engines.base import copy_json

SEATS = {"lembar": 2, "baloot": 4, "cherki": 3, "otuzbir": 3}
SEED = bytes(range(32))


def nested(depth: int = 50_000) -> list:
    """A value nested far deeper than any recursion limit: the check must look at it without recursing."""
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


NESTED = nested()


def table(game: str) -> tuple[object, dict, int, dict]:
    engine = get_engine(game)
    state = engine.new(SEED, SEATS[game])
    seat = engine.deadline(state)["seat"]
    return engine, state, seat, engine.legal_moves(state, seat)[0]


def refused(engine, state: dict, seat, move, now_ms=1000) -> str:
    before = copy_json(state)
    with pytest.raises(IllegalMove) as info:
        engine.apply(state, seat, move, now_ms=now_ms)
    assert state == before, "a refused move changed the state"
    assert info.value.message and isinstance(info.value.message, str)
    return info.value.code


def other_seat(engine, state: dict, seat: int) -> int:
    """A seat in the game that may not act now."""
    acting = engine.to_act(state)
    return next(s for s in range(state["seats"]) if s not in acting and s != seat)


# Each case: (id, code, how to make the call from the table: (seat, move, now_ms)).
CASES = [
    ("auto_false", "malformed", lambda e, st, seat, mv: (seat, {**mv, "auto": False}, 1000)),
    ("auto_yes", "malformed", lambda e, st, seat, mv: (seat, {**mv, "auto": "yes"}, 1000)),
    ("auto_one", "malformed", lambda e, st, seat, mv: (seat, {**mv, "auto": 1}, 1000)),
    ("auto_on_a_leave", "malformed", lambda e, st, seat, mv: (seat, {"type": "leave", "auto": True}, 1000)),
    ("unknown_key", "malformed", lambda e, st, seat, mv: (seat, {**mv, "colour": "red"}, 1000)),
    ("not_a_dict_none", "malformed", lambda e, st, seat, mv: (seat, None, 1000)),
    ("not_a_dict_str", "malformed", lambda e, st, seat, mv: (seat, mv["type"], 1000)),
    ("not_a_dict_list", "malformed", lambda e, st, seat, mv: (seat, [mv], 1000)),
    ("no_type", "malformed", lambda e, st, seat, mv: (seat, {k: v for k, v in mv.items() if k != "type"}, 1000)),
    ("type_int", "malformed", lambda e, st, seat, mv: (seat, {**mv, "type": 3}, 1000)),
    ("type_list", "malformed", lambda e, st, seat, mv: (seat, {**mv, "type": [mv["type"]]}, 1000)),
    ("type_none", "malformed", lambda e, st, seat, mv: (seat, {**mv, "type": None}, 1000)),
    ("unknown_type", "unknown_move", lambda e, st, seat, mv: (seat, {"type": "dance"}, 1000)),
    ("seat_negative", "bad_seat", lambda e, st, seat, mv: (-1, mv, 1000)),
    ("seat_past_the_end", "bad_seat", lambda e, st, seat, mv: (st["seats"], mv, 1000)),
    ("seat_bool", "bad_seat", lambda e, st, seat, mv: (True, mv, 1000)),
    ("seat_str", "bad_seat", lambda e, st, seat, mv: (str(seat), mv, 1000)),
    ("seat_float", "bad_seat", lambda e, st, seat, mv: (float(seat), mv, 1000)),
    ("seat_none", "bad_seat", lambda e, st, seat, mv: (None, mv, 1000)),
    ("wrong_seat", "not_your_turn", lambda e, st, seat, mv: (other_seat(e, st, seat), mv, 1000)),
    ("now_float", "malformed", lambda e, st, seat, mv: (seat, mv, 1000.5)),
    ("now_str", "malformed", lambda e, st, seat, mv: (seat, mv, "1000")),
    ("now_bool", "malformed", lambda e, st, seat, mv: (seat, mv, True)),
    ("now_none", "malformed", lambda e, st, seat, mv: (seat, mv, None)),
    ("nested_under_an_unknown_key", "malformed", lambda e, st, seat, mv: (seat, {**mv, "x": NESTED}, 1000)),
    ("nested_auto", "malformed", lambda e, st, seat, mv: (seat, {**mv, "auto": NESTED}, 1000)),
    ("nested_type", "malformed", lambda e, st, seat, mv: (seat, {"type": NESTED}, 1000)),
    ("nested_dict_type", "malformed", lambda e, st, seat, mv: (seat, {"type": {"type": mv["type"]}}, 1000)),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("game", ENGINE_NAMES)
def test_the_same_bad_envelope_gets_the_same_code_from_every_engine(game, case):
    _, code, make = case
    engine, state, seat, move = table(game)
    seat_arg, move_arg, now = make(engine, state, seat, move)
    assert refused(engine, state, seat_arg, move_arg, now) == code


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_one_code_per_case_across_the_four_engines(case):
    _, _, make = case
    codes = {}
    for game in ENGINE_NAMES:
        engine, state, seat, move = table(game)
        codes[game] = refused(engine, state, *make(engine, state, seat, move))
    assert len(set(codes.values())) == 1, codes


@pytest.mark.parametrize("game", ENGINE_NAMES)
def test_a_nested_value_under_any_declared_key_is_malformed(game):
    """Every key a move type declares takes a scalar (Baloot's ``projects`` is the one structured key):
    a list or an object there is ``malformed`` before any rule looks at it, whoever sends it."""
    engine, state, seat, _ = table(game)
    checked = 0
    for mtype, rule in engine.move_rules.items():
        for key in rule.keys:
            if key in rule.structured:
                continue
            for value in (NESTED, {"a": NESTED}, [1]):
                for who in {seat, other_seat(engine, state, seat)}:
                    assert refused(engine, state, who, {"type": mtype, key: value}) == "malformed", (mtype, key)
            checked += 1
    assert checked


def test_baloots_structured_projects_are_checked_without_recursing():
    engine = get_engine("baloot")
    state = engine.new(SEED, 4)
    state, _ = engine.apply(state, engine.deadline(state)["seat"], {"type": "sun"}, now_ms=1000)
    assert state["phase"] == "projects"  # a round-1 Sun under 100 points: no doubling
    seat = engine.deadline(state)["seat"]
    for projects in (NESTED, [NESTED], [{"kind": NESTED, "cards": NESTED}], [{"kind": "sira", "cards": [NESTED]}]):
        assert refused(engine, state, seat, {"type": "declare", "projects": projects}) == "malformed"


@pytest.mark.parametrize("game", ENGINE_NAMES)
def test_time_never_runs_backwards_in_any_engine(game):
    engine, state, seat, move = table(game)
    state, _ = engine.apply(state, seat, move, now_ms=5000)
    seat = engine.deadline(state)["seat"]
    nxt = engine.legal_moves(state, seat)[0]
    assert refused(engine, state, seat, nxt, now_ms=4999) == "time_backwards"
    assert refused(engine, state, seat, {"type": "leave"}, now_ms=4999) == "time_backwards"
    engine.apply(state, seat, nxt, now_ms=5000)  # the same millisecond is not earlier


def finished(game: str) -> tuple[object, dict]:
    """A table played to its end: every seat but seat 0 leaves, then the automatic moves finish it."""
    engine = get_engine(game)
    state = engine.new(SEED, SEATS[game])
    now = 1000
    for seat in range(1, SEATS[game]):
        if not engine.is_over(state):
            state, _ = engine.apply(state, seat, {"type": "leave"}, now_ms=now)
    for _ in range(5000):
        if engine.is_over(state):
            return engine, state
        due = engine.deadline(state)
        now += 100
        if due["seat"] is None:
            now = max(now, due["since_ms"] + due["limit_ms"])
        state, _ = engine.apply(state, due["seat"], engine.timeout_move(state, due["seat"]), now_ms=now)
    raise AssertionError(f"{game} did not end")


@pytest.mark.parametrize("game", ENGINE_NAMES)
def test_a_move_after_the_game_is_over_is_refused(game):
    engine, state = finished(game)
    last = state["last_move_ms"]
    for seat in range(state["seats"]):
        for move in ({"type": "leave"}, *({"type": t} for t in engine.move_rules if not engine.move_rules[t].keys)):
            assert refused(engine, state, seat, move, now_ms=last + 1) == "game_over"


@pytest.mark.parametrize("game", ENGINE_NAMES)
def test_automatic_moves_carry_auto_true_only_on_the_types_that_allow_it(game):
    """What ``timeout_move`` makes is what the envelope lets carry ``"auto": true``: the timers, the
    runtime's deadline firing and the bots' rescue keep working."""
    engine = get_engine(game)
    state = engine.new(SEED, SEATS[game])
    now, seen = 1000, set()
    for _ in range(400):
        if engine.is_over(state):
            break
        due = engine.deadline(state)
        now += 100
        if due["seat"] is None:
            now = max(now, due["since_ms"] + due["limit_ms"])
        move = engine.timeout_move(state, due["seat"])
        assert move["auto"] is True and engine.move_rules[move["type"]].auto, move
        seen.add(move["type"])
        state, _ = engine.apply(state, due["seat"], move, now_ms=now)
    assert seen
    non_auto = [t for t, rule in engine.move_rules.items() if not rule.auto]
    assert "leave" in non_auto
