"""Baloot's contract: timers, leaving, views, bad input, the Sawa search against plain minimax, audited
flows, and issue 20 (recorded games replayed move by move; time never runs backwards)."""

from __future__ import annotations

import copy
import json

import pytest

from gameworkers.engines import IllegalMove, fairness
from gameworkers.engines.baloot import (
    legal_cards,
    sawa_possible,
)
from tests.gameworkers.engines.baloot_helpers import (
    HOKUM_85,
    HOKUM_86,
    SUN_66,
    SWEEP_SUN,
    E,
    act,
    bids,
    fresh,
    p,
    play_cards,
    play_state,
    run_fixture,
    scored,
    sweep_order,
)


# ----- timers, leave, views, bad input ---------------------------------------------------------
def test_timeouts_and_deadlines():
    st = fresh()
    assert E.deadline(st) == {"seat": p(st, 1), "since_ms": None, "limit_ms": 8000}
    assert E.timeout_move(st, p(st, 1)) == {"type": "pass", "auto": True}
    st = bids(st, *["pass"] * 4, "pass", "hokum", "pass", "pass", "pass")
    auto = E.timeout_move(st, p(st, 2))
    assert auto == {"type": "confirm", "trump": next(s for s in "SHDC" if s != st["exposed"][0]), "auto": True}
    st, _ = act(st, auto, now=7777)
    assert E.deadline(st)["limit_ms"] is None and E.deadline(st)["since_ms"] == 7777
    st = play_state(SUN_66[0], kind="sun", player=2)
    assert E.timeout_move(st, 1) == {"type": "play", "card": "S7", "auto": True}
    st, _ = play_cards(st, ["DA"])
    assert E.timeout_move(st, 2) == {"type": "play", "card": "DQ", "auto": True}  # first legal in hand order
    assert E.deadline(st)["limit_ms"] is None


def test_leave_plays_the_seat_automatically_and_a_team_that_left_forfeits():
    st = fresh()
    leaver = p(st, 2)
    st, ev = act(st, {"type": "leave"}, seat=leaver, now=500)
    assert ev == [{"type": "left", "seat": leaver}] and not E.is_over(st)
    assert {"type": "leave"} not in E.legal_moves(st, leaver)
    st = bids(st, "pass")
    assert E.deadline(st) == {"seat": leaver, "since_ms": 1000, "limit_ms": 0}
    with pytest.raises(IllegalMove) as e:
        act(st, {"type": "leave"}, seat=leaver)
    assert e.value.code == "already_left"
    st, _ = act(st, {"type": "leave"}, seat=(leaver + 2) % 4)
    assert E.is_over(st) and E.result(st)["winning_team"] == 1 - leaver % 2
    assert E.result(st)["forfeit"] == leaver % 2


def test_views_hide_other_hands_and_show_own():
    st = bids(fresh(), "sun")
    for seat in range(4):
        v = E.view(st, seat)
        assert v["hand"] == st["hands"][seat] and v["counts"] == [8, 8, 8, 8]
        text = json.dumps(v)
        others = {c for s in range(4) if s != seat for c in st["hands"][s]} - {st["exposed"]}
        assert not any(f'"{c}"' in text for c in others)
        assert st["seed"] not in text
    assert E.view(st, None)["hand"] is None


def test_bad_input_is_rejected_without_change():
    st = fresh()
    before = copy.deepcopy(st)
    seat = p(st, 1)
    for s, move in [(seat, {"type": "pass", "extra": 1}), (seat, {"type": "sun", "auto": "yes"}),
                    (True, {"type": "pass"}), ("1", {"type": "pass"}), (7, {"type": "pass"}),
                    (None, {"type": "pass"}), (seat, {"type": "play", "card": "SA"}),
                    ((seat + 1) % 4, {"type": "pass"}), (seat, {"type": "confirm"})]:
        with pytest.raises(IllegalMove):
            E.apply(st, s, move, now_ms=1)
    assert st == before
    st = play_state(SUN_66[0], kind="sun", player=2)
    for move, code in [({"type": "play", "card": 5}, "malformed"), ({"type": "play", "card": "SA"}, "card_not_held"),
                       ({"type": "play", "card": "S7", "baloot": 1}, "malformed"),
                       ({"type": "declare", "projects": []}, "play_required")]:
        with pytest.raises(IllegalMove) as e:
            E.apply(st, 1, move, now_ms=1)
        assert e.value.code == code


