"""Golden scenarios for Lembar: one or more per rule of ../shared/spec/lembar.md, [decided] points included:
the deal, matching and wilds, drawing and keeping, action cards, reshuffles and passes. "Lembar!",
timeouts and removal are in test_lembar_calls.py; the contract (errors, views, replays, proofs) in
test_lembar_contract.py.

Positions are built directly (``build``) or come from seeds searched for offline; every expected
value is derived independently (from ``fairness.shuffle`` or by hand), never read back from the engine.
"""

from __future__ import annotations

from collections import Counter

import pytest

from gameworkers.engines import fairness
from gameworkers.engines.lembar import DECK
from tests.gameworkers.engines.lembar_helpers import SEED, E, build, play, play_cards, refused

# ----- fairness, deck and deal ---------------------------------------------------------------

def test_published_vector_and_deal_order():
    s = E.new(SEED, 4)
    order = fairness.shuffle(SEED, 0, "kocok", list(DECK))
    assert order[:12] == "K2 P6 P6 K8 M3 M3 T5 P4 T1 T4 KS T4".split()
    assert s["shuffles"] == [{"round": 0, "purpose": "kocok", "initial": list(DECK), "result": order}]
    first = fairness.draw(SEED, "0:giliran-awal", 4)
    assert s["first"] == first == s["turn"]
    # One card at a time from the top, starting with the first player, increasing seat order.
    for k in range(4):
        seat = (first + k) % 4
        assert s["hands"][seat] == [order[r * 4 + k] for r in range(7)]
    assert s["pile"] == [order[28]] and order[28] == "T5"
    assert s["stock"] == order[29:] and s["motif"] == "T" and s["direction"] == 1
    assert s["turn_since"] is None and E.deadline(s) == {"seat": first, "since_ms": None, "limit_ms": None}


@pytest.mark.parametrize("seats", range(2, 7))
def test_deal_order_for_every_table_size(seats):
    s = E.new(SEED, seats)
    order = fairness.shuffle(SEED, 0, "kocok", list(DECK))
    first = fairness.draw(SEED, "0:giliran-awal", seats)
    for k in range(seats):  # round r gives the k-th seat from the first the card at r * seats + k
        assert s["hands"][(first + k) % seats] == [order[r * seats + k] for r in range(7)]
    assert Counter(E.all_cards(s)) == Counter(DECK)


def test_starter_must_be_a_number_card():
    seed = bytes([4]) * 32  # searched: after a 2-seat deal the stock starts PD, KD, M3
    order = fairness.shuffle(seed, 0, "kocok", list(DECK))
    assert order[14:17] == ["PD", "KD", "M3"]
    s = E.new(seed, 2)
    assert s["pile"] == ["M3"] and s["motif"] == "M"
    assert s["stock"] == order[17:] + ["PD", "KD"]
    assert Counter(E.all_cards(s)) == Counter(DECK)


def test_seat_counts_and_options():
    for n in (2, 6):
        assert len(E.new(SEED, n)["hands"]) == n
    for bad in (1, 7):
        with pytest.raises(ValueError):
            E.new(SEED, bad)
    assert E.new(SEED, 2, {"turn_seconds": 30})["turn_ms"] == 30000
    for bad_opt in ({"turn_seconds": 2}, {"turn_seconds": True}, {"turn_seconds": "20"}):
        with pytest.raises(ValueError):
            E.new(SEED, 2, bad_opt)


# ----- matching, wilds -----------------------------------------------------------------------

def test_match_by_motif_or_symbol():
    s = build([["K7", "P3", "T9", "W", "F"], ["M1"]], ["K3"])
    assert play_cards(s, 0) == {"K7", "P3", "W"}  # F refused: K7 is of the current motif
    refused(s, 0, {"type": "play", "card": "T9"}, "illegal_card")
    refused(s, 0, {"type": "play", "card": "F", "motif": "P"}, "illegal_card")
    s2, _ = play(s, 0, {"type": "play", "card": "P3"})
    assert s2["pile"][-1] == "P3" and s2["motif"] == "P" and s2["turn"] == 1


def test_symbols_do_not_match_a_wild_on_top():
    s = build([["T3", "K1", "W"], ["M1"]], ["P3", "W"], motif="K")
    assert play_cards(s, 0) == {"K1", "W"}
    refused(s, 0, {"type": "play", "card": "T3"}, "illegal_card")


def test_wild_draw_four_allowed_with_matching_symbol_or_plain_wild():
    s = build([["P3", "W", "F", "T1"], ["M1"]], ["K3"])
    assert play_cards(s, 0) == {"P3", "W", "F"}
    moves = [m for m in E.legal_moves(s, 0) if m["type"] == "play" and m["card"] == "F"]
    assert sorted(m["motif"] for m in moves) == ["K", "M", "P", "T"]


