"""Golden scenarios for Baloot (../shared/spec/baloot.md and docs/rules/baloot.md)."""

from __future__ import annotations

import copy
import json

import pytest

from gameworkers.engines import IllegalMove, fairness, get_engine
from gameworkers.engines.baloot import (
    candidate_projects,
    hand_sorted,
    hokum_game_points,
    legal_cards,
    sawa_possible,
    sun_game_points,
)
from gameworkers.engines.baloot_projects import declaration_problem

E = get_engine("baloot")
SEED = bytes(range(32))


# ----- helpers ---------------------------------------------------------------------------
def fresh(options: dict | None = None, seed: bytes = SEED) -> dict:
    return E.new(seed, 4, options)


def act(state: dict, move: dict, seat: int | None = None, now: int = 1000) -> tuple[dict, list]:
    if seat is None:
        seat = E.deadline(state)["seat"]
    return E.apply(state, seat, move, now_ms=now)


def bids(state: dict, *types: str) -> dict:
    for t in types:
        state, _ = act(state, {"type": t})
    return state


def p(state: dict, k: int) -> int:
    """Seat of P``k`` (positions from the dealer's right; P4 is the dealer)."""
    return (state["dealer"] + k) % 4


def play_state(hands: list[list[str]], *, dealer: int = 0, kind: str = "sun", trump: str | None = None,
               player: int | None = None, level: int = 1, lock: bool = False, gahwa: bool = False,
               projects: list | None = None, scores: tuple[int, int] = (0, 0),
               options: dict | None = None) -> dict:
    """A deal at its first card, built directly (hands in seat order)."""
    st = copy.deepcopy(fresh(options))
    player = (dealer + 1) % 4 if player is None else player
    st.update({
        "dealer": dealer, "phase": "play", "hands": [hand_sorted(h) for h in hands], "stock": [],
        "exposed": hands[player][0], "scores": list(scores),
        "contract": {"kind": kind, "player": player, "team": player % 2, "trump": trump, "round": 1,
                     "taker": player},
        "doubling": {"style": None, "step": None, "team": None, "level": level, "passed": [], "lock": lock,
                     "gahwa": gahwa, "since": None, "by": None},
        "projects": projects or [[], [], [], []], "declare_turn": 4, "leader": (dealer + 1) % 4,
        "trick": [], "tricks": [], "baloot": [], "sawa_by": None, "sawa_pile": [],
    })
    E._update_sawa(st)
    return st


def play_cards(state: dict, cards: list[str], baloot: tuple[str, ...] = ()) -> tuple[dict, list]:
    events: list = []
    for card in cards:
        seat = E.to_act(state)[0]
        move = {"type": "play", "card": card}
        if card in baloot:
            move["baloot"] = True
        state, ev = E.apply(state, seat, move, now_ms=1000)
        events += ev
    return state, events


def scored(events: list) -> dict:
    return next(e for e in events if e["type"] == "deal_scored")


# Full deals found by random legal play (dealer 0, so P1 = seat 1 leads); hands in seat order.
SUN_66 = ([["SJ", "H9", "DT", "DJ", "C9", "CT", "CQ", "CK"], ["S7", "S8", "ST", "SQ", "DA", "C7", "C8", "CJ"],
           ["S9", "SA", "H7", "HT", "HQ", "DQ", "DK", "CA"], ["SK", "H8", "HJ", "HK", "HA", "D7", "D8", "D9"]],
          "DA DQ D9 DT CJ CA HA CT S9 SK SJ SQ HK H9 S7 HQ D8 DJ C8 DK HT HJ CK ST H7 H8 C9 S8 D7 CQ C7 SA")