def test_apply_does_not_mutate_its_argument():
    st = play_state(SUN_66[0], kind="sun", player=2)
    snap = copy.deepcopy(st)
    for card in SUN_66[1].split()[:9]:
        new, _ = E.apply(st, E.to_act(st)[0], {"type": "play", "card": card}, now_ms=5)
        assert st == snap
        st, snap = new, copy.deepcopy(new)


def _brute_sawa(hands, leader, trump, lock, overtrump):
    """Plain minimax over every legal reply (no pruning): the reference for the fast search."""
    from gameworkers.engines.baloot import trick_winner

    def solve(hs):
        if not hs[leader]:
            return True
        for c in legal_cards(hs[leader], [], trump, lock=lock):
            def rec(trick, k, cur):
                if k == 4:
                    return trick[trick_winner(trick, trump)]["seat"] == leader and solve(cur)
                s = (leader + k) % 4
                for x in legal_cards(cur[s], trick, trump, overtrump=overtrump):
                    nxt = [list(h) for h in cur]
                    nxt[s].remove(x)
                    if not rec(trick + [{"seat": s, "card": x}], k + 1, nxt):
                        return False
                return True
            nxt = [list(h) for h in hs]
            nxt[leader].remove(c)
            if rec([{"seat": leader, "card": c}], 1, nxt):
                return True
        return False
    return solve(hands)


def test_sawa_search_agrees_with_plain_minimax():
    import random
    rng = random.Random(2024)
    positives = 0
    for _ in range(150):
        deck = list(fairness.BALOOT_DECK)
        rng.shuffle(deck)
        n = rng.choice([2, 3, 4])
        trump = rng.choice([None, "S", "H"])
        strong = [c for c in deck if c[1] in "ATK" or (c[0] == trump and c[1] in "J9")]
        k = rng.randint(max(0, n - 2), n)
        mine = strong[:k] + [c for c in deck if c not in strong][:n - k]
        rest = [c for c in deck if c not in mine]
        hands = [mine, rest[:n], rest[n:2 * n], rest[2 * n:3 * n]]
        lock = trump is not None and rng.random() < 0.3
        overtrump = rng.random() < 0.5
        expect = _brute_sawa(hands, 0, trump, lock, overtrump)
        assert sawa_possible(hands, 0, trump, lock) is expect, (hands, trump, lock)
        positives += expect
    assert positives >= 15  # the sample really exercises both answers


# ----- audit: spec numbers and flows not covered above ---------------------------------------------
def test_doubling_offered_or_not_by_round_and_contract():
    rich = copy.deepcopy(fresh())
    rich["scores"] = [120, 120]
    # round 1 Ashkal answered Pass, bidders over 100: a Sun double, defenders both asked, no lock
    st = bids(rich, "pass", "pass", "ashkal", "pass")
    assert st["contract"]["kind"] == "ashkal" and st["doubling"]["style"] == "sun"
    assert E.to_act(st) == [p(st, 2), p(st, 4)]
    assert E.legal_moves(st, p(st, 2)) == [{"type": "pass"}, {"type": "double"}]
    # round 2: Ashkal (answered Pass) and a Sun overcall of a Second Hokum rule out doubling
    st = bids(rich, *["pass"] * 4, "pass", "pass", "pass", "ashkal")
    assert E.to_act(st) == [p(st, 3)]  # the caller's left
    st = bids(st, "pass")
    assert st["contract"]["kind"] == "ashkal" and st["contract"]["taker"] == p(st, 2)
    assert st["phase"] == "projects"
    st = bids(rich, *["pass"] * 4, "hokum", "sun")
    assert st["contract"]["kind"] == "sun" and st["contract"]["round"] == 2 and st["phase"] == "projects"
    # a confirmed Second Hokum keeps the Hokum ladder
    st = bids(rich, *["pass"] * 4, "hokum", "pass", "pass", "pass")
    st, _ = act(st, E.timeout_move(st, p(st, 1)))
    assert st["phase"] == "doubling" and st["doubling"]["style"] == "hokum"


