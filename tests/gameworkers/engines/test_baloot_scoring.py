"""Golden scenarios for Baloot's scoring (../shared/spec/baloot.md): conversion, sweeps and Sawa,
projects, the Baloot claim, Gahwa and the game's end."""

from __future__ import annotations

import copy

import pytest

from gameworkers.engines import IllegalMove
from gameworkers.engines.baloot import (
    candidate_projects,
    hokum_game_points,
    sawa_possible,
    sun_game_points,
)
from gameworkers.engines.baloot_projects import declaration_problem
from tests.gameworkers.engines.baloot_helpers import (
    HOKUM_81,
    HOKUM_85,
    HOKUM_86,
    SUN_64,
    SUN_65,
    SUN_66,
    SWEEP_SUN,
    E,
    act,
    fresh,
    play_cards,
    play_state,
    run_fixture,
    scored,
    sweep_order,
)


# ----- conversion and scoring -------------------------------------------------------------
def test_conversion_tables():
    assert [sun_game_points(x) for x in (66, 65, 64, 130, 0, 14, 16)] == [14, 13, 12, 26, 0, 2, 4]
    assert [hokum_game_points(x) for x in (86, 85, 162, 0, 15, 16)] == [9, 8, 16, 0, 1, 2]


def test_sun_66_gives_14_and_defenders_12():
    _, s = run_fixture(SUN_66, kind="sun", player=2)  # seat 2: team 0 bids
    assert s["card_points"] == [66, 64] and s["game_points"] == [14, 12]
    assert s["deal_score"] == [14, 12] and not s["failed"]


def test_sun_65_gives_13_and_a_tie_fails_the_bid():
    st, s = run_fixture(SUN_65, kind="sun", player=2)
    assert s["card_points"] == [65, 65] and s["game_points"] == [13, 13]
    assert s["failed"] and s["deal_score"] == [0, 26] and st["scores"] == [0, 26]


def test_sun_64_gives_12_and_fails():
    _, s = run_fixture(SUN_64, kind="sun", player=2)
    assert s["card_points"] == [64, 66] and s["game_points"] == [12, 14]
    assert s["failed"] and s["deal_score"] == [0, 26]


def test_hokum_86_gives_9_and_defenders_7():
    _, s = run_fixture(HOKUM_86, kind="hokum", trump="H", player=1)
    assert s["card_points"] == [76, 86] and s["game_points"] == [7, 9] and s["deal_score"] == [7, 9]


def test_hokum_85_gives_8_tie_on_points_won_on_card_points():
    _, s = run_fixture(HOKUM_85, kind="hokum", trump="H", player=1)
    assert s["card_points"] == [77, 85] and s["game_points"] == [8, 8]
    assert not s["failed"] and s["deal_score"] == [8, 8]


def test_hokum_tie_in_card_points_fails_and_doubled_transfer():
    _, s = run_fixture(HOKUM_81, kind="hokum", trump="H", player=1, level=2)
    assert s["card_points"] == [81, 81] and s["game_points"] == [8, 8]
    assert s["failed"] and s["deal_score"] == [32, 0]


def test_doubled_hokum_multiplies():
    _, s = run_fixture(HOKUM_86, kind="hokum", trump="H", player=1, level=2)
    assert s["multiplier"] == 2 and s["deal_score"] == [14, 18]


def test_locked_hokum_scores_like_doubled_and_records_lock():
    _, s = run_fixture(HOKUM_86, kind="hokum", trump="H", player=1, level=2, lock=True)
    assert s["lock"] is True and s["deal_score"] == [14, 18]


def test_sweep_in_sun_by_playing_every_trick():
    st = play_state(SWEEP_SUN, kind="sun", player=1)
    assert E.view(st, 1)["sawa_offered"] is True
    st, ev = play_cards(st, sweep_order())
    s = scored(ev)
    assert s["sweep"] == 1 and s["card_points"] == [0, 130] and s["deal_score"] == [0, 44]


