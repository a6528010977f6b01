"""Golden scenarios for Lembar: one or more per rule of ../shared/spec/lembar.md, [decided] points included.

Positions are built directly (``build``) or come from seeds searched for offline; every expected
value is derived independently (from ``fairness.shuffle`` or by hand), never read back from the engine.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from gameworkers.engines import IllegalMove, fairness, get_engine
from gameworkers.engines.lembar import DECK, MOTIF_OF

E = get_engine("lembar")
SEED = bytes(range(32))
ROOT = Path(__file__).resolve().parents[3]


def build(hands: list[list[str]], pile: list[str], *, stock: list[str] | None = None, turn: int = 0,
          motif: str | None = None, direction: int = 1) -> dict:
    """A position: given hands and pile (oldest first); the stock is ``stock`` or every other card
    of the deck in canonical order (so all 108 cards stay accounted for)."""
    s = E.new(SEED, len(hands))
    s["hands"] = [list(h) for h in hands]
    s["pile"] = list(pile)
    s["motif"] = motif or MOTIF_OF[pile[-1]]
    if stock is None:
        used = Counter(pile) + Counter(c for h in hands for c in h)
        rest = Counter(DECK) - used
        stock = [c for c in dict.fromkeys(DECK) for _ in range(rest[c])]
    s["stock"] = list(stock)
    s["turn"] = turn
    s["direction"] = direction
    return s


def play(s: dict, seat: int | None, move: dict, now: int = 1000) -> tuple[dict, list[dict]]:
    return E.apply(s, seat, move, now_ms=now)


def refused(s: dict, seat: int | None, move: object, code: str, now: int = 1000) -> None:
    before = copy.deepcopy(s)
    with pytest.raises(IllegalMove) as info:
        E.apply(s, seat, move, now_ms=now)  # type: ignore[arg-type]
    assert info.value.code == code, info.value.message
    assert s == before


def play_cards(s: dict, seat: int) -> set[str]:
    return {m["card"] for m in E.legal_moves(s, seat) if m["type"] == "play"}


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


# ----- "Lembar!" ----------------------------------------------------------------------------

def test_call_with_the_play():
    s = build([["K5", "P9"], ["M1", "M2"], ["T1"]], ["K3"])
    s1, ev = play(s, 0, {"type": "play", "card": "K5", "call": True})
    assert s1["calls"][0] == "called" and s1["windows"] == [] and ev[0]["call"] is True
    assert E.to_act(s1) == [1]
    s3 = build([["K5", "P9", "T2"], ["M1"], ["T1"]], ["K3"])
    refused(s3, 0, {"type": "play", "card": "K5", "call": True}, "call_not_allowed")
    refused(s3, 0, {"type": "play", "card": "K5", "call": "yes"}, "malformed")


def test_missing_call_caught_within_three_seconds():
    s = build([["K5", "P9"], ["M1", "M2"], ["T1", "T2"]], ["K3"], stock=["P1", "P2", "P3"])
    s1, ev = play(s, 0, {"type": "play", "card": "K5"}, now=1000)
    assert s1["calls"][0] == "missing" and s1["windows"] == [{"seat": 0, "since": 1000}]
    assert {"type": "window", "seat": 0, "since_ms": 1000, "until_ms": 4000} in ev
    assert E.to_act(s1) == [0, 1, 2]
    assert {"type": "catch", "target": 0} in E.legal_moves(s1, 2)
    assert {"type": "call"} in E.legal_moves(s1, 0)
    assert E.deadline(s1) == {"seat": None, "since_ms": 1000, "limit_ms": 3001}  # closes after 3 s
    refused(s1, 2, {"type": "catch", "target": 0}, "catch_window_closed", now=4001)
    s2, ev = play(s1, 2, {"type": "catch", "target": 0}, now=4000)  # exactly 3 s: still in time
    assert s2["hands"][0] == ["P9", "P1", "P2"] and s2["windows"] == [] and s2["calls"][0] is None
    assert s2["turn"] == 1 and s2["turn_since"] == 1000  # turn order unchanged
    assert {"type": "penalty", "seat": 0, "count": 2, "reason": "caught"} in ev
    refused(s2, 1, {"type": "catch", "target": 0}, "no_missing_call", now=4000)
    refused(s2, 0, {"type": "call"}, "call_not_needed", now=4000)


def test_player_on_turn_may_catch_and_false_catches_are_refused():
    s = build([["K5", "P9"], ["M1", "M2"], ["T1", "T2"]], ["K3"], stock=["P1", "P2", "P3"])
    s1, _ = play(s, 0, {"type": "play", "card": "K5"}, now=1000)
    refused(s1, 0, {"type": "catch", "target": 0}, "bad_target")
    refused(s1, 1, {"type": "catch", "target": 2}, "no_missing_call")
    refused(s1, 1, {"type": "catch", "target": 9}, "bad_target")
    refused(s1, 1, {"type": "catch", "target": True}, "bad_target")
    s2, _ = play(s1, 1, {"type": "catch", "target": 0}, now=2000)
    assert len(s2["hands"][0]) == 3 and s2["turn"] == 1


def test_call_as_its_own_move_closes_the_window():
    s = build([["K5", "P9"], ["M1", "M2"]], ["K3"])
    s1, _ = play(s, 0, {"type": "play", "card": "K5"}, now=1000)
    s2, ev = play(s1, 0, {"type": "call"}, now=1500)
    assert ev == [{"type": "call", "seat": 0}] and s2["calls"][0] == "called" and s2["windows"] == []
    refused(s2, 1, {"type": "catch", "target": 0}, "no_missing_call", now=1600)
    refused(s2, 0, {"type": "call"}, "call_not_needed", now=1600)


def test_window_expiry_then_late_call_still_accepted():
    s = build([["K5", "P9"], ["M1", "M2"]], ["K3"])
    s1, _ = play(s, 0, {"type": "play", "card": "K5"}, now=1000)
    assert E.timeout_move(s1, None) == {"type": "close_window", "auto": True}
    s2, ev = play(s1, None, {"type": "close_window", "auto": True}, now=4001)
    assert s2["windows"] == [] and ev == [{"type": "window_closed", "seat": 0}]
    assert E.deadline(s2) == {"seat": 1, "since_ms": 1000, "limit_ms": None}
    refused(s2, 1, {"type": "catch", "target": 0}, "catch_window_closed", now=4001)
    assert 0 in E.to_act(s2)  # "at any time until caught": the call stays possible
    s3, _ = play(s2, 0, {"type": "call"}, now=9000)
    assert s3["calls"][0] == "called" and E.to_act(s3) == [1]
    refused(s2, None, {"type": "close_window", "auto": True}, "nothing_due", now=9000)


def test_window_closes_when_the_hand_grows_and_each_spell_needs_its_own_call():
    s = build([["K5", "P9"], ["KD", "M2", "M3"]], ["K3"], stock=["P1", "P2", "P5", "M4"])
    s1, _ = play(s, 0, {"type": "play", "card": "K5"}, now=1000)
    s2, _ = play(s1, 1, {"type": "play", "card": "KD"}, now=1500)
    assert s2["hands"][0] == ["P9", "P1", "P2"] and s2["windows"] == [] and s2["calls"][0] is None
    # Two players: seat 0 lost the turn, seat 1 is on turn again.
    assert s2["turn"] == 1
    c = build([["K5"], ["M2", "M3"]], ["K3"], stock=["K7", "P1"])
    c["calls"][0] = "called"
    c1, _ = play(c, 0, {"type": "draw"})
    assert c1["calls"][0] is None and c1["phase"] == "drawn"
    c2, _ = play(c1, 0, {"type": "play", "card": "K7"}, now=2000)
    assert c2["calls"][0] == "missing" and c2["windows"] == [{"seat": 0, "since": 2000}]


def test_several_windows_at_once():
    s = build([["K5", "P9"], ["K6", "M2"], ["T1", "T2"]], ["K3"], stock=["P1", "P2", "P3", "P4"])
    s, _ = play(s, 0, {"type": "play", "card": "K5"}, now=1000)
    s, _ = play(s, 1, {"type": "play", "card": "K6"}, now=1400)
    assert [w["seat"] for w in s["windows"]] == [0, 1]
    assert {"type": "catch", "target": 1} in E.legal_moves(s, 0)
    assert E.deadline(s) == {"seat": None, "since_ms": 1000, "limit_ms": 3001}
    s, _ = play(s, 0, {"type": "catch", "target": 1}, now=2000)
    assert s["hands"][1] == ["M2", "P1", "P2"] and [w["seat"] for w in s["windows"]] == [0]
    s, _ = play(s, None, {"type": "close_window", "auto": True}, now=4001)
    assert s["windows"] == []


def test_automatic_move_never_calls():
    s = build([["K5", "P9"], ["M1", "M2"]], ["K3"])
    mv = E.timeout_move(s, 0)
    assert mv == {"type": "play", "card": "K5", "auto": True}
    s1, _ = play(s, 0, mv, now=21000)
    assert s1["calls"][0] == "missing" and len(s1["windows"]) == 1
    refused(s, 0, {"type": "play", "card": "K5", "call": True, "auto": True}, "malformed")


# ----- timeouts and removal -------------------------------------------------------------------

def test_timeout_plays_the_first_playable_card_in_canonical_order():
    s = build([["T3", "K9", "K2", "W", "M5"], ["M1"]], ["K5"])
    assert E.timeout_move(s, 0) == {"type": "play", "card": "K2", "auto": True}


def test_timeout_wild_takes_the_motif_held_most_ties_in_pktm_order():
    s = build([["W", "T1", "M2", "T4", "M6"], ["M1"]], ["K3"])
    assert E.timeout_move(s, 0) == {"type": "play", "card": "W", "motif": "T", "auto": True}
    s = build([["F", "W"], ["M1"]], ["K3"])
    assert E.timeout_move(s, 0) == {"type": "play", "card": "W", "motif": "P", "auto": True}


def test_timeout_draws_then_plays_the_drawn_card_as_one_timeout():
    s = build([["T9", "P1"], ["M1", "M2"]], ["K3"], stock=["K8", "P2"])
    mv = E.timeout_move(s, 0)
    assert mv == {"type": "draw", "auto": True}
    s1, ev = play(s, 0, mv, now=20000)
    assert {"type": "timeout", "seat": 0, "count": 1} in ev
    assert s1["phase"] == "drawn" and E.deadline(s1) == {"seat": 0, "since_ms": 20000, "limit_ms": 0}
    mv2 = E.timeout_move(s1, 0)
    assert mv2 == {"type": "play", "card": "K8", "auto": True}
    s2, ev2 = play(s1, 0, mv2, now=20000)
    assert s2["timeouts"][0] == 1 and not any(e["type"] == "timeout" for e in ev2)
    assert s2["turn"] == 1 and s2["pile"][-1] == "K8"


def test_three_timeouts_in_a_row_remove_after_the_third_move():
    s = build([["K1", "K2", "K4", "T9", "P8"], ["M1", "M2", "M3"], ["T1", "T2", "T3"]], ["K3"],
              stock=["M9", "MS", "TS", "K7", "P5"])
    s["timeouts"][0] = 2
    mv = E.timeout_move(s, 0)
    assert mv == {"type": "play", "card": "K1", "auto": True}
    s1, ev = play(s, 0, mv, now=20000)
    assert s1["pile"] == ["K3", "K1"]  # the third automatic move was made first
    assert s1["active"] == [False, True, True] and s1["removed"] == [0] and s1["hands"][0] == []
    assert s1["stock"] == ["M9", "MS", "TS", "K7", "P5", "P8", "K2", "K4", "T9"]  # canonical order
    assert {"type": "removed", "seat": 0, "reason": "timeouts", "returned": 4} in ev
    assert s1["turn"] == 1 and E.to_act(s1) == [1]
    refused(s1, 0, {"type": "draw"}, "not_in_game", now=20000)
    refused(s1, 0, {"type": "leave"}, "not_in_game", now=20000)


def test_three_automatic_turns_in_a_row_counted_from_zero():
    s = build([["K1", "K2", "K4", "K6", "P8"], ["M1", "M2", "M3"], ["T1", "T2", "T3"]], ["K3"],
              stock=["M9", "MS", "TS", "T5", "P5", "P6", "P7", "M7"])
    now = 0
    for turn in range(3):
        now += 20000
        assert s["turn"] == 0
        s, _ = play(s, 0, E.timeout_move(s, 0), now=now)
        if turn < 2:
            assert s["timeouts"][0] == turn + 1 and s["active"][0]
            s, _ = play(s, 1, {"type": "draw"}, now=now + 100)
            s, _ = play(s, 2, {"type": "draw"}, now=now + 200)
    assert s["pile"] == ["K3", "K1", "K2", "K4"] and s["removed"] == [0]
    assert s["stock"][-2:] == ["P8", "K6"] and s["turn"] == 1


def test_draw_then_auto_play_is_one_timeout_and_removal_waits_for_the_play():
    s = build([["T9", "P1"], ["M1", "M2"], ["T1", "T2"]], ["K3"], stock=["K8", "P2"])
    s["timeouts"][0] = 2
    s1, _ = play(s, 0, E.timeout_move(s, 0), now=20000)
    assert s1["active"][0] and s1["timeouts"][0] == 3 and s1["phase"] == "drawn"
    s2, ev = play(s1, 0, E.timeout_move(s1, 0), now=20000)
    assert s2["pile"][-1] == "K8" and s2["removed"] == [0]
    assert s2["stock"][-2:] == ["P1", "T9"] and s2["turn"] == 1


def test_own_move_resets_the_timeout_count():
    s = build([["K5", "P9"], ["M1", "M2"], ["T1", "T2"]], ["K3"])
    s["timeouts"] = [0, 2, 2]
    s1, _ = play(s, 0, {"type": "play", "card": "K5"}, now=1000)
    s2, _ = play(s1, 2, {"type": "catch", "target": 0}, now=1500)
    assert s2["timeouts"] == [0, 2, 0]
    s3, _ = play(s2, 1, {"type": "draw"}, now=1600)
    assert s3["timeouts"][1] == 0


def test_third_timeout_that_wins_is_a_win():
    s = build([["K5"], ["M1", "M2"], ["T1"]], ["K3"])
    s["timeouts"][0] = 2
    s1, _ = play(s, 0, E.timeout_move(s, 0), now=20000)
    assert E.is_over(s1) and s1["removed"] == [] and E.result(s1)["ranks"] == [1, 3, 2]


def test_leave_removes_and_last_player_in_wins():
    s = build([["K5", "P9"], ["M1", "M2"], ["T1", "TS"], ["P1", "P2"]], ["K3"])
    s1, ev = play(s, 0, {"type": "leave"})
    assert s1["turn"] == 1 and s1["removed"] == [0] and s1["stock"] == s["stock"] + ["P9", "K5"]
    assert ev[0] == {"type": "leave", "seat": 0}
    s2, _ = play(s1, 2, {"type": "leave"})
    assert s2["turn"] == 1 and s2["removed"] == [0, 2]
    s3, _ = play(s2, 1, {"type": "leave"})
    assert E.is_over(s3) and s3["end"] == "last_standing"
    r = E.result(s3)
    # The last one in wins; removed players below, the last removed highest.
    assert r["ranks"] == [4, 2, 3, 1] and r["winners"] == [3]
    assert Counter(E.all_cards(s3)) == Counter(DECK)


def test_ranking_competition_style_with_removed_players_last():
    s = build([["K5"], ["P2", "T3"], ["M5"], ["T1", "P9"]], ["K3"])
    s, _ = play(s, 3, {"type": "leave"})
    s, _ = play(s, 0, {"type": "play", "card": "K5"})
    r = E.result(s)
    assert r["values"] == [0, 5, 5, None] and r["ranks"] == [1, 2, 2, 4] and r["removed"] == [3]


# ----- contract details: errors, views, deadlines, proof --------------------------------------------

@pytest.mark.parametrize("seat,move,code", [
    (0, None, "malformed"), (0, {"type": 3}, "malformed"), (0, {"type": "dance"}, "unknown_move"),
    (0, {"type": "play"}, "malformed"), (0, {"type": "play", "card": "ZZ"}, "unknown_card"),
    (0, {"type": "play", "card": "P7"}, "card_not_held"), (1, {"type": "draw"}, "not_your_turn"),
    (0, {"type": "draw", "extra": 1}, "malformed"), (0, {"type": "draw", "auto": False}, "malformed"),
    (True, {"type": "draw"}, "bad_seat"), (5, {"type": "draw"}, "bad_seat"), (-1, {"type": "draw"}, "bad_seat"),
    (None, {"type": "draw"}, "bad_seat"), (0, {"type": "close_window", "auto": True}, "bad_seat"),
    (0, {"type": "call"}, "call_not_needed"), (0, {"type": "leave", "auto": True}, "malformed"),
])
def test_illegal_moves_have_stable_codes_and_change_nothing(seat, move, code):
    s = build([["K5", "P9"], ["M1", "M2"]], ["K3"])
    refused(s, seat, move, code)


def test_now_ms_must_be_an_int():
    s = build([["K5", "P9"], ["M1", "M2"]], ["K3"])
    with pytest.raises(IllegalMove):
        E.apply(s, 0, {"type": "draw"}, now_ms=1.5)  # type: ignore[arg-type]


def test_views_hide_what_they_must():
    s = build([["K2", "T9"], ["M1", "M2"]], ["K3"], stock=["K8", "P1", "P2"])
    s1, _ = play(s, 0, {"type": "draw"})
    mine, other, spectator = E.view(s1, 0), E.view(s1, 1), E.view(s1, None)
    assert mine["drawn"] == "K8" and mine["hand"] == ["K2", "T9", "K8"]
    assert mine["legal"] == [{"type": "play", "card": "K8"}, {"type": "keep"}]
    assert other["drawn"] is None and other["hand"] == ["M1", "M2"] and "K8" not in json.dumps(other)
    assert "hand" not in spectator and spectator["hand_counts"] == [3, 2] and spectator["stock_count"] == 2
    for v in (mine, other, spectator):
        assert SEED.hex() not in json.dumps(v) and "stock" not in v and "result" not in v
    assert E.replay_view(s1)["stock"] == ["P1", "P2"]
    assert spectator["deadline"] == {"seat": 0, "since_ms": None, "limit_ms": None}
    assert E.result(s1) == {"ranks": [None, None], "winners": [], "end": None, "values": [None, None],
                            "removed": []}


def test_final_view_shows_hands_and_result():
    s = build([["KD"], ["M1"]], ["K3"])
    s1, _ = play(s, 0, {"type": "play", "card": "KD"})
    v = E.view(s1, None)
    assert v["over"] and v["hands"] == [[], ["M1"]] and v["result"]["winners"] == [0]
    assert E.proof(s1)["seed"] == SEED.hex()


def test_apply_never_mutates_its_argument():
    s = build([["KD", "P1"], ["M1"], ["K2"]], ["K3"], stock=[])
    before = copy.deepcopy(s)
    play(s, 0, {"type": "play", "card": "KD"})
    assert s == before


def test_replay_from_the_move_log_reproduces_the_game():
    from gameworkers.simulate import play_game

    final = play_game("lembar", SEED, 4, rng_seed=7)
    again = E.new(SEED, 4)
    for entry in final["moves"]:
        again, _ = E.apply(again, entry["seat"], entry["move"], now_ms=entry["now_ms"])
    assert again == final and E.is_over(final)


SEEDS_FOR_COW = (4, 5)  # searched: between them every kind of move and a reshuffle occur


def test_no_state_is_changed_by_later_moves():
    """Copy-on-write check: random play by any seat in ``to_act`` (calls, catches, windows, system
    steps, reshuffles, leaves); every earlier state must still equal its snapshot."""
    import random

    seen = Counter()
    for seed_byte in SEEDS_FOR_COW:
        rng = random.Random(seed_byte)
        s = E.new(bytes([seed_byte]) * 32, 3)
        kept: list[tuple[dict, dict]] = []
        now = 0
        for _ in range(300):
            if E.is_over(s):
                break
            now += 300
            if s["windows"] and rng.random() < 0.3:
                due = E.deadline(s)  # the close step when it is due, as the runtime runs it
                if due["seat"] is None:
                    now = max(now, due["since_ms"] + due["limit_ms"])
                seat, move = None, E.timeout_move(s, None)
            else:
                seat = rng.choice(E.to_act(s))
                legal = E.legal_moves(s, seat)
                move = rng.choice(legal) if rng.random() > 0.002 else {"type": "leave"}
            try:
                nxt, _ = E.apply(s, seat, move, now_ms=now)
            except IllegalMove as exc:
                # a catch too late, or the close step before any window has passed its 3 s
                assert exc.code in ("catch_window_closed", "nothing_due")
                continue
            seen[move["type"]] += 1
            kept.append((s, copy.deepcopy(s)))
            s = nxt
        assert all(state == snapshot for state, snapshot in kept)
        seen["reshuffle"] += sum(1 for sh in s["shuffles"] if sh["purpose"] == "kocok-ulang")
    for kind in ("play", "draw", "keep", "call", "catch", "close_window", "reshuffle"):
        assert seen[kind] > 0, (kind, seen)


def test_leave_on_turn_after_a_draw_returns_the_drawn_card_too():
    s = build([["K2", "T9"], ["M1", "M2"], ["P1"]], ["K3"], stock=["K8", "P2"])
    s1, _ = play(s, 0, {"type": "draw"})
    s2, _ = play(s1, 0, {"type": "leave"}, now=1500)
    assert s2["stock"] == ["P2", "K2", "K8", "T9"] and s2["turn"] == 1 and s2["phase"] == "play"
    assert s2["drawn"] is None and s2["turn_since"] == 1500


def test_removal_closes_the_leavers_window_and_two_player_leave_ends_the_game():
    s = build([["K5", "P9"], ["M1", "M2"], ["T1"]], ["K3"])
    s1, _ = play(s, 0, {"type": "play", "card": "K5"}, now=1000)
    s2, _ = play(s1, 0, {"type": "leave"}, now=1200)
    assert s2["windows"] == [] and s2["calls"][0] is None and E.to_act(s2) == [1]
    duo = build([["K5", "P9"], ["M1", "M2"]], ["K3"])
    over, ev = play(duo, 0, {"type": "leave"})
    assert E.is_over(over) and E.result(over)["ranks"] == [2, 1] and ev[-1]["type"] == "game_over"


# ----- audit: rule edges checked against an independent reading of the spec ------------------------

def test_draw_two_hits_the_previous_seat_after_a_reverse_and_skips_removed_seats():
    s = build([["P1", "P5"], ["K1", "P2"], ["KD", "P3"], ["K4", "P4"]], ["K3"], turn=2, direction=-1)
    s, _ = play(s, 1, {"type": "leave"})
    s1, ev = play(s, 2, {"type": "play", "card": "KD"})
    # Next in play order (direction -1, seat 1 removed) is seat 0: it draws 2 and loses the turn.
    assert len(s1["hands"][0]) == 4 and s1["turn"] == 3
    assert {"type": "penalty", "seat": 0, "count": 2, "reason": "draw_two"} in ev


def test_third_timeout_that_is_a_pass_removes_the_player():
    s = build([["T1", "T5"], ["M2", "P4"], ["T8", "W"]], ["K3"], stock=[])
    s["timeouts"][0] = 2
    assert E.timeout_move(s, 0) == {"type": "draw", "auto": True}
    s1, ev = play(s, 0, E.timeout_move(s, 0), now=20000)
    assert {"type": "pass", "seat": 0} in ev and s1["removed"] == [0] and s1["stock"] == ["T1", "T5"]
    assert s1["turn"] == 1 and s1["passes"] == 0 and not E.is_over(s1)


def test_stalled_game_ranks_removed_players_last():
    s = build([["P1", "T5"], ["M2", "P4"], ["T8"]], ["K3"], stock=[])
    s, _ = play(s, 2, {"type": "leave"})          # T8 goes to the stock
    s, _ = play(s, 0, {"type": "draw"})           # takes T8 (not playable on K3)
    s, _ = play(s, 1, {"type": "draw"})           # nothing left: pass 1
    s, _ = play(s, 0, {"type": "draw"})           # pass 2 = both players still in
    assert E.is_over(s) and s["end"] == "stalemate"
    r = E.result(s)
    assert r["values"] == [14, 6, None] and r["ranks"] == [2, 1, 3] and r["winners"] == [1]


def test_catch_penalty_reshuffles_in_the_round_of_the_catch():
    s = build([["K5", "P9"], ["M1", "M2"], ["T1", "T2"]], ["P1", "T3", "K3"], stock=["P7"])
    s1, _ = play(s, 0, {"type": "play", "card": "K5"}, now=1000)      # move 1
    s2, ev = play(s1, 2, {"type": "catch", "target": 0}, now=2000)   # move 2
    expected = fairness.shuffle(SEED, 2, "kocok-ulang", ["P1", "T3", "K3"])
    assert s2["hands"][0] == ["P9", "P7", expected[0]] and s2["pile"] == ["K5"]
    assert {"type": "reshuffle", "round": 2, "cards": 3} in ev and s2["turn"] == 1


# ----- issue 20: a window closing is not a move; the 3-second boundary; time never runs back ------

CLOSE = {"type": "close_window", "auto": True}


def test_closing_a_catch_window_is_not_a_move():
    """The spec numbers plays, draws, keeps, calls, catches, automatic moves and leaves, never a window
    closing: the reshuffle of the draw after a closed window is round 2 (the draw is move 2)."""
    s = build([["P3", "P5"], ["K1", "K2", "K4"]], ["T3", "M7", "P1"], stock=[])
    s1, _ = play(s, 0, {"type": "play", "card": "P3"}, now=1000)       # move 1, no call: a window
    assert s1["windows"] == [{"seat": 0, "since": 1000}]
    s2, ev = play(s1, None, CLOSE, now=4001)                           # the window closes: no move
    assert ev == [{"type": "window_closed", "seat": 0}] and s2["windows"] == []
    assert s2["move_count"] == 1 and s2["moves"] == s1["moves"]
    s3, ev = play(s2, 1, {"type": "draw"}, now=5000)                   # move 2
    order = fairness.shuffle(SEED, 2, "kocok-ulang", ["T3", "M7", "P1"])
    assert order[0] == "M7" and s3["hands"][1] == ["K1", "K2", "K4", "M7"]
    assert {"type": "reshuffle", "round": 2, "cards": 3} in ev
    assert [m["seq"] for m in s3["moves"]] == [1, 2] and s3["move_count"] == 2
    assert [sh["round"] for sh in s3["shuffles"]] == [0, 2]
    # The proof's log has no close step; replaying it gives the same game whether or not it ran.
    without_close, _ = play(s1, 1, {"type": "draw"}, now=5000)
    assert without_close == s3


def test_closing_a_catch_window_is_not_a_move_natural_seed():
    seed = bytes.fromhex("915689b1094a918bf70e850c8a8856a980853458b02477832a9acbb5e98a24f4")
    s = E.new(seed, 2)
    assert s["turn"] == 0 and s["pile"] == ["K5"]
    # Searched: K2 K3 K9 M9, then seat 0 plays MR (skip), MD and KD (seat 1 draws 2 each) and K4,
    # which leaves one card (M1) without a call: action 8 opens a window.
    for k, (seat, card) in enumerate([(0, "K2"), (1, "K3"), (0, "K9"), (1, "M9"),
                                      (0, "MR"), (0, "MD"), (0, "KD"), (0, "K4")]):
        s, _ = play(s, seat, {"type": "play", "card": card}, now=1000 * (k + 1))
    assert s["hands"][0] == ["M1"] and s["windows"] == [{"seat": 0, "since": 8000}] and s["move_count"] == 8
    s, _ = play(s, None, CLOSE, now=11001)
    s, _ = play(s, 1, {"type": "draw"}, now=12000)
    assert s["move_count"] == 9 and [m["seq"] for m in s["moves"]] == list(range(1, 10))
    assert all(m["seat"] is not None for m in s["moves"])


def test_a_catch_at_exactly_three_seconds_is_in_time():
    """`now_ms` <= play time + 3000 is in time; the window closes only after that millisecond."""
    s = build([["K5", "P9"], ["M1", "M2"], ["T1", "T2"]], ["K3"], stock=["P1", "P2", "P3"])
    s1, _ = play(s, 0, {"type": "play", "card": "K5"}, now=1000)
    due = E.deadline(s1)
    assert due["seat"] is None and due["since_ms"] + due["limit_ms"] == 4001
    refused(s1, None, CLOSE, "nothing_due", now=4000)  # at +3000 the window is still open
    s2, _ = play(s1, 2, {"type": "catch", "target": 0}, now=4000)
    assert s2["hands"][0] == ["P9", "P1", "P2"]
    s3, _ = play(s1, None, CLOSE, now=4001)
    refused(s3, 2, {"type": "catch", "target": 0}, "catch_window_closed", now=4001)


def test_time_never_runs_backwards():
    s = build([["K5", "P9", "T2"], ["M1", "M2"], ["T1", "K2"]], ["K3"], stock=["P1", "P2", "P3"])
    s1, _ = play(s, 0, {"type": "play", "card": "K5"}, now=5000)
    for seat, move in ((1, {"type": "draw"}), (1, {"type": "play", "card": "M1"}), (2, {"type": "leave"}),
                       (1, {"type": "leave"})):
        refused(s1, seat, move, "time_backwards", now=4999)
    s2, _ = play(s1, 1, {"type": "draw"}, now=5000)  # the same millisecond is not earlier
    s3, _ = play(s2, 1, {"type": "keep"} if s2["phase"] == "drawn" else {"type": "leave"}, now=6000)
    assert s3["last_move_ms"] == 6000
    w = build([["K5", "P9"], ["M1", "M2"], ["T1", "T2"]], ["K3"], stock=["P1", "P2", "P3"])
    w1, _ = play(w, 0, {"type": "play", "card": "K5"}, now=1000)
    w2, _ = play(w1, 1, {"type": "draw"}, now=3000)
    refused(w2, 2, {"type": "catch", "target": 0}, "time_backwards", now=2000)
    refused(w2, 0, {"type": "call"}, "time_backwards", now=2999)
    w3, _ = play(w2, None, CLOSE, now=4001)
    refused(w3, 0, {"type": "call"}, "time_backwards", now=4000)  # nor behind the close step


OLD_PROOF = Path(__file__).with_name("lembar-proof-numbered-close.json")


def test_proofs_recorded_when_closing_a_window_was_a_move_still_verify():
    """The fixture is a finished game's proof made by the engine of 1b4e0a1 (random play, the close
    step run at its deadline as that runtime did): its log numbers the close step (move 114), and
    the reshuffle of move 163 was shuffled in round 163. A log with a numbered close step is replayed
    with the numbering it was recorded with (``replay_start``)."""
    doc = json.loads(OLD_PROOF.read_text())
    assert [m["seq"] for m in doc["moves"] if m["seat"] is None] == [114]
    assert [(sh["round"], sh["purpose"]) for sh in doc["shuffles"]] == [(0, "kocok"), (163, "kocok-ulang")]
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "verify_proof.py"), str(OLD_PROOF)],
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "OK", out.stdout
    seed = bytes.fromhex(doc["seed"])
    state = E.replay_start(seed, 2, doc["options"], doc["moves"])
    for entry in doc["moves"]:
        state, _ = E.apply(state, entry["seat"], entry["move"], now_ms=entry["now_ms"])
    assert state["shuffles"] == doc["shuffles"] and E.result(state) == doc["result"]
    assert state["moves"] == doc["moves"]
    # Under today's numbering the same log does not replay: the rule is what keeps it verifiable.
    today = E.new(seed, 2, doc["options"])
    with pytest.raises(IllegalMove):
        for entry in doc["moves"]:
            today, _ = E.apply(today, entry["seat"], entry["move"], now_ms=entry["now_ms"])
    # A log without a numbered close step starts under today's rules.
    assert "numbered_close" not in E.replay_start(seed, 2, {}, [m for m in doc["moves"] if m["seat"] is not None])
