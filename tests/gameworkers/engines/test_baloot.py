"""Golden scenarios for Baloot (../shared/spec/baloot.md and docs/rules/baloot.md): the deal, bidding,
doubling and the play rules. Scoring, Sawa, projects, Baloot and the game's end are in
test_baloot_scoring.py; timers, views, bad input and recorded games in test_baloot_contract.py."""

from __future__ import annotations

import copy

import pytest

from gameworkers.engines import IllegalMove, fairness
from gameworkers.engines.baloot import (
    hand_sorted,
    legal_cards,
)
from tests.gameworkers.engines.baloot_helpers import (
    SEED,
    E,
    act,
    bids,
    fresh,
    p,
    play_state,
)


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