def test_sweep_in_sun_by_sawa_with_projects_of_the_losers_lost():
    projects = [[{"kind": "sira", "cards": ["S7", "S8", "S9"]}], [], [], []]
    hands = copy.deepcopy(SWEEP_SUN)
    hands[0], hands[2] = ["S7", "S8", "S9", "H7", "H8", "D7", "D8", "C7"], \
        ["SJ", "H9", "HJ", "D9", "DJ", "C8", "C9", "CJ"]
    st = play_state(hands, kind="sun", player=1, projects=projects)
    st, ev = act(st, {"type": "sawa"}, seat=1)
    s = scored(ev)
    assert s["sawa"] == 1 and s["sweep"] == 1 and s["deal_score"] == [0, 44]
    assert s["card_points"] == [0, 130]


def test_sweep_in_hokum_doubled():
    hands = [["S7", "S8", "SQ", "H7", "H8", "D7", "D8", "C7"], ["H9", "HJ", "HA", "HT", "HK", "HQ", "DA", "CA"],
             ["S9", "SJ", "H9x", "D9", "DJ", "C8", "C9", "CJ"], ["SA", "ST", "SK", "DQ", "DK", "DT", "CQ", "CK"]]
    hands[2][2] = "CT"
    st = play_state(hands, kind="hokum", trump="H", player=1, level=2)
    order = ["HJ", "S9", "SA", "H7", "H9", "SJ", "ST", "H8", "HA", "D9", "SK", "S7",
             "HT", "DJ", "DQ", "S8", "HK", "C8", "DK", "SQ", "HQ", "C9", "DT", "D7",
             "DA", "CJ", "CQ", "D8", "CA", "CT", "CK", "C7"]
    st, ev = play_cards(st, order)
    s = scored(ev)
    assert s["sweep"] == 1 and s["card_points"] == [0, 162] and s["deal_score"] == [0, 50]


def test_sawa_not_offered_when_the_leader_can_be_beaten():
    st = play_state(SUN_66[0], kind="sun", player=2)
    assert st["sawa"] is False and {"type": "sawa"} not in E.legal_moves(st, 1)
    with pytest.raises(IllegalMove) as e:
        act(st, {"type": "sawa"}, seat=1)
    assert e.value.code == "sawa_not_offered"
    assert "sawa_offered" not in E.view(st, 2)


def test_sawa_search_handles_forced_follow():
    # S7 is not top (opponent holds SK) but SK must fall under SA first.
    hands = [["DA"], ["SA", "S7"], ["SK", "D7"], ["D8"]]
    hands = [["D7", "D8"], ["SA", "S7"], ["SK", "H7"], ["C7", "C8"]]
    assert sawa_possible(hands, 1, None, False) is True
    hands[2] = ["SK", "SQ"]
    assert sawa_possible(hands, 1, None, False) is False
    # Hokum: a void defender holding a trump ruffs a side-suit lead
    assert sawa_possible([["H7", "D8"], ["SA", "ST"], ["D7", "D9"], ["C7", "C8"]], 1, "H", False) is False


def test_sawa_after_losing_a_trick_is_not_a_sweep():
    hands, order = SUN_66
    st = play_state(hands, kind="sun", player=2)
    cards = order.split()
    i = 0
    while not (st["sawa"] and not st["trick"]):
        st, _ = play_cards(st, [cards[i]])
        i += 1
    assert 0 < i < 32 and len(st["tricks"]) >= 1  # Sawa arises mid-deal in this fixture
    assert len({t["winner"] % 2 for t in st["tricks"]}) == 2  # both teams have won a trick
    leader = st["leader"]
    st2, ev = act(st, {"type": "sawa"}, seat=leader)
    s = scored(ev)
    assert s["sweep"] is None and s["sawa"] == leader
    assert sum(s["card_points"]) == 130


# ----- projects ------------------------------------------------------------------------------
def declare_state(hands, kind="sun", trump=None):
    st = play_state(hands, kind=kind, trump=trump, player=1)
    st["phase"] = "projects"
    st["projects"] = [None] * 4
    st["declare_turn"] = 0
    return st


FOUR_HANDS = [["S7", "S8", "H7", "H8", "D7", "D8", "C7", "C8"],
              ["SK", "SQ", "SJ", "ST", "HK", "DK", "CK", "HA"],
              ["S9", "H9", "HJ", "D9", "DJ", "C9", "CJ", "DA"],
              ["SA", "HT", "HQ", "DT", "DQ", "CT", "CQ", "CA"]]


