"""Golden scenarios for Lembar's "Lembar!" call, catches, timeouts and removal
(../shared/spec/lembar.md; the other rules are in test_lembar.py)."""

from __future__ import annotations

from collections import Counter

from gameworkers.engines.lembar import DECK
from tests.gameworkers.engines.lembar_helpers import E, build, play, refused

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