SUN_65 = ([["S8", "SJ", "SQ", "H7", "D7", "C7", "CT", "CK"], ["S7", "SK", "SA", "HQ", "HK", "D9", "CQ", "CA"],
           ["S9", "ST", "HT", "HA", "DT", "DQ", "DK", "CJ"], ["H8", "H9", "HJ", "D8", "DJ", "DA", "C8", "C9"]],
          "D9 DK DA D7 HJ H7 HQ HA DQ DJ CK CA DT D8 S8 SK CJ C8 CT CQ C7 S7 HT C9 H9 SJ HK ST SA S9 H8 SQ")
SUN_64 = ([["S8", "ST", "H8", "HA", "DT", "DQ", "DK", "CT"], ["S7", "SJ", "SA", "HQ", "D8", "D9", "CJ", "CQ"],
           ["S9", "SK", "H9", "HK", "D7", "C7", "CK", "CA"], ["SQ", "H7", "HT", "HJ", "DJ", "DA", "C8", "C9"]],
          "CJ C7 C9 CT S8 SJ S9 SQ HT HA HQ HK DK D9 D7 DA H7 H8 D8 H9 CA C8 DT CQ SK HJ ST SA S7 CK DJ DQ")
HOKUM_86 = ([["S9", "SK", "H7", "HJ", "HQ", "D7", "DK", "CK"], ["ST", "SQ", "HK", "DT", "DQ", "C9", "CT", "CA"],
             ["SJ", "SA", "HA", "DJ", "C7", "C8", "CJ", "CQ"], ["S7", "S8", "H8", "H9", "HT", "D8", "D9", "DA"]],
            "DQ DJ DA DK D8 D7 DT HA C8 H9 CK C9 D9 H7 HK CJ SQ SJ S7 S9 ST SA S8 SK C7 H8 HJ CT HQ CA CQ HT")
HOKUM_85 = ([["SK", "H7", "H9", "HT", "DJ", "DQ", "DK", "CT"], ["S7", "SJ", "HJ", "HK", "HA", "D9", "C9", "CA"],
             ["S8", "SQ", "SA", "DT", "DA", "C8", "CJ", "CQ"], ["S9", "ST", "H8", "HQ", "D7", "D8", "C7", "CK"]],
            "HK DA HQ H7 HA CJ H8 H9 DQ D9 DT D7 SA ST SK SJ CQ CK CT CA S7 S8 S9 HT DK HJ C8 D8 C9 SQ C7 DJ")
HOKUM_81 = ([["ST", "SJ", "SK", "SA", "HQ", "D7", "DA", "CJ"], ["H7", "H8", "HT", "D9", "C7", "C8", "C9", "CK"],
             ["S9", "HK", "HA", "D8", "DQ", "CT", "CQ", "CA"], ["S7", "S8", "SQ", "H9", "HJ", "DT", "DJ", "DK"]],
            "C9 CQ H9 CJ S8 SJ H7 S9 C8 CA HJ HQ DJ D7 D9 D8 DT DA H8 DQ C7 CT S7 SK HA DK ST HT HK SQ SA CK")


def run_fixture(fixture, **kw) -> tuple[dict, dict]:
    hands, order = fixture
    st = play_state(hands, **kw)
    st, ev = play_cards(st, order.split())
    return st, scored(ev)


# ----- deal ---------------------------------------------------------------------------------
def test_first_dealer_and_deal_packets_follow_the_spec():
    st = fresh()
    assert st["first"] == fairness.first_player(SEED, 4) == st["dealer"]
    stock = fairness.shuffle(SEED, 0, "kocok", list(fairness.BALOOT_DECK))
    assert st["shuffles"][0]["round"] == 0 and st["shuffles"][0]["purpose"] == "kocok"
    assert st["shuffles"][0]["result"] == stock
    for k in range(4):
        seat = p(st, k + 1)
        assert st["hands"][seat] == hand_sorted(stock[3 * k:3 * k + 3] + stock[12 + 2 * k:14 + 2 * k])
    assert st["exposed"] == stock[20]
    assert E.to_act(st) == [p(st, 1)]


