"""The Cherki bots: they decide from a seat's view only, and the collector beats random play."""

from __future__ import annotations

import hashlib
import random

from gameworkers.bots import get_bot, styles
from gameworkers.bots.cherki import CollectorBot, hand_cost, live_counts
from gameworkers.engines import get_engine
from gameworkers.engines.cherki import sort_cards
from gameworkers.simulate import play_game

E = get_engine("cherki")
READY_A = ["C1", "S1", "M1", "C2", "S2", "M2", "C9", "S9"]    # waits for a 9


def view(hand: list[str], *, phase: str = "draw", pile: list[str] = (), called: list[bool] = (False,) * 3,
         known: list[list[str]] = ([], [], []), took: str | None = None) -> dict:
    """A seat-0 view with just the keys the engine's view carries for these decisions."""
    pile = list(pile)
    return {"game": "cherki", "seat": 0, "phase": phase, "hand": sort_cards(list(hand)), "pile": pile,
            "top": pile[-1] if pile else None, "called": list(called), "known": [list(k) for k in known],
            "took": took, "wait": None}


def legal_for(v: dict) -> list[dict]:
    """The engine's legal moves for the same position (built from the view's public parts)."""
    state = E.new(bytes(32), 3)
    state.update(hands=[v["hand"], [], []], pile=v["pile"], turn=0, phase=v["phase"], called=v["called"],
                 took=v["took"])
    return E.legal_moves(state, 0)


def test_styles_and_descriptions():
    found = styles("cherki")
    assert next(iter(found)) == "collector" and "random" in found
    bot = get_bot("cherki")
    assert isinstance(bot, CollectorBot) and bot.description.endswith(".")


def test_live_counts_subtract_what_this_seat_can_see_only():
    v = view(["C9", "S9", "WF"], pile=["M9", "WF"], known=[["OT"], ["C9"], []])
    live = live_counts(v)
    assert live["9"] == 12 - 4          # own C9 S9, M9 on the pile, C9 taken by seat 1
    assert live["WF"] == 2 and live["OT"] == 4 and live["1"] == 12   # own known OT is in hand already


def test_a_dead_wait_is_worthless_and_a_live_one_is_cheap():
    live = {k: 12 for k in "123456789"} | {"WF": 4, "RF": 4, "OT": 4}
    ready = ["WF", "WF", "WF", "RF", "RF", "RF", "OT", "OT"]
    assert hand_cost(ready, live) < 4
    live["OT"] = 0
    assert hand_cost(ready, live) > 4


def test_the_waiting_bot_takes_the_completing_discard():
    v = view(READY_A, pile=["M9"], called=[True, False, False])
    legal = legal_for(v)
    assert {"type": "take"} in legal
    assert get_bot("cherki").choose(v, legal, random.Random(0)) == {"type": "take"}


def test_the_bot_calls_a_ready_hand_with_a_live_wait_before_drawing():
    v = view(READY_A, pile=["WF"])
    v["wait"] = "9"
    legal = legal_for(v)
    assert get_bot("cherki").choose(v, legal, random.Random(0)) == {"type": "call"}


def test_the_bot_does_not_call_a_dead_wait():
    # the hand holds C9 S9; eight 9s lie on the pile and seat 1 took the other two
    v = view(READY_A, pile=["C9", "C9", "C9", "S9", "S9", "M9", "M9", "WF"], known=[[], ["S9", "M9"], []])
    v["wait"] = "9"
    assert live_counts(v)["9"] == 1
    v["pile"][-1] = "M9"
    v["top"] = "M9"
    assert live_counts(v)["9"] == 0
    legal = legal_for(v)
    assert {"type": "call"} in legal
    assert get_bot("cherki").choose(v, legal, random.Random(0)) != {"type": "call"}


def test_the_bot_discards_to_call_when_that_makes_a_live_wait():
    hand = READY_A + ["OT"]
    v = view(hand, phase="discard")
    move = get_bot("cherki").choose(v, legal_for(v), random.Random(0))
    assert move == {"type": "discard", "card": "OT", "call": True}


def test_the_bot_takes_a_discard_that_makes_a_triple_and_never_throws_it_back():
    hand = ["C1", "S1", "M1", "C4", "S4", "C7", "WF", "OT"]
    v = view(hand, pile=["M4"])
    legal = legal_for(v)
    bot = get_bot("cherki")
    assert bot.choose(v, legal, random.Random(0)) == {"type": "take"}
    v2 = view([*hand, "M4"], phase="discard", took="M4")
    move = bot.choose(v2, legal_for(v2), random.Random(0))
    assert move["type"] == "discard" and move["card"] != "M4" and move["card"] in {"C7", "WF", "OT"}


def test_the_bot_draws_rather_than_take_a_useless_discard():
    hand = ["C1", "S1", "M1", "C4", "S4", "M4", "C7", "S7"]
    v = view(hand, pile=["RF"])
    assert get_bot("cherki").choose(v, legal_for(v), random.Random(0)) == {"type": "draw"}


def test_the_bot_sees_only_the_view():
    # two states that differ only in the stock order give the same view, so the same decision
    a = E.new(bytes(range(32)), 3)
    b = dict(a)
    b["stock"] = list(reversed(a["stock"]))
    seat = a["turn"]
    assert E.view(a, seat) == E.view(b, seat)
    bot = get_bot("cherki")
    assert bot.choose(E.view(a, seat), E.legal_moves(a, seat), random.Random(1)) == \
        bot.choose(E.view(b, seat), E.legal_moves(b, seat), random.Random(1))


def test_the_collector_beats_two_random_players():
    # a small seeded sample (the 2,000-game figure is in docs/benchmarks/cherki.md)
    wins = 0
    games = 24
    for i in range(games):
        seed = hashlib.sha256(f"cherki-bot-test-{i}".encode()).digest()
        me = i % 3
        bots = [get_bot("cherki", "random") for _ in range(3)]
        bots[me] = get_bot("cherki")
        final = play_game("cherki", seed, 3, bots=bots, rng_seed=i)
        wins += E.result(final)["winner"] == me
    assert wins >= games * 0.6