def test_declaration_validation():
    st = declare_state(FOUR_HANDS)
    seat = E.to_act(st)[0]
    assert seat == 1
    bad = [
        ([{"kind": "sira", "cards": ["S7", "S8", "S9"]}], "card_not_held"),
        ([{"kind": "fifty", "cards": ["SK", "SQ", "SJ"]}], "bad_project"),
        ([{"kind": "fifty", "cards": ["SK", "SQ", "SJ", "ST"]},
          {"kind": "hundred", "cards": ["SK", "HK", "DK", "CK"]}], "bad_project"),  # SK used twice
        ([{"kind": "sira", "cards": ["SK", "SQ", "SJ"]}, {"kind": "sira", "cards": ["ST", "SJ", "SQ"]}],
         "bad_project"),
        ([{"kind": "sira", "cards": ["SK", "SQ"]}], "bad_project"),
        ([{"kind": "sira"}], "malformed"),
        ("none", "malformed"),
    ]
    for projects, code in bad:
        with pytest.raises(IllegalMove) as e:
            act(st, {"type": "declare", "projects": projects}, seat=1)
        assert e.value.code == code, projects
    # a shorter stretch frees the king for the four of a kind
    ok = [{"kind": "sira", "cards": ["SQ", "SJ", "ST"]}, {"kind": "hundred", "cards": ["CK", "DK", "HK", "SK"]}]
    assert {"type": "declare", "projects": [{"kind": "sira", "cards": ["ST", "SJ", "SQ"]},
                                            {"kind": "hundred", "cards": ["SK", "HK", "DK", "CK"]}]} \
        in E.legal_moves(st, 1)
    st2, ev = act(st, {"type": "declare", "projects": ok}, seat=1)
    assert ev[0] == {"type": "declared", "seat": 1, "kinds": ["sira", "hundred"]}
    assert E.view(st2, 0)["projects"][1] == [{"kind": "sira"}, {"kind": "hundred"}]  # cards after trick 1


def test_at_most_two_of_a_type():
    # With 8 cards three projects of one type cannot be held, so the cap is checked on the rule itself.
    siras = [{"kind": "sira", "cards": [s + "7", s + "8", s + "9"]} for s in "SHD"]
    assert declaration_problem(siras[:2]) is None
    assert declaration_problem(siras) == "The same project type counts at most twice."
    cands = candidate_projects(["S7", "S8", "S9", "ST", "H7", "H8", "H9", "HT"], True)
    assert {"kind": "fifty", "cards": ["S7", "S8", "S9", "ST"]} in cands[-1] or any(
        len(c) == 2 and all(x["kind"] == "fifty" for x in c) for c in cands)
    assert all(len([x for x in c if x["cards"][0][0] == "S"]) <= 1 for c in cands)  # one project per run


def test_project_comparison_across_teams_and_declared_cards_shown_after_first_trick():
    # seat 1 (team 1): Sira to K + Fifty to K; seat 2 (team 0): Fifty to A + Sira: team 0 has the best
    hands = [["S7", "H7", "C7", "S8", "H8", "D8", "C8", "D9"],
             ["SJ", "SQ", "SK", "HT", "HJ", "HQ", "HK", "C9"],
             ["DJ", "DQ", "DK", "DA", "CQ", "CK", "CA", "D7"],
             ["S9", "ST", "SA", "H9", "HA", "DT", "CT", "CJ"]]
    st = declare_state(hands)
    moves = [(1, [{"kind": "sira", "cards": ["SJ", "SQ", "SK"]}, {"kind": "fifty", "cards": ["HT", "HJ", "HQ", "HK"]}]),
             (2, [{"kind": "fifty", "cards": ["DJ", "DQ", "DK", "DA"]}, {"kind": "sira", "cards": ["CQ", "CK", "CA"]}]),
             (3, []), (0, [])]
    for seat, projects in moves:
        st, _ = act(st, {"type": "declare", "projects": projects}, seat=seat)
    assert st["phase"] == "play" and E.to_act(st) == [1]
    assert E.best_project_team(st) == 0
    v = E.view(st, 3)
    assert v["projects"][2] == [{"kind": "fifty"}, {"kind": "sira"}]
    assert v["projects"][3] == [] and "DJ" in E.hidden_cards(st, 3)
    for _ in range(4):
        st, _ = act(st, E.timeout_move(st, E.to_act(st)[0]))
    v = E.view(st, 3)
    assert v["projects"][2][0] == {"kind": "fifty", "cards": ["DJ", "DQ", "DK", "DA"]}
    assert "DJ" not in E.hidden_cards(st, 3)  # shown, so no longer hidden