def test_wild_needs_a_motif_and_only_wilds_name_one():
    s = build([["W", "K1", "P2"], ["M1"]], ["K3"])
    refused(s, 0, {"type": "play", "card": "W"}, "motif_required")
    refused(s, 0, {"type": "play", "card": "W", "motif": "X"}, "bad_motif")
    refused(s, 0, {"type": "play", "card": "K1", "motif": "P"}, "motif_not_allowed")
    s2, ev = play(s, 0, {"type": "play", "card": "W", "motif": "M"})
    assert s2["motif"] == "M" and ev[0] == {"type": "play", "seat": 0, "card": "W", "motif": "M", "left": 2}


# ----- draw, play or keep, pass ---------------------------------------------------------------

def test_draw_playable_then_play_only_that_card_or_keep():
    s = build([["K2", "T9"], ["M1", "M2"]], ["K3"], stock=["K8", "P1", "P2"])
    s1, ev = play(s, 0, {"type": "draw"})
    assert ev == [{"type": "draw", "seat": 0, "count": 1}]  # public: no card shown
    assert s1["phase"] == "drawn" and s1["drawn"] == "K8" and s1["turn"] == 0
    assert E.legal_moves(s1, 0) == [{"type": "play", "card": "K8"}, {"type": "keep"}]
    refused(s1, 0, {"type": "play", "card": "K2"}, "must_play_drawn")
    refused(s1, 0, {"type": "draw"}, "already_drawn")
    kept, _ = play(s1, 0, {"type": "keep"})
    assert kept["hands"][0] == ["K2", "T9", "K8"] and kept["turn"] == 1 and kept["phase"] == "play"
    played, _ = play(s1, 0, {"type": "play", "card": "K8"})
    assert played["pile"] == ["K3", "K8"] and played["hands"][0] == ["K2", "T9"] and played["turn"] == 1
    refused(s, 0, {"type": "keep"}, "nothing_drawn")


def test_draw_unplayable_ends_the_turn():
    s = build([["K2"], ["M1"]], ["K3"], stock=["T1", "P1"])
    s1, _ = play(s, 0, {"type": "draw"})
    assert s1["hands"][0] == ["K2", "T1"] and s1["turn"] == 1 and s1["phase"] == "play"


def test_drawn_card_judged_on_the_hand_after_the_draw():
    # F drawn while holding a card of the current motif: not playable, the turn ends.
    s = build([["K2"], ["M1"]], ["K3"], stock=["F", "P1"])
    s1, _ = play(s, 0, {"type": "draw"})
    assert s1["turn"] == 1 and s1["hands"][0] == ["K2", "F"]
    # Without one it is playable.
    s = build([["P9"], ["M1"]], ["K3"], stock=["F", "P1"])
    s1, _ = play(s, 0, {"type": "draw"})
    assert s1["phase"] == "drawn" and s1["drawn"] == "F"


# ----- action cards ---------------------------------------------------------------------------

def test_skip():
    s = build([["KS", "P1"], ["K1"], ["K2"]], ["K3"])
    s1, ev = play(s, 0, {"type": "play", "card": "KS"})
    assert s1["turn"] == 2 and {"type": "skip", "seat": 1} in ev


def test_reverse_with_three_players():
    s = build([["KR", "P1"], ["K1", "P2"], ["K2", "P3"]], ["K3"])
    s1, _ = play(s, 0, {"type": "play", "card": "KR"})
    assert s1["direction"] == -1 and s1["turn"] == 2
    s2, _ = play(s1, 2, {"type": "play", "card": "K2"})
    assert s2["turn"] == 1


def test_reverse_with_two_players_is_a_skip():
    s = build([["KR", "P1"], ["K1"]], ["K3"])
    s1, ev = play(s, 0, {"type": "play", "card": "KR"})
    assert s1["direction"] == 1 and s1["turn"] == 0 and {"type": "skip", "seat": 1} in ev


def test_reverse_acts_as_skip_once_only_two_remain():
    s = build([["KR", "P1"], ["K1"], ["K2"]], ["K3"])
    s, _ = play(s, 2, {"type": "leave"})
    s1, _ = play(s, 0, {"type": "play", "card": "KR"})
    assert s1["direction"] == 1 and s1["turn"] == 0


def test_draw_two_no_stacking():
    s = build([["KD", "P1"], ["PD", "M1"], ["K2"]], ["K3"], stock=["T1", "T2", "T3"])
    s1, ev = play(s, 0, {"type": "play", "card": "KD"})
    assert s1["hands"][1] == ["PD", "M1", "T1", "T2"] and s1["turn"] == 2
    assert {"type": "penalty", "seat": 1, "count": 2, "reason": "draw_two"} in ev
    refused(s1, 1, {"type": "play", "card": "PD"}, "not_your_turn")  # the victim cannot answer


def test_wild_draw_four():
    s = build([["F", "P1"], ["M1"], ["K2"]], ["K3"], stock=["T1", "T2", "T3", "T4", "T5"])
    s1, _ = play(s, 0, {"type": "play", "card": "F", "motif": "T"})
    assert s1["hands"][1] == ["M1", "T1", "T2", "T3", "T4"] and s1["turn"] == 2 and s1["motif"] == "T"