def test_sweep_scores_its_projects_times_multiplier_plus_baloot():
    hands = [["S7", "S8", "SQ", "H7", "H8", "D7", "D8", "C7"], ["H9", "HJ", "HA", "HT", "HK", "HQ", "DA", "CA"],
             ["S9", "SJ", "CT", "D9", "DJ", "C8", "C9", "CJ"], ["SA", "ST", "SK", "DQ", "DK", "DT", "CQ", "CK"]]
    proj = [[{"kind": "sira", "cards": ["S7", "S8", "S9"]}],
            [{"kind": "hundred", "cards": ["H9", "HT", "HJ", "HQ", "HK", "HA"]}], [], []]
    st = play_state(hands, kind="hokum", trump="H", player=1, level=2, projects=proj)
    order = ["HJ", "S9", "SA", "H7", "H9", "SJ", "ST", "H8", "HA", "D9", "SK", "S7",
             "HT", "DJ", "DQ", "S8", "HK", "C8", "DK", "SQ", "HQ", "C9", "DT", "D7",
             "DA", "CJ", "CQ", "D8", "CA", "CT", "CK", "C7"]
    st, ev = play_cards(st, order, baloot=("HQ",))
    s = scored(ev)
    # (25 + Hundred 10) x 2 + Baloot 2; the other team's Sira is lost
    assert s["sweep"] == 1 and s["project_points"] == [0, 10] and s["deal_score"] == [0, 72]


def test_defenders_best_project_fails_the_bid_and_takes_everything_doubled():
    proj = [[{"kind": "fifty", "cards": ["S7", "S8", "S9", "ST"]}], [], [], []]
    _, s = run_fixture(HOKUM_86, kind="hokum", trump="H", player=1, level=2, projects=proj)
    # bidders 9 x 2 = 18 against (7 + 5) x 2 = 24: failed; defenders 2 x (16 + 5)
    assert s["game_points"] == [7, 9] and s["failed"] and s["deal_score"] == [42, 0]


def test_four_hundred_in_sun_is_40():
    proj = [[], [], [{"kind": "four_hundred", "cards": ["SA", "HA", "DA", "CA"]}], []]
    _, s = run_fixture(SUN_66, kind="sun", player=2, projects=proj)
    assert s["project_points"] == [40, 0] and s["deal_score"] == [54, 12]


# ----- issue 20: recorded games replayed move by move ---------------------------------------------
def replay_notation(seed_hex: str, options: dict, moves: str) -> dict:
    """Play ``seat:move`` tokens from a fresh game: ``*`` = the automatic move (timeout_move),
    ``declare[kind:CARDS,...]``, ``double(lock=true)``, ``CARD+baloot`` (a play claiming Baloot)."""
    st = E.new(bytes.fromhex(seed_hex), 4, options)
    for now, token in enumerate(moves.split(), start=1):
        seat_text, body = token.split(":", 1)
        seat = int(seat_text)
        if body.endswith("*"):
            move = E.timeout_move(st, seat)
        elif body.startswith("declare["):
            projects = []
            for part in filter(None, body[len("declare["):-1].split(",")):
                kind, cards = part.split(":")
                projects.append({"kind": kind, "cards": [cards[i:i + 2] for i in range(0, len(cards), 2)]})
            move = {"type": "declare", "projects": projects}
        elif body.startswith("double(lock="):
            move = {"type": "double", "lock": body == "double(lock=true)"}
        elif body in ("pass", "sun", "hokum", "ashkal", "confirm", "double", "triple", "four", "gahwa", "sawa"):
            move = {"type": body}
        else:
            card, _, claim = body.partition("+")
            move = {"type": "play", "card": card, **({"baloot": True} if claim == "baloot" else {})}
        st, _ = E.apply(st, seat, move, now_ms=now * 100)
    return st