def test_best_project_rules():
    st = declare_state(FOUR_HANDS)
    st["dealer"] = 0  # P1 = seat 1, P2 = seat 2
    # equal type and top card: the earlier player from the dealer's right wins
    st["projects"] = [[], [{"kind": "fifty", "cards": ["HT", "HJ", "HQ", "HK"]}],
                      [{"kind": "fifty", "cards": ["DT", "DJ", "DQ", "DK"]}], []]
    assert E.best_project_team(st) == 1
    st["dealer"] = 1  # now seat 2 is P1
    assert E.best_project_team(st) == 0
    # higher type beats higher top card; a four-of-a-kind Hundred vs a run Hundred: top card decides
    st["projects"] = [[{"kind": "sira", "cards": ["SQ", "SK", "SA"]}],
                      [{"kind": "hundred", "cards": ["S9", "ST", "SJ", "SQ", "SK"]}],
                      [{"kind": "hundred", "cards": ["SA", "HA", "DA", "CA"]}], []]
    assert E.best_project_team(st) == 0


def test_only_best_team_scores_all_its_projects():
    proj = [[{"kind": "fifty", "cards": ["DT", "DJ", "DQ", "DK"]}], [{"kind": "sira", "cards": ["S9", "ST", "SJ"]}],
            [{"kind": "sira", "cards": ["C7", "C8", "C9"]}], []]
    _, s = run_fixture(SUN_66, kind="sun", player=2, projects=proj)
    # team 0 holds the best (Fifty): scores Fifty 10 + Sira 4 in Sun; team 1's Sira is lost
    assert s["project_points"] == [14, 0] and s["deal_score"] == [28, 12]


# ----- Baloot -------------------------------------------------------------------------------
BALOOT_HANDS = [["HK", "HQ", "S7", "S8", "D7", "D8", "C7", "C8"], ["HJ", "H9", "SA", "ST", "DA", "DT", "CA", "CT"],
                ["H7", "H8", "S9", "SJ", "D9", "DJ", "C9", "CJ"], ["HA", "HT", "SK", "SQ", "DK", "DQ", "CK", "CQ"]]


def test_baloot_claim_needs_the_second_card_and_is_not_multiplied():
    st = play_state(BALOOT_HANDS, kind="hokum", trump="H", player=1, level=2, dealer=0)
    # seat 1 leads trump J; seat 0 (P4) must follow with a trump
    st, _ = play_cards(st, ["HJ", "H7", "HA"])
    assert {"type": "play", "card": "HK", "baloot": True} not in E.legal_moves(st, 0)
    with pytest.raises(IllegalMove) as e:
        act(st, {"type": "play", "card": "HK", "baloot": True}, seat=0)
    assert e.value.code == "baloot_not_allowed"
    st, _ = play_cards(st, ["HK"])
    st, _ = play_cards(st, ["H9", "H8", "HT"])
    assert {"type": "play", "card": "HQ", "baloot": True} in E.legal_moves(st, 0)
    st, ev = play_cards(st, ["HQ"], baloot=("HQ",))
    assert {"type": "baloot", "seat": 0} in ev
    order = ["SA", "S9", "SK", "S7", "ST", "SJ", "SQ", "S8", "DA", "D9", "DK", "D7", "DT", "DJ", "DQ", "D8",
             "CA", "C9", "CK", "C7", "CT", "CJ", "CQ", "C8"]
    st, ev = play_cards(st, order)
    s = scored(ev)
    # team 1 sweeps: 25 x 2 = 50; team 0 keeps its Baloot, 2 points, unmultiplied
    assert s["sweep"] == 1 and s["baloot"] == [2, 0] and s["deal_score"] == [2, 50]