def test_winning_card_has_no_effect():
    s = build([["KD"], ["M1"], ["K2", "K4"]], ["K3"], stock=["T1", "T2"])
    s1, _ = play(s, 0, {"type": "play", "card": "KD"})
    assert E.is_over(s1) and s1["hands"][1] == ["M1"] and s1["stock"] == ["T1", "T2"]
    r = E.result(s1)
    assert r["ranks"] == [1, 2, 3] and r["winners"] == [0] and r["values"] == [0, 1, 6] and r["end"] == "win"
    assert E.to_act(s1) == [] and E.deadline(s1) is None
    refused(s1, 1, {"type": "draw"}, "game_over")


# ----- reshuffle, taking what there is, passes and the stalled game --------------------------------

def test_reshuffle_uses_the_move_number_and_the_pile_oldest_first():
    s = build([["K2", "T9"], ["KD", "M1"]], ["P1", "K1", "T1", "K3"], stock=["K5"])
    s1, _ = play(s, 0, {"type": "play", "card": "K2"})                 # move 1
    s2, ev = play(s1, 1, {"type": "play", "card": "KD"}, now=1400)     # move 2: seat 0 draws 2
    # Stock K5 first, then the pile except KD, oldest first, reshuffled in round 2.
    expected = fairness.shuffle(SEED, 2, "kocok-ulang", ["P1", "K1", "T1", "K3", "K2"])
    assert s2["shuffles"][-1] == {"round": 2, "purpose": "kocok-ulang",
                                  "initial": ["P1", "K1", "T1", "K3", "K2"], "result": expected}
    assert s2["hands"][0] == ["T9", "K5", expected[0]]
    assert s2["stock"] == expected[1:] and s2["pile"] == ["KD"]
    assert {"type": "reshuffle", "round": 2, "cards": 5} in ev
    assert len(s["shuffles"]) == 1  # the old state is untouched


def test_draw_takes_what_there_is():
    s = build([["KD", "P1"], ["M1"]], ["K3"], stock=[])
    s1, ev = play(s, 0, {"type": "play", "card": "KD"})
    assert s1["hands"][1] == ["M1", "K3"] and s1["pile"] == ["KD"] and s1["stock"] == []
    assert {"type": "penalty", "seat": 1, "count": 1, "reason": "draw_two"} in ev


def test_a_penalty_that_finds_nothing_to_draw_leaves_the_passes_counting():
    """Everything is in hands (no stock, the pile only its top): a caught player takes nothing, so
    the count of turns that found nothing to draw goes on; the window closes all the same."""
    s = build([["P9"], ["M2", "M3"], ["T1", "T2"]], ["K3"], stock=[], turn=2)
    s["calls"][0] = "missing"
    s["windows"] = [{"seat": 0, "since": 1000}]
    s["passes"] = 1
    s1, ev = play(s, 1, {"type": "catch", "target": 0}, now=2000)
    assert ev == [{"type": "catch", "seat": 1, "target": 0},
                  {"type": "penalty", "seat": 0, "count": 0, "reason": "caught"}]
    assert s1["passes"] == 1 and s1["hands"][0] == ["P9"] and s1["stock"] == [] and s1["pile"] == ["K3"]
    assert s1["windows"] == [] and s1["calls"][0] is None and s1["turn"] == 2


def test_a_full_cycle_of_passes_ends_the_game_and_equal_values_share_first():
    s = build([["P1", "T5"], ["M2", "P4"], ["T8", "W"]], ["K3"], stock=[])
    s, ev = play(s, 0, {"type": "draw"})
    assert {"type": "pass", "seat": 0} in ev and s["turn"] == 1 and s["passes"] == 1
    s, _ = play(s, 1, {"type": "draw"})
    assert not E.is_over(s)
    s, _ = play(s, 2, {"type": "draw"})
    assert E.is_over(s) and s["end"] == "stalemate"
    r = E.result(s)
    assert r["values"] == [6, 6, 58] and r["ranks"] == [1, 1, 3] and r["winners"] == [0, 1]


def test_a_play_restarts_the_cycle():
    s = build([["P1", "T5"], ["M2", "K4"], ["T8", "W"]], ["K3"], stock=[])
    s, _ = play(s, 0, {"type": "draw"})
    s, _ = play(s, 1, {"type": "play", "card": "K4"})
    assert s["passes"] == 0
    s, _ = play(s, 2, {"type": "draw"})  # the pile under K4 is reshuffled: K3, playable
    assert s["drawn"] == "K3" and s["shuffles"][-1]["initial"] == ["K3"]
    s, _ = play(s, 2, {"type": "keep"})
    s, _ = play(s, 0, {"type": "draw"})
    s, _ = play(s, 1, {"type": "draw"})
    assert not E.is_over(s) and s["passes"] == 2
    s, _ = play(s, 2, {"type": "draw"})
    assert E.is_over(s) and E.result(s)["values"] == [6, 2, 61] and E.result(s)["ranks"] == [2, 1, 3]