@pytest.mark.parametrize("sun_pos", [1, 3])
def test_rest_of_the_deal_after_the_contract(sun_pos):
    st = fresh()
    stock = st["shuffles"][0]["result"]
    before = [list(h) for h in st["hands"]]
    st = bids(st, *(["pass"] * (sun_pos - 1)), "sun")
    pos = 21
    for k in range(1, 5):
        seat = p(st, k)
        if k == sun_pos:
            extra = [stock[20]] + stock[pos:pos + 2]
            pos += 2
        else:
            extra = stock[pos:pos + 3]
            pos += 3
        assert st["hands"][seat] == hand_sorted(before[seat] + extra)
    assert pos == 32 and st["contract"]["taker"] == p(st, sun_pos)


def test_void_deal_redeals_with_next_index_and_dealer():
    st = fresh()
    dealer = st["dealer"]
    st = bids(st, *["pass"] * 4)
    assert st["bidding"]["round"] == 2 and E.to_act(st) == [p(st, 1)]
    st, _ = act(st, {"type": "pass"})
    st = bids(st, *["pass"] * 3)
    assert st["deal_no"] == 1 and st["dealer"] == (dealer + 1) % 4
    assert [(s["round"], s["purpose"]) for s in st["shuffles"]] == [(0, "kocok"), (1, "kocok")]
    assert st["last_deal"]["void"] is True and st["phase"] == "bidding"
    assert st["scores"] == [0, 0]


# ----- bidding ----------------------------------------------------------------------------
def test_ashkal_only_for_p3_and_p4():
    st = fresh()
    with pytest.raises(IllegalMove) as e:
        act(st, {"type": "ashkal"})
    assert e.value.code == "illegal_bid"
    st = bids(st, "pass")
    assert {"type": "ashkal"} not in E.legal_moves(st, p(st, 2))
    st = bids(st, "pass")
    assert {"type": "ashkal"} in E.legal_moves(st, p(st, 3))


def test_ashkal_answer_pass_gives_ashkal_to_callers_team_and_card_to_partner():
    st = bids(fresh(), "pass", "pass", "ashkal")
    assert E.to_act(st) == [p(st, 2)]  # the caller's left
    assert E.legal_moves(st, p(st, 2)) == [{"type": "pass"}, {"type": "sun"}]
    exposed = st["exposed"]
    st = bids(st, "pass")
    c = st["contract"]
    assert c["kind"] == "ashkal" and c["team"] == p(st, 3) % 2 and c["taker"] == p(st, 1)
    assert exposed in st["hands"][p(st, 1)]
    assert st["phase"] == "projects"  # scores 0: no Sun double


def test_ashkal_answer_sun():
    st = bids(fresh(), "pass", "pass", "pass", "ashkal", "sun")
    c = st["contract"]
    assert c["kind"] == "sun" and c["player"] == p(st, 3) and c["taker"] == p(st, 3)


def test_hokum_overcall_by_sun_ends_bidding():
    st = bids(fresh(), "pass", "hokum")
    assert E.to_act(st) == [p(st, 3)]
    assert E.legal_moves(st, p(st, 3)) == [{"type": "pass"}, {"type": "sun"}]
    st = bids(st, "pass", "pass")
    assert E.to_act(st) == [p(st, 1)]  # overcalls go from the caller's right: P3, P4, then P1
    st = bids(st, "sun")
    assert st["contract"]["kind"] == "sun" and st["contract"]["player"] == p(st, 1)


def test_hokum_confirmed_round_one_uses_exposed_suit_and_opens_doubling():
    st = bids(fresh(), "hokum", "pass", "pass", "pass")
    assert st["bidding"]["stage"] == "choice" and E.to_act(st) == [p(st, 1)]
    with pytest.raises(IllegalMove) as e:
        act(st, {"type": "confirm", "trump": next(s for s in "SHDC" if s != st["exposed"][0])})
    assert e.value.code == "bad_trump"
    st, _ = act(st, {"type": "confirm"})
    c = st["contract"]
    assert c == {"kind": "hokum", "player": p(st, 1), "team": p(st, 1) % 2, "trump": st["exposed"][0],
                 "round": 1, "taker": p(st, 1)}
    assert st["phase"] == "doubling" and sorted(E.to_act(st)) == sorted([p(st, 2), p(st, 4)])