SAWA_WITH_KQ = ("edbef116ffeb8ce33f664ffba358c1cd210a6d7e212db30c35fa6a54bab4f80b",
                "3:pass 0:sun 3:declare[] 0:declare[] 1:declare[fifty:S8S9STSJ] 2:declare[] 3:CA 0:HA 1:C9* "
                "2:CJ 3:HQ 0:HJ 1:DJ 2:HK 2:S7* 3:SQ 0:DA 1:S8 3:sawa 0:hokum 1:pass* 2:pass* 3:pass 0:confirm "
                "3:double(lock=true) 0:pass 2:pass 0:declare[] 1:declare[] 2:declare[] 3:declare[]* 0:S7* 1:SA "
                "2:H8 3:S8* 2:D7 3:D8* 0:DK 1:D9 0:SK 1:SJ 2:HA 3:SQ 2:C8 3:CQ 0:HT 1:CT")


def test_sawa_carries_no_baloot_claim():
    # Spec: Baloot scores "only if its holder says 'Baloot' when playing the second of the two";
    # a Sawa plays no card, so it carries no claim, even from a hand holding trump K and Q.
    seed, moves = SAWA_WITH_KQ
    st = replay_notation(seed, {"mode": "classic", "overtrump": False}, moves)
    assert st["contract"]["trump"] == "H" and st["hands"][0] == ["H9", "HJ", "HQ", "HK"]
    assert st["leader"] == 0 and {"type": "sawa"} in E.legal_moves(st, 0)
    assert not any(m.get("baloot") for m in E.legal_moves(st, 0) if m["type"] == "sawa")
    before = copy.deepcopy(st)
    with pytest.raises(IllegalMove) as e:
        E.apply(st, 0, {"type": "sawa", "baloot": True}, now_ms=10**6)
    assert e.value.code == "baloot_not_allowed" and st == before
    st, ev = E.apply(st, 0, {"type": "sawa"}, now_ms=10**6)
    s = scored(ev)
    # team 0 sweeps a doubled Hokum: 25 x 2, and no Baloot
    assert s["sweep"] == 0 and s["baloot"] == [0, 0] and s["deal_score"] == [50, 0]
    assert not any(e["type"] == "baloot" for e in ev)


GAHWA_MADE_BY_BALOOT = ("7cc517aaa7f572c2ffa6041f12bc9dc7715543d7b7903e4b934e354b4a8e8647",
                        "3:pass 0:hokum 1:pass* 2:pass 3:pass 0:confirm 3:pass* 1:double(lock=true) 0:triple "
                        "3:four 0:gahwa 3:declare[] 0:declare[]* 1:declare[] 2:declare[] 3:S9 0:SK 1:ST 2:SJ 1:H9 "
                        "2:HJ 3:DA 0:HT 3:CQ 0:CJ 1:C7 2:C9 3:C8 0:CT 1:CK 2:DK 2:SA 3:D7* 0:DT 1:S7 0:HQ 1:H8* "
                        "2:DQ+baloot 3:DJ 3:CA 0:D9* 1:HA 2:SQ 0:H7 1:HK 2:S8 3:D8")


def test_gahwa_failure_counts_baloot():
    # Spec: the Gahwa deal's winner is "the bidders unless they fail", and failing is judged
    # "after the multiplier, Baloot included": 4 x 8 + 2 = 34 against 4 x 8 = 32 is made, although
    # the bidders took fewer card points (78 against 84).
    seed, moves = GAHWA_MADE_BY_BALOOT
    st = replay_notation(seed, {"mode": "fast", "overtrump": False}, moves)
    s = st["last_deal"]
    assert s["contract"]["team"] == 0 and s["gahwa"] and s["multiplier"] == 4
    assert s["card_points"] == [78, 84] and s["game_points"] == [8, 8] and s["baloot"] == [2, 0]
    assert not s["failed"] and s["winner"] == 0 and s["deal_score"] == [152, 0]
    assert E.is_over(st) and st["scores"] == [204, 52] and E.result(st)["winners"] == [0, 2]


def test_gahwa_summary_says_failed_exactly_when_the_bidders_are_not_paid():
    # One definition of "failed" for scorer and summary: 4 x 8 each, the bidders ahead on card
    # points (85 against 77), but the defenders' Baloot makes it 32 against 34, so the bidders fail
    # and the defenders take the 152 (the summary used to say failed and pay the bidders).
    st = play_state(HOKUM_85[0], kind="hokum", trump="H", player=1, gahwa=True, level=4)
    st["baloot"] = [0]  # as if seat 0 (a defender) had claimed it
    st, ev = play_cards(st, HOKUM_85[1].split())
    s = scored(ev)
    assert s["card_points"] == [77, 85] and s["game_points"] == [8, 8] and s["baloot"] == [2, 0]
    assert s["failed"] and s["winner"] == 0 and s["deal_score"] == [152, 0]
    assert E.result(st)["winners"] == [0, 2]


