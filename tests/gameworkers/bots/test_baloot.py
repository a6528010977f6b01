"""Baloot bots: legal, view-only decisions; sampling consistent with what the seat saw."""

from __future__ import annotations

import copy
import hashlib
import random

from gameworkers.bots import get_bot, styles
from gameworkers.bots.baloot import (
    GreedyBot,
    PimcBot,
    hokum_strength,
    knowledge,
    sample_hands,
    sun_strength,
)
from gameworkers.engines import get_engine
from gameworkers.engines.baloot import hand_sorted
from gameworkers.simulate import play_game

E = get_engine("baloot")


def base_view(**kw) -> dict:
    v = {
        "game": "baloot", "seat": 0, "phase": "play", "options": {"mode": "classic", "overtrump": False},
        "hand": [], "counts": [0, 0, 0, 0], "exposed": "D7", "exposed_taker": 1,
        "contract": {"kind": "sun", "player": 1, "team": 1, "trump": None, "round": 1, "taker": 1},
        "doubling": {"level": 1, "lock": False}, "projects": [[], [], [], []], "leader": 1, "trick": [],
        "tricks": [], "bidding": {"round": 1, "stage": "bid", "turn": 0},
    }
    v.update(kw)
    return v


def test_styles_registered_with_descriptions():
    found = styles("baloot")
    assert list(found)[:2] == ["pimc", "greedy"]
    assert get_bot("baloot").style == "pimc"
    for cls in (PimcBot, GreedyBot):
        assert cls.description.endswith(".") and len(cls.description) > 20


def test_hand_strength_orders_hands_sensibly():
    assert sun_strength(["SA", "ST", "HA", "HT", "DA", "CA"]) > sun_strength(["S7", "S8", "H9", "HQ", "D8", "C7"])
    assert hokum_strength(["HJ", "H9", "HA", "SA", "D7", "C8"], "H") > hokum_strength(["HJ", "H9", "HA", "SA"], "S")


def test_bidding_strong_and_weak_hands():
    bot = PimcBot()
    rng = random.Random(1)
    moves = [{"type": "pass"}, {"type": "sun"}, {"type": "hokum"}]
    strong = base_view(phase="bidding", hand=["SA", "ST", "HA", "HT", "DA"], exposed="CA", exposed_taker=None,
                       contract=None)
    assert bot.choose(strong, moves, rng) == {"type": "sun"}
    trumpy = base_view(phase="bidding", hand=["HJ", "H9", "HA", "SA", "D7"], exposed="H8", exposed_taker=None,
                       contract=None)
    assert bot.choose(trumpy, moves, rng) == {"type": "hokum"}
    weak = base_view(phase="bidding", hand=["S7", "S8", "H9", "HQ", "D8"], exposed="C7", exposed_taker=None,
                     contract=None)
    assert bot.choose(weak, moves, rng) == {"type": "pass"}


def test_optional_doubling_pass_is_left_to_the_own_turn():
    bot = PimcBot()
    view = base_view(phase="doubling", hand=["S7", "S8", "H9", "HQ", "D8", "C7", "C8", "C9"],
                     contract={"kind": "hokum", "player": 1, "team": 1, "trump": "S", "round": 1, "taker": 1},
                     doubling={"step": "double", "level": 1, "lock": False})
    moves = [{"type": "pass"}, {"type": "double", "lock": False}, {"type": "double", "lock": True}]
    assert bot.choose(view, moves, random.Random(0), optional=True) is None
    assert bot.choose(view, moves, random.Random(0)) == {"type": "pass"}
    view["hand"] = ["SJ", "S9", "SA", "ST", "HA", "DA", "CA", "C8"]
    assert bot.choose(view, moves, random.Random(0), optional=True) == {"type": "double", "lock": False}


