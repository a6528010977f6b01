"""The game contract every engine declares (``GameSpec``): what rooms, matchmaking, tournaments and
the UI know of a game comes from here and agrees with what the engine itself does."""

import pytest

from gameworkers.engines import ENGINE_NAMES, STAKE_KINDS, game_spec, game_specs, get_engine

SEED = bytes(range(32))


def test_every_registered_game_declares_its_spec_under_its_own_name():
    assert [spec.name for spec in game_specs()] == list(ENGINE_NAMES)
    for spec in game_specs():
        assert get_engine(spec.name).name == spec.name
        assert spec.stake_kinds[0] == "casual" and set(spec.stake_kinds) <= set(STAKE_KINDS)


@pytest.mark.parametrize("game", ENGINE_NAMES)
def test_the_engine_deals_exactly_the_seat_counts_the_spec_allows(game):
    spec, engine = game_spec(game), get_engine(game)
    for seats in range(1, 9):
        if spec.allows_seats(seats):
            assert engine.new(SEED, seats)["seats"] == seats
        else:
            with pytest.raises(ValueError):
                engine.new(SEED, seats)


@pytest.mark.parametrize("game", ENGINE_NAMES)
def test_stored_options_are_already_normal(game):
    """A table's stored options pass the engine's own check unchanged (rooms validate with it)."""
    spec, engine = game_spec(game), get_engine(game)
    state = engine.new(SEED, spec.min_seats)
    assert engine.normal_options(state["options"], spec.min_seats) == state["options"]
    with pytest.raises((TypeError, ValueError)):
        engine.normal_options(["not", "an", "object"], spec.min_seats)


@pytest.mark.parametrize("game", ["baloot", "otuzbir"])
def test_unknown_options_are_refused_before_a_table_exists(game):
    with pytest.raises(ValueError):
        get_engine(game).normal_options({"no_such_option": 1}, game_spec(game).min_seats)


def test_sides_group_every_seat_once_and_agree_with_team_of():
    for spec in game_specs():
        for seats in range(spec.min_seats, spec.max_seats + 1):
            sides = spec.sides(seats)
            assert sorted(s for side in sides for s in side) == list(range(seats))
            for number, side in enumerate(sides):
                assert all(spec.team_of(seat) == number for seat in side)


def test_baloot_is_played_in_fixed_pairs_and_the_others_alone():
    assert game_spec("baloot").sides(4) == [[0, 2], [1, 3]] and game_spec("baloot").team_size == 2
    assert game_spec("lembar").sides(3) == [[0], [1], [2]] and game_spec("lembar").team_size == 1
    with pytest.raises(ValueError):
        game_spec("baloot").team_of(4)