def test_a_sweep_against_the_bidders_is_their_failed_bid():
    # The same definition in a sweep: the bidders' 0 is not more than the sweepers' 44 (only the
    # failed-bid transfer does not apply: the sweep is scored as a sweep).
    st = play_state(SWEEP_SUN, kind="sun", player=0)
    st, ev = play_cards(st, sweep_order())
    s = scored(ev)
    assert s["sweep"] == 1 and s["failed"] and s["deal_score"] == [0, 44]


def _verify_proof(doc: dict) -> list[str]:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
    import verify_proof  # noqa: PLC0415 - the standalone verifier

    return verify_proof.verify(json.loads(json.dumps(doc)))


def test_games_recorded_before_issue_20_replay_to_their_recorded_results():
    # Rules revision 1 is kept only for the logs of games played before the fix: a state saved then
    # has no "rules" option, its proof names revision 1, and the verifier replays it to the result
    # it recorded (Gahwa judged without Baloot), while a new game's proof names revision 2.
    seed, moves = GAHWA_MADE_BY_BALOOT
    old = replay_notation(seed, {"mode": "fast", "overtrump": False, "rules": 1}, moves)
    assert old["last_deal"]["deal_score"] == [0, 152] and E.result(old)["winners"] == [1, 3]
    del old["options"]["rules"]  # as saved by the engine before revisions existed
    doc = E.proof(old)
    assert doc["options"]["rules"] == 1 and _verify_proof(doc) == []
    new = replay_notation(seed, {"mode": "fast", "overtrump": False}, moves)
    doc = E.proof(new)
    assert doc["options"]["rules"] == 2 and _verify_proof(doc) == []
    # a replay of a log whose options predate revisions (a proof saved then, an old stored state)
    # starts by revision 1; options naming a revision keep it
    assert E.replay_start(bytes.fromhex(seed), 4, {"mode": "fast"}, [])["options"]["rules"] == 1
    assert E.replay_start(bytes.fromhex(seed), 4, doc["options"], doc["moves"])["options"]["rules"] == 2
    # a revision-1 Sawa could carry a Baloot claim; its log still replays
    seed, moves = SAWA_WITH_KQ
    st = replay_notation(seed, {"mode": "classic", "overtrump": False, "rules": 1}, moves)
    assert {"type": "sawa", "baloot": True} in E.legal_moves(st, 0)
    del st["options"]["rules"]
    st, ev = E.apply(st, 0, {"type": "sawa", "baloot": True}, now_ms=10**6)
    assert scored(ev)["deal_score"] == [52, 0]


def test_time_never_runs_backwards_from_rules_revision_2():
    """Issue 20: as in every engine, a move stamped before the last logged one is refused
    (``time_backwards``) and changes nothing; the same millisecond is fine. Revision 1 tables (old
    proofs) replay with whatever clock they logged."""
    state = fresh()
    seat = E.to_act(state)[0]
    state, _ = act(state, {"type": "pass"}, seat, now=5000)
    nxt = E.to_act(state)[0]
    before = copy.deepcopy(state)
    with pytest.raises(IllegalMove) as info:
        E.apply(state, nxt, {"type": "pass"}, now_ms=4999)
    assert info.value.code == "time_backwards" and state == before
    with pytest.raises(IllegalMove) as info:  # leaving is a move too
        E.apply(state, nxt, {"type": "leave"}, now_ms=4999)
    assert info.value.code == "time_backwards"
    state, _ = act(state, {"type": "pass"}, nxt, now=5000)
    assert state["last_move_ms"] == 5000

    legacy = fresh({"rules": 1})
    seat = E.to_act(legacy)[0]
    legacy, _ = act(legacy, {"type": "pass"}, seat, now=5000)
    legacy, _ = act(legacy, {"type": "pass"}, E.to_act(legacy)[0], now=10)
    assert legacy["last_move_ms"] == 10