def test_sampling_respects_voids_counts_and_known_cards():
    # seat 2 failed to follow hearts in Hokum (spades trump) with a club: void in hearts and spades
    tricks = [{"leader": 1, "winner": 1, "points": 11,
               "cards": [{"seat": 1, "card": "HA"}, {"seat": 2, "card": "C7"}, {"seat": 3, "card": "H7"},
                         {"seat": 0, "card": "H8"}]}]
    view = base_view(hand=["S7", "S8", "D8", "D9", "DT", "CA", "CK"], counts=[7, 7, 7, 7], tricks=tricks,
                     contract={"kind": "hokum", "player": 1, "team": 1, "trump": "S", "round": 1, "taker": 1},
                     exposed="SJ", exposed_taker=3,
                     projects=[[], [{"kind": "sira", "cards": ["DQ", "DK", "DA"]}], [], []])
    unseen, voids, known = knowledge(view, 0)
    assert voids[2] == {"H", "S"} and known == {"SJ": 3, "DQ": 1, "DK": 1, "DA": 1}
    assert len(unseen) == 32 - 7 - 4
    rng = random.Random(3)
    for _ in range(50):
        hands = sample_hands(view, 0, rng, unseen, voids, known)
        assert [len(h) for h in hands] == [7, 7, 7, 7]
        assert not any(c[0] in "HS" for c in hands[2])
        assert "SJ" in hands[3] and {"DQ", "DK", "DA"} <= set(hands[1])
        assert sorted(c for h in hands[1:] for c in h) == sorted(unseen)


def test_pimc_takes_a_fat_trick_as_last_player():
    # Sun; opponent seat 1 led SK, my partner (seat 2) S7, seat 3 SQ; I hold SA and S8 and play last
    view = base_view(hand=["SA", "S8", "H7", "H8"], counts=[4, 3, 3, 3], leader=1,
                     trick=[{"seat": 1, "card": "SK"}, {"seat": 2, "card": "S7"}, {"seat": 3, "card": "SQ"}],
                     tricks=[{"leader": 1, "winner": 1, "points": 0, "cards": [
                         {"seat": 1, "card": c1}, {"seat": 2, "card": c2}, {"seat": 3, "card": c3},
                         {"seat": 0, "card": c0}]} for c1, c2, c3, c0 in
                         [("C7", "C8", "C9", "D7"), ("CJ", "CQ", "CK", "D8"), ("DJ", "DQ", "DK", "D9"),
                          ("HJ", "HQ", "HK", "DT")]])
    moves = [{"type": "play", "card": "SA"}, {"type": "play", "card": "S8"}]
    assert PimcBot().choose(view, moves, random.Random(0)) == {"type": "play", "card": "SA"}


def test_bots_take_sawa_and_claim_baloot():
    view = base_view(hand=["SA"], counts=[1, 1, 1, 1], leader=0)
    moves = [{"type": "play", "card": "SA"}, {"type": "sawa"}, {"type": "sawa", "baloot": True}]
    assert PimcBot().choose(view, moves, random.Random(0)) == {"type": "sawa", "baloot": True}
    moves = [{"type": "play", "card": "HQ"}, {"type": "play", "card": "HQ", "baloot": True}]
    assert GreedyBot().choose(view, moves, random.Random(0))["baloot"] is True


def test_bot_sees_only_its_view_and_moves_are_legal():
    """A full game where every bot move is checked against the engine's legal moves."""
    seed = hashlib.sha256(b"bot-test").digest()
    checked = {"n": 0}

    class Checking(PimcBot):
        rollouts = 24

        def choose(self, view, legal, rng, *, optional=False):
            assert "hands" not in view and "stock" not in view
            before = copy.deepcopy(view)
            move = super().choose(view, legal, rng, optional=optional)
            assert view == before, "a bot must not change its view"
            assert move is None or move in legal
            checked["n"] += 1
            return move

    bots = [Checking(), get_bot("baloot", "random"), Checking(), get_bot("baloot", "random")]
    final = play_game("baloot", seed, 4, bots=bots, rng_seed=5)
    assert E.is_over(final) and checked["n"] > 50


class QuickPimc(PimcBot):
    rollouts = 30  # keeps the test short; the bench uses the full budget


def test_greedy_and_pimc_beat_random_on_fixed_seeds():
    won = 0
    for g in range(6):
        seed = hashlib.sha256(f"bots-{g}".encode()).digest()
        side = g % 2
        make = QuickPimc if g < 2 else GreedyBot
        bots = [make() if s % 2 == side else get_bot("baloot", "random") for s in range(4)]
        final = play_game("baloot", seed, 4, bots=bots, rng_seed=g)
        won += E.result(final)["winning_team"] == side
    assert won >= 5


def test_hand_sorted_helper_is_canonical():
    assert hand_sorted(["CA", "S7", "HT"]) == ["S7", "HT", "CA"]
