"""Lembar bots: styles, reflexes (call, catch, play over draw) and style-specific card choice."""

from __future__ import annotations

import hashlib
import random
from collections import Counter

from gameworkers.bots import RandomBot, get_bot, styles
from gameworkers.bots.lembar import STYLES
from gameworkers.engines import get_engine
from gameworkers.engines.lembar import DECK, MOTIF_OF
from gameworkers.simulate import play_game

E = get_engine("lembar")
SEED = bytes(range(32))


def build(hands, pile, *, turn=0, motif=None):
    s = E.new(SEED, len(hands))
    s["hands"] = [list(h) for h in hands]
    s["pile"] = list(pile)
    s["motif"] = motif or MOTIF_OF[pile[-1]]
    rest = Counter(DECK) - Counter(pile) - Counter(c for h in hands for c in h)
    s["stock"] = [c for c in dict.fromkeys(DECK) for _ in range(rest[c])]
    s["turn"] = turn
    return s


def decide(style, s, seat, *, optional=False):
    bot = get_bot("lembar", style)
    return bot.choose(E.view(s, seat), E.legal_moves(s, seat), random.Random(0), optional=optional)


def test_styles_are_listed_with_a_default_and_descriptions():
    assert list(STYLES) == ["cerdik", "agresif"]
    assert list(styles("lembar"))[:2] == ["cerdik", "agresif"] and "random" in styles("lembar")
    assert get_bot("lembar").style == "cerdik"
    for cls in STYLES.values():
        assert cls.description and cls.description.endswith(".")
    assert len({cls.description for cls in STYLES.values()}) == 2


def test_plays_rather_than_draws_and_saves_the_wild():
    s = build([["W", "K7", "T9"], ["M1", "M2"]], ["K3"])
    for style in STYLES:
        assert decide(style, s, 0) == {"type": "play", "card": "K7"}


def test_wild_names_the_motif_held_most():
    s = build([["W", "T1", "T2", "P5"], ["M1", "M2"]], ["K3"])
    assert decide("cerdik", s, 0) == {"type": "play", "card": "W", "motif": "T"}


def test_always_calls_with_the_last_but_one_card():
    s = build([["K7", "T9"], ["M1", "M2"]], ["K3"])
    for style in STYLES:
        assert decide(style, s, 0) == {"type": "play", "card": "K7", "call": True}


def test_calls_then_catches():
    s = build([["K5", "P9"], ["M1", "M2"], ["T1", "T2"]], ["K3"])
    s, _ = E.apply(s, 0, {"type": "play", "card": "K5"}, now_ms=1000)
    assert decide("cerdik", s, 0, optional=True) == {"type": "call"}
    assert decide("cerdik", s, 2, optional=True) == {"type": "catch", "target": 0}
    assert decide("agresif", s, 1, optional=True) == {"type": "catch", "target": 0}


def test_optional_with_nothing_to_do_is_none():
    s = build([["K5", "P9", "T1"], ["M1", "M2"], ["T1", "T2"]], ["K3"])
    assert decide("cerdik", s, 2, optional=True) is None


def test_draws_when_nothing_fits_and_plays_the_drawn_card():
    s = build([["T9", "P1"], ["M1", "M2"]], ["K3"])
    assert decide("cerdik", s, 0) == {"type": "draw"}
    s["stock"] = ["K8", *s["stock"]]
    s, _ = E.apply(s, 0, {"type": "draw"}, now_ms=1000)
    assert decide("cerdik", s, 0) == {"type": "play", "card": "K8"}


def test_cerdik_attacks_only_a_threatening_next_player():
    calm = build([["KD", "K9", "T1"], ["M1", "M2", "M3"], ["T2", "T3", "T4"]], ["K3"])
    assert decide("cerdik", calm, 0) == {"type": "play", "card": "KD"}  # sheds the 20-point card
    calm2 = build([["K1", "K9", "PS", "T1"], ["M1", "M2", "M3"], ["T2", "T3", "T4"]], ["K3"])
    assert decide("cerdik", calm2, 0) == {"type": "play", "card": "K9"}
    threat = build([["F", "P3", "T1"], ["M1"], ["T2", "T3", "T4"]], ["K3"])
    assert decide("cerdik", threat, 0) == {"type": "play", "card": "F", "motif": "P"}
    calm3 = build([["F", "P3", "T1"], ["M1", "M2", "M3"], ["T2", "T3", "T4"]], ["K3"])
    assert decide("cerdik", calm3, 0) == {"type": "play", "card": "P3"}


def test_agresif_plays_attack_cards_first():
    s = build([["K1", "K9", "KS", "T1"], ["M1", "M2", "M3"], ["T2", "T3", "T4"]], ["K3"])
    assert decide("agresif", s, 0) == {"type": "play", "card": "KS"}
    assert decide("cerdik", s, 0) == {"type": "play", "card": "KS"}  # also 20 points to shed
    s2 = build([["K1", "K9", "T1"], ["M1", "M2", "M3"], ["T2", "T3", "T4"]], ["K3"])
    assert decide("agresif", s2, 0) == {"type": "play", "card": "K9"}


def test_bots_beat_random_players():
    wins = 0
    for g in range(12):
        seed = hashlib.sha256(f"test-bots:{g}".encode()).digest()
        bots = [RandomBot() for _ in range(4)]
        bots[g % 4] = get_bot("lembar", "cerdik" if g % 2 else "agresif")
        final = play_game("lembar", seed, 4, bots=bots, rng_seed=g)
        wins += (g % 4) in E.result(final)["winners"]
    assert wins >= 8  # deterministic games; measured over 2,000 in docs/benchmarks/lembar.md
