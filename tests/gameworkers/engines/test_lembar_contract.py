"""Lembar's contract: stable error codes, views, deadlines, replays and proofs, the audited rule edges,
and issue 20 (a window closing is not a move; the 3-second boundary; time never runs back)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from gameworkers.engines import IllegalMove, fairness
from tests.gameworkers.engines.lembar_helpers import ROOT, SEED, E, build, play, refused

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
