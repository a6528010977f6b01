import pytest

from gameworkers.bots import PERSONAS, get_bot, style_for, styles
from gameworkers.engines import ENGINE_NAMES


@pytest.mark.parametrize("game", ENGINE_NAMES)
def test_every_persona_maps_to_a_real_style_of_every_game(game):
    for persona in PERSONAS:
        style = style_for(game, persona)
        assert style in styles(game)
        assert get_bot(game, style).style == style


def test_a_game_style_name_is_used_as_is_and_unknown_names_fall_back():
    assert style_for("otuzbir", "tricky") == "tricky"
    assert style_for("lembar", "agresif") == "agresif"
    assert style_for("cherki", "no-such-persona") is None
    with pytest.raises(KeyError):
        get_bot("cherki", "no-such-style")