def test_hokum_switched_to_sun():
    st = bids(fresh(), "hokum", "pass", "pass", "pass", "sun")
    assert st["contract"]["kind"] == "sun" and st["contract"]["player"] == p(st, 1)


def test_second_hokum_names_a_suit_other_than_exposed():
    st = bids(fresh(), *["pass"] * 4, "pass", "hokum", "pass", "pass", "pass")
    exposed = st["exposed"][0]
    legal = E.legal_moves(st, p(st, 2))
    assert {"type": "confirm", "trump": exposed} not in legal and len(legal) == 4
    with pytest.raises(IllegalMove) as e:
        act(st, {"type": "confirm", "trump": exposed})
    assert e.value.code == "bad_trump"
    with pytest.raises(IllegalMove):
        act(st, {"type": "confirm"})
    other = next(s for s in "SHDC" if s != exposed)
    st, _ = act(st, {"type": "confirm", "trump": other})
    assert st["contract"]["trump"] == other and st["contract"]["round"] == 2 and st["phase"] == "doubling"


def test_round_two_sun_rules_out_doubling_even_over_100():
    st = copy.deepcopy(fresh())
    st["scores"] = [120, 120]
    st = bids(st, *["pass"] * 4, "sun")
    assert st["contract"]["round"] == 2 and st["phase"] == "projects"


@pytest.mark.parametrize("total,doubling", [(100, False), (101, True)])
def test_sun_double_only_when_bidders_total_over_100(total, doubling):
    st = copy.deepcopy(fresh())
    team = p(st, 1) % 2
    st["scores"] = [0, 0]
    st["scores"][team] = total
    st = bids(st, "sun")
    assert (st["phase"] == "doubling") is doubling
    if doubling:
        assert E.legal_moves(st, p(st, 2)) == [{"type": "pass"}, {"type": "double"}]
        st, _ = act(st, {"type": "double"}, seat=p(st, 4))
        assert st["phase"] == "projects" and st["doubling"]["level"] == 2


# ----- doubling ---------------------------------------------------------------------------
def hokum_doubling() -> dict:
    return bids(fresh(), "hokum", "pass", "pass", "pass", "confirm")


def test_doubling_step_offered_to_both_defenders_declined_when_both_pass():
    st = hokum_doubling()
    d2, d4 = p(st, 2), p(st, 4)
    assert E.to_act(st) == [d2, d4]
    assert E.deadline(st) == {"seat": d2, "since_ms": 1000, "limit_ms": None}
    st, _ = act(st, {"type": "pass"}, seat=d4, now=5000)
    assert E.to_act(st) == [d2]
    # the step's timer keeps running from when the step was offered
    assert E.deadline(st) == {"seat": d2, "since_ms": 1000, "limit_ms": None}
    with pytest.raises(IllegalMove) as e:
        act(st, {"type": "pass"}, seat=d4)
    assert e.value.code == "not_your_turn"
    st, _ = act(st, {"type": "pass"}, seat=d2, now=5000)
    assert st["phase"] == "projects" and st["doubling"]["level"] == 1