HOKUM_60 = ([["H7", "HQ", "HK", "D9", "DA", "C9", "CJ", "CQ"], ["S7", "S8", "ST", "SQ", "H9", "HA", "D7", "DQ"],
             ["S9", "SK", "H8", "D8", "DT", "DJ", "DK", "C7"], ["SJ", "SA", "HT", "HJ", "C8", "CT", "CK", "CA"]],
            "HA H8 HJ HQ C8 CQ H9 C7 DQ DT HT D9 CK CJ ST S9 SJ H7 SQ SK DA D7 D8 CA C9 S8 DJ CT SA HK S7 DK")


def test_baloot_stays_with_holder_in_a_failed_bid():
    hands, order = HOKUM_60
    st = play_state(hands, kind="hokum", trump="H", player=0)
    st, ev = play_cards(st, order.split(), baloot=("HK",))
    s = scored(ev)
    # bidders 60 -> 6 (+2 Baloot = 8) against 10: failed; they keep only their Baloot
    assert s["card_points"] == [60, 102] and s["game_points"] == [6, 10] and s["baloot"] == [2, 0]
    assert s["failed"] and s["deal_score"] == [2, 16]


def test_baloot_counts_in_the_comparison():
    hands, order = HOKUM_81
    st = play_state(hands, kind="hokum", trump="H", player=1)
    st, ev = play_cards(st, order.split()[:31])
    st["baloot"] = [1]  # as if seat 1 had claimed it
    st, ev = play_cards(st, order.split()[31:])
    s = scored(ev)
    # 81 against 81 would fail; bidders 8 + 2 = 10 > 8, so the bid is made
    assert not s["failed"] and s["deal_score"] == [8, 10]


# ----- Gahwa and game end -----------------------------------------------------------------------
def test_gahwa_ends_the_game():
    st = play_state(HOKUM_86[0], kind="hokum", trump="H", player=1, gahwa=True, level=4, scores=(40, 30))
    st, ev = play_cards(st, HOKUM_86[1].split())
    s = scored(ev)
    assert s["gahwa"] and s["winner"] == 1 and s["deal_score"] == [0, 152]
    assert E.is_over(st) and st["scores"] == [40, 182]
    assert E.result(st)["winners"] == [1, 3] and E.result(st)["ranks"] == [2, 1, 2, 1]


def test_gahwa_lost_by_bidders_goes_to_defenders():
    st = play_state(HOKUM_81[0], kind="hokum", trump="H", player=1, gahwa=True, level=4)
    st, ev = play_cards(st, HOKUM_81[1].split())
    assert scored(ev)["winner"] == 0 and st["scores"] == [152, 0] and E.result(st)["winners"] == [0, 2]


def test_game_ends_at_152_with_different_totals_and_continues_on_equal():
    st = play_state(SUN_66[0], kind="sun", player=2, scores=(140, 100))
    st, ev = play_cards(st, SUN_66[1].split())
    assert E.is_over(st) and st["scores"] == [154, 112] and E.result(st)["winners"] == [0, 2]
    st = play_state(SUN_66[0], kind="sun", player=2, scores=(140, 142))
    st, _ = play_cards(st, SUN_66[1].split())
    assert st["scores"] == [154, 154] and not E.is_over(st) and st["phase"] == "bidding"
    # the next deal: dealer one seat to the right, shuffle d:kocok with the next index
    assert st["dealer"] == 1 and st["deal_no"] == 1
    assert (st["shuffles"][-1]["round"], st["shuffles"][-1]["purpose"]) == (1, "kocok")
    assert E.to_act(st) == [2] and st["last_deal"]["scores"] == [154, 154]


def test_fast_mode_starts_at_52_and_options_are_checked():
    assert fresh({"mode": "fast"})["scores"] == [52, 52]
    assert fresh()["options"] == {"mode": "classic", "overtrump": False, "rules": 2}
    assert fresh({"rules": 1})["options"]["rules"] == 1
    for bad in ({"mode": "slow"}, {"overtrump": 1}, {"colour": "red"}, {"rules": 3}, {"rules": True},
                {"rules": "2"}):
        with pytest.raises(ValueError):
            fresh(bad)