def test_doubling_ladder_to_gahwa_and_either_partner_may_take_a_step():
    st = hokum_doubling()
    with pytest.raises(IllegalMove) as e:
        act(st, {"type": "double"}, seat=p(st, 2))
    assert e.value.code == "lock_required"
    st, _ = act(st, {"type": "pass"}, seat=p(st, 2))
    st, _ = act(st, {"type": "double", "lock": True}, seat=p(st, 4), now=2000)  # partner takes it after a pass
    assert st["doubling"]["level"] == 2 and st["doubling"]["lock"] is True
    assert E.to_act(st) == [p(st, 1), p(st, 3)]
    assert E.deadline(st)["since_ms"] == 2000
    with pytest.raises(IllegalMove):
        act(st, {"type": "four"}, seat=p(st, 1), now=3000)
    st, _ = act(st, {"type": "triple"}, seat=p(st, 3), now=3000)
    st, _ = act(st, {"type": "four"}, seat=p(st, 2), now=3000)
    assert st["doubling"]["level"] == 4
    assert E.legal_moves(st, p(st, 1)) == [{"type": "pass"}, {"type": "gahwa"}]
    st, _ = act(st, {"type": "gahwa"}, seat=p(st, 1), now=3000)
    assert st["doubling"]["gahwa"] is True and st["phase"] == "projects"


# ----- play rules -------------------------------------------------------------------------
def t(*cards: str) -> list[dict]:
    return [{"seat": i, "card": c} for i, c in enumerate(cards)]


def test_follow_suit_and_must_trump_even_when_partner_wins():
    hand = ["S7", "H8", "HA", "DK"]
    assert legal_cards(hand, t("DA"), None) == ["DK"]
    assert legal_cards(hand, t("C7"), None) == hand
    # Hokum, hearts trump, clubs led and partner (seat 0) winning with CA: still must trump
    assert legal_cards(hand, t("CA", "C7"), "H") == ["H8", "HA"]
    assert legal_cards(["S7", "DK"], t("CA"), "H") == ["S7", "DK"]


def test_overtrump_flag():
    hand = ["H7", "H9", "S8"]
    trick = t("C7", "HA")  # a trump (A) already in the trick
    assert legal_cards(hand, trick, "H") == ["H7", "H9"]
    assert legal_cards(hand, trick, "H", overtrump=True) == ["H9"]  # 9 beats A in trump
    assert legal_cards(["H7", "H8"], trick, "H", overtrump=True) == ["H7", "H8"]  # cannot beat: any trump
    assert legal_cards(hand, t("HQ"), "H", overtrump=True) == ["H9"]


def test_lock_forbids_leading_trump_while_holding_other_suits():
    hands = [["S7", "S8"], ["H7", "HA"], ["S9", "ST"], ["D7", "D8"]]
    st = play_state(hands, dealer=0, kind="hokum", trump="H", level=2, lock=True)
    assert [m["card"] for m in E.legal_moves(st, 1) if m["type"] == "play"] == ["H7", "HA"]  # only trumps
    hands = [["S7", "S8"], ["H7", "D9"], ["S9", "ST"], ["D7", "D8"]]
    st = play_state(hands, dealer=0, kind="hokum", trump="H", level=2, lock=True)
    assert [m["card"] for m in E.legal_moves(st, 1) if m["type"] == "play"] == ["D9"]
    with pytest.raises(IllegalMove) as e:
        act(st, {"type": "play", "card": "H7"}, seat=1)
    assert e.value.code == "illegal_card"


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


SWEEP_SUN = [["S7", "S8", "H7", "H8", "D7", "D8", "C7", "C8"], ["SA", "ST", "HA", "HT", "DA", "DT", "CA", "CT"],
             ["S9", "SJ", "H9", "HJ", "D9", "DJ", "C9", "CJ"], ["SQ", "SK", "HQ", "HK", "DQ", "DK", "CQ", "CK"]]


def sweep_order() -> list[str]:
    order = []
    for s in "SHDC":
        for lead in "AT":
            idx = 0 if lead == "A" else 1
            order += [s + lead, SWEEP_SUN[2][[c[0] for c in SWEEP_SUN[2]].index(s) + idx],
                      SWEEP_SUN[3][[c[0] for c in SWEEP_SUN[3]].index(s) + idx],
                      SWEEP_SUN[0][[c[0] for c in SWEEP_SUN[0]].index(s) + idx]]
    return order


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
