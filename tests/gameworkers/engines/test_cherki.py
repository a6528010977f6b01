"""Golden scenarios for Cherki (../shared/spec/cherki.md and docs/rules/cherki.md)."""

from __future__ import annotations

import copy
import json
from collections import Counter

import pytest

from gameworkers.engines import IllegalMove, fairness, get_engine
from gameworkers.engines.cherki import TURN_LIMIT, key_of, points_of, sort_cards, wait_key

E = get_engine("cherki")
SEED = bytes(range(32))
DECK = Counter(fairness.CHERKI_DECK)

# fairness-vectors.json, seed 00..1f: cherki_deal0 (first 27 cards) and first_player for n = 3.
VECTOR_DEAL0 = ["WF", "M3", "M1", "C4", "C1", "M1", "C8", "S8", "C4", "M7", "C6", "M9", "S2", "C4", "WF",
                "S9", "OT", "S1", "M7", "C8", "S2", "S7", "C3", "OT", "M9", "M6", "C2"]
VECTOR_FIRST_3 = 1

READY_A = ["C1", "S1", "M1", "C2", "S2", "M2", "C9", "S9"]          # 111 222 99: waits for a 9


def build(hands: list[list[str]], *, stock_top: list[str] = (), pile: list[str] = (), turn: int = 0,
          called: list[bool] = (False, False, False), stock_size: int | None = None, turns: int = 0) -> dict:
    """A consistent position: the given hands, pile and top of the stock; every other card below.

    With ``stock_size`` the stock is cut to that many cards and the rest lies under the pile.
    """
    state = E.new(SEED, 3)
    used = Counter(c for h in hands for c in h) + Counter(stock_top) + Counter(pile)
    rest = list((DECK - used).elements())
    assert not (used - DECK), "more copies than the deck holds"
    stock = list(stock_top) + rest
    under: list[str] = []
    if stock_size is not None:
        stock, under = stock[:stock_size], stock[stock_size:]
    state.update(hands=[sort_cards(list(h)) for h in hands], stock=stock, stock_pos=0, pile=under + list(pile),
                 turn=turn, called=list(called), turns=turns, dealer=(turn - 1) % 3)
    assert Counter(E.all_cards(state)) == DECK
    return state


def act(state: dict, seat: int, move: dict, now: int = 1000) -> tuple[dict, list[dict]]:
    before = copy.deepcopy(state)
    new, events = E.apply(state, seat, move, now_ms=now)
    assert state == before, "apply must not mutate its argument"
    assert Counter(E.all_cards(new)) == DECK
    json.dumps(new)
    json.dumps(events)
    return new, events


def refused(state: dict, seat: int | None, move, code: str) -> None:
    before = copy.deepcopy(state)
    with pytest.raises(IllegalMove) as info:
        E.apply(state, seat, move, now_ms=1000)
    assert info.value.code == code, info.value.message
    assert state == before


# ----- shapes and points -----------------------------------------------------------------

@pytest.mark.parametrize("cards,wait", [
    (READY_A, "9"),
    (["C7", "S7", "M7", "C7", "S7", "C8", "S8", "M8"], "7"),      # 5 + 3: pair shares the triple's value
    (["C7", "S7", "M7", "C7", "S7", "M7", "WF", "WF"], "WF"),     # 6 + 2
    (["C7", "S7", "M7", "C7", "S7", "M7", "C7", "S7"], "7"),      # 8 sevens
    (["WF", "WF", "WF", "RF", "RF", "RF", "OT", "OT"], "OT"),     # honours set only with themselves
    (["C1", "S1", "M1", "C2", "S2", "M2", "C9", "WF"], None),     # no pair
    (["C1", "S1", "M1", "C1", "C2", "S2", "M2", "C2"], None),     # 4 + 4
    (["WF", "RF", "OT", "C2", "S2", "M2", "C9", "S9"], None),     # honours do not mix
    (["C1", "S1", "M1", "C2", "S2", "M2", "C9"], None),           # seven cards
])
def test_wait_key_recognises_exactly_two_triples_and_a_pair(cards, wait):
    assert wait_key(cards) == wait


def test_keys_and_points():
    assert [key_of(c) for c in ["C5", "S5", "M5", "WF", "RF", "OT"]] == ["5", "5", "5", "WF", "RF", "OT"]
    assert [points_of(c) for c in ["C9", "S1", "M5", "WF", "RF", "OT"]] == [9, 1, 5, 1, 1, 1]


# ----- the deal --------------------------------------------------------------------------

def test_deal_follows_the_published_vector_two_at_a_time_from_the_dealers_left():
    state = E.new(SEED, 3)
    assert state["first"] == VECTOR_FIRST_3 == state["dealer"]
    assert state["shuffles"][0]["round"] == 0 and state["shuffles"][0]["purpose"] == "kocok"
    assert state["shuffles"][0]["initial"] == list(fairness.CHERKI_DECK)
    assert state["shuffles"][0]["result"][:27] == VECTOR_DEAL0
    # dealer 1: packets go to seats 2, 0, 1, four times round
    v = VECTOR_DEAL0
    expect = {2: v[0:2] + v[6:8] + v[12:14] + v[18:20],
              0: v[2:4] + v[8:10] + v[14:16] + v[20:22],
              1: v[4:6] + v[10:12] + v[16:18] + v[22:24]}
    for seat, cards in expect.items():
        assert state["hands"][seat] == sort_cards(cards)
    assert state["stock"][:3] == ["M9", "M6", "C2"] and E.stock_left(state) == 96
    assert state["turn"] == 2 and state["pile"] == [] and state["phase"] == "draw"
    assert E.to_act(state) == [2]


def test_the_first_player_must_draw_from_the_stock():
    state = E.new(SEED, 3)
    assert E.legal_moves(state, 2) == [{"type": "draw"}]
    refused(state, 2, {"type": "take"}, "pile_empty")
    refused(state, 0, {"type": "draw"}, "not_your_turn")
    new, events = act(state, 2, {"type": "draw"})
    assert events == [{"type": "draw", "seat": 2, "auto": False}]  # the card itself stays private
    assert new["drawn"] == "M9" and "M9" in new["hands"][2] and len(new["hands"][2]) == 9
    assert E.view(new, 2)["drawn"] == "M9"
    assert E.view(new, 0)["drawn"] is None and E.view(new, None).get("drawn") is None


# ----- a normal turn ---------------------------------------------------------------------

def test_draw_then_discard_passes_the_turn_left_and_the_drawn_card_may_be_thrown():
    state = build([["C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8"], ["S1"] * 4 + ["S2"] * 4, ["M1"] * 4 + ["M2"] * 4],
                  stock_top=["WF"], turn=0)
    state, _ = act(state, 0, {"type": "draw"})
    refused(state, 0, {"type": "draw"}, "wrong_phase")
    refused(state, 0, {"type": "discard", "card": "C9"}, "card_not_held")
    state, events = act(state, 0, {"type": "discard", "card": "WF"})
    assert events == [{"type": "discard", "seat": 0, "card": "WF", "auto": False}]
    assert state["pile"][-1] == "WF" and state["turn"] == 1 and state["phase"] == "draw"
    assert state["turns"] == 1


def test_a_taken_card_may_not_be_thrown_back_in_the_same_turn():
    state = build([["C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8"], ["S1"] * 4 + ["S2"] * 4, ["M1"] * 4 + ["M2"] * 4],
                  pile=["M9", "C5"], turn=0)
    state, events = act(state, 0, {"type": "take"})
    assert events == [{"type": "take", "seat": 0, "card": "C5"}]
    assert state["pile"][-1] == "M9" and state["took"] == "C5"
    # neither the taken copy nor the other C5 (same face) may go back this turn; S5 could
    refused(state, 0, {"type": "discard", "card": "C5"}, "taken_card")
    assert all(m["card"] != "C5" for m in E.legal_moves(state, 0))
    # everyone saw the take: it is public knowledge, not hidden
    assert E.view(state, 1)["known"][0] == ["C5"]
    # seat 0's own C5 stays closed and two lie in the stock; the taken one is public
    assert Counter(E.hidden_cards(state, 1))["C5"] == 3
    state, _ = act(state, 0, {"type": "discard", "card": "C1"})
    assert state["pile"][-1] == "C1" and state["known"][0] == ["C5"]


def test_only_the_top_discard_can_be_taken_and_older_ones_stay():
    state = build([["C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8"], ["S1"] * 4 + ["S2"] * 4, ["M1"] * 4 + ["M2"] * 4],
                  pile=["WF", "RF"], turn=0)
    assert {"type": "take"} in E.legal_moves(state, 0)
    state, _ = act(state, 0, {"type": "take"})
    assert "RF" in state["hands"][0] and state["pile"][-1] == "WF"


# ----- calling ---------------------------------------------------------------------------

def test_a_call_is_refused_for_a_wrong_shape():
    hands = [["C1", "S1", "M1", "C2", "S2", "M2", "C9", "WF"], ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 4]
    state = build(hands, stock_top=["RF"], turn=0)
    refused(state, 0, {"type": "call"}, "not_ready")
    assert {"type": "call"} not in E.legal_moves(state, 0)
    state, _ = act(state, 0, {"type": "draw"})
    # keeping C9 WF RF after throwing a 1 is no shape either
    refused(state, 0, {"type": "discard", "card": "C1", "call": True}, "not_ready")
    refused(state, 0, {"type": "discard", "card": "C1", "call": "yes"}, "malformed")


def test_a_call_at_the_discard_locks_the_hand_and_reveals_only_the_call():
    hands = [["C1", "S1", "M1", "C2", "S2", "M2", "C9", "WF"], ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 4]
    state = build(hands, stock_top=["S9"], turn=0)
    state, _ = act(state, 0, {"type": "draw"})
    assert {"type": "discard", "card": "WF", "call": True} in E.legal_moves(state, 0)
    state, events = act(state, 0, {"type": "discard", "card": "WF", "call": True})
    assert events[-1] == {"type": "call", "seat": 0}
    assert state["called"] == [True, False, False]
    other = E.view(state, 1)
    assert other["called"] == [True, False, False] and "wait" in other and other["wait"] is None
    assert E.view(state, 0)["wait"] == "9"
    assert Counter(E.hidden_cards(state, 1)) >= Counter(state["hands"][0])
    assert "hand" not in E.view(state, None) and "wait" not in E.view(state, None)


def test_a_call_before_drawing_then_the_turn_continues_with_the_draw():
    state = build([READY_A, ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 4], stock_top=["C5"], turn=0)
    assert {"type": "call"} in E.legal_moves(state, 0)
    state, events = act(state, 0, {"type": "call"})
    assert events == [{"type": "call", "seat": 0}]
    assert state["turn"] == 0 and state["phase"] == "draw" and state["called"][0]
    refused(state, 0, {"type": "call"}, "already_called")
    assert E.legal_moves(state, 0) == [{"type": "draw"}]
    # the turn continues: the draw is the locked draw, C5 is thrown at once (one move)
    state, events = act(state, 0, {"type": "draw"})
    assert events == [{"type": "draw", "seat": 0, "auto": False},
                      {"type": "discard", "seat": 0, "card": "C5", "forced": True}]
    assert state["hands"][0] == sort_cards(READY_A) and state["pile"] == ["C5"] and state["turn"] == 1


def test_a_player_who_called_before_drawing_may_take_the_completing_discard():
    state = build([READY_A, ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 4], pile=["M9"], turn=0)
    state, _ = act(state, 0, {"type": "call"})
    assert E.legal_moves(state, 0) == [{"type": "draw"}, {"type": "take"}]
    state, events = act(state, 0, {"type": "take"})
    assert state["over"] and E.result(state)["winner"] == 0
    assert events[0]["type"] == "win" and events[0]["source"] == "discard" and events[0]["card"] == "M9"


def test_a_waiting_player_must_discard_any_non_completing_draw():
    state = build([READY_A, ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 4], stock_top=["WF"], pile=["C5"],
                  turn=0, called=[True, False, False])
    assert E.legal_moves(state, 0) == [{"type": "draw"}]        # C5 does not complete: no take
    refused(state, 0, {"type": "take"}, "take_not_completing")
    refused(state, 0, {"type": "discard", "card": "C1"}, "wrong_phase")
    state, events = act(state, 0, {"type": "draw"})
    assert events[1] == {"type": "discard", "seat": 0, "card": "WF", "forced": True}
    assert state["hands"][0] == sort_cards(READY_A) and state["pile"][-2:] == ["C5", "WF"]
    assert state["turn"] == 1 and state["phase"] == "draw" and state["turns"] == 1


def test_a_waiting_player_wins_by_drawing_the_completing_card_and_payout_is_2t_and_minus_t():
    state = build([READY_A, ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 4], stock_top=["M9"],
                  turn=0, called=[True, False, False])
    state, events = act(state, 0, {"type": "draw"}, now=5000)
    # 1+1+1 + 2+2+2 + 9+9+9 = 36
    cards = sort_cards(READY_A + ["M9"])
    assert events[1] == {"type": "win", "seat": 0, "card": "M9", "source": "stock", "cards": cards,
                         "points": 36, "deltas": [72, -36, -36]}
    result = E.result(state)
    assert result["ranks"] == [1, 2, 2] and result["winners"] == [0] and result["winner"] == 0
    assert result["cards"] == cards and result["points"] == 36 and result["deltas"] == [72, -36, -36]
    assert result["settled"] and not result["void"]
    assert E.to_act(state) == [] and E.deadline(state) is None
    # the winner's nine cards are revealed to everyone; the losers' hands stay hidden
    for seat in (1, 2, None):
        view = E.view(state, seat)
        assert view["win"]["cards"] == cards and view["result"]["deltas"] == [72, -36, -36]
        assert "hands" not in view
    assert "S3" not in json.dumps(E.view(state, 2))
    assert E.replay_view(state)["hands"][1] == state["hands"][1]
    refused(state, 1, {"type": "draw"}, "game_over")


def test_payout_counts_honours_as_one():
    hand = ["WF", "WF", "WF", "C9", "S9", "M9", "C5", "S5"]      # waits for a 5
    state = build([hand, ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 4], stock_top=["M5"],
                  turn=0, called=[True, False, False])
    state, _ = act(state, 0, {"type": "draw"})
    assert E.result(state)["points"] == 3 + 27 + 15
    assert E.result(state)["deltas"] == [90, -45, -45]


def test_a_waiting_player_wins_on_the_previous_players_discard():
    # seat 1 waits for a 9; seat 0 (on seat 1's right) throws S9; seat 1 takes it on its own turn
    state = build([["C3"] * 4 + ["C4"] * 3 + ["S9"], READY_A, ["M3"] * 4 + ["M4"] * 4], stock_top=["RF"],
                  turn=0, called=[False, True, False])
    state, _ = act(state, 0, {"type": "draw"})
    state, _ = act(state, 0, {"type": "discard", "card": "S9"})
    assert state["turn"] == 1 and {"type": "take"} in E.legal_moves(state, 1)
    state, events = act(state, 1, {"type": "take"})
    assert events[0]["source"] == "discard" and E.result(state)["winner"] == 1
    assert E.result(state)["deltas"] == [-36, 72, -36]


def test_a_waiting_player_may_win_on_a_value_they_discarded_earlier():
    # seat 0 waits for a 9 and itself discarded C9 before calling; nothing forbids taking a 9 later
    state = build([READY_A, ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 3 + ["M9"]], stock_top=["RF"],
                  pile=["C9"], turn=2, called=[True, False, False])
    state, _ = act(state, 2, {"type": "draw"})
    state, _ = act(state, 2, {"type": "discard", "card": "M9"})
    state, _ = act(state, 0, {"type": "take"})
    assert E.result(state)["winner"] == 0


def test_several_callers_whoever_completes_first_on_their_own_turn_wins():
    ready_b = ["C3", "S3", "M3", "C4", "S4", "M4", "C6", "S6"]   # waits for a 6
    # seats 0 and 1 both wait; seat 2 throws a 6 which seat 0 (after seat 2) reaches first,
    # seat 1 never gets the chance (no claims out of turn)
    state = build([READY_A, ready_b, ["C5"] * 4 + ["S5"] * 3 + ["M6"]], stock_top=["WF", "RF", "OT"],
                  turn=2, called=[True, True, False])
    state, _ = act(state, 2, {"type": "draw"})
    state, _ = act(state, 2, {"type": "discard", "card": "M6"})
    assert state["turn"] == 0
    assert E.legal_moves(state, 0) == [{"type": "draw"}]         # M6 is seat 1's card, not seat 0's
    refused(state, 1, {"type": "take"}, "not_your_turn")
    state, _ = act(state, 0, {"type": "draw"})                   # RF: forced discard, covering the M6
    assert state["pile"][-1] == "RF" and state["turn"] == 1
    assert E.legal_moves(state, 1) == [{"type": "draw"}]
    state, _ = act(state, 1, {"type": "draw"})                   # OT: forced discard
    assert not state["over"] and state["called"] == [True, True, False]


def test_several_callers_the_first_to_complete_wins_from_the_stock():
    ready_b = ["C3", "S3", "M3", "C4", "S4", "M4", "C6", "S6"]
    state = build([READY_A, ready_b, ["C5"] * 4 + ["S5"] * 4], stock_top=["WF", "M6", "M9"],
                  turn=2, called=[True, True, False])
    state, _ = act(state, 2, {"type": "draw"})
    state, _ = act(state, 2, {"type": "discard", "card": "WF"})
    state, _ = act(state, 0, {"type": "draw"})                   # M6 completes seat 1, not seat 0
    assert not state["over"] and state["pile"][-1] == "M6" and state["turn"] == 1
    state, _ = act(state, 1, {"type": "take"})
    assert E.result(state)["winner"] == 1


# ----- void deals ------------------------------------------------------------------------

def test_stock_out_voids_the_deal_and_the_next_dealer_redeals():
    state = build([["C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8"], ["S1"] * 4 + ["S2"] * 4, ["M1"] * 4 + ["M2"] * 4],
                  stock_top=["WF"], stock_size=1, turn=0, called=[False, True, False])
    assert state["dealer"] == 2 and state["deal"] == 0
    state, _ = act(state, 0, {"type": "draw"})
    assert E.stock_left(state) == 0
    state, events = act(state, 0, {"type": "discard", "card": "WF"}, now=7000)
    assert [e["type"] for e in events] == ["discard", "deal_void", "deal"]
    assert events[1] == {"type": "deal_void", "deal": 0, "reason": "stock_out"}
    # next deal index, next dealer (on the left), its own shuffle, calls cleared, nothing settled
    assert state["deal"] == 1 and state["dealer"] == 0 and state["turn"] == 1
    assert state["void_deals"] == 1 and state["called"] == [False, False, False] and state["pile"] == []
    assert state["shuffles"][-1]["round"] == 1 and state["shuffles"][-1]["purpose"] == "kocok"
    order = fairness.shuffle(SEED, 1, "kocok", list(fairness.CHERKI_DECK))
    assert state["shuffles"][-1]["result"] == order
    assert state["hands"][1] == sort_cards(order[0:2] + order[6:8] + order[12:14] + order[18:20])
    assert state["stock"] == order[24:] and not state["over"]
    assert E.deadline(state) == {"seat": 1, "since_ms": 7000, "limit_ms": None}
    assert E.view(state, 0)["scores"] == [0, 0, 0]


def test_a_win_on_the_last_stock_card_stands():
    state = build([READY_A, ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 4], stock_top=["C9"], stock_size=1,
                  turn=0, called=[True, False, False])
    state, _ = act(state, 0, {"type": "draw"})
    assert state["over"] and E.result(state)["winner"] == 0


def test_a_waiting_players_forced_discard_of_the_last_card_ends_the_deal():
    state = build([READY_A, ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 4], stock_top=["C5"], stock_size=1,
                  turn=0, called=[True, False, False])
    state, events = act(state, 0, {"type": "draw"})
    assert events[2] == {"type": "deal_void", "deal": 0, "reason": "stock_out"}
    assert state["deal"] == 1 and state["void_deals"] == 1


def test_a_deal_reaching_200_turns_is_void():
    state = build([["C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8"], ["S1"] * 4 + ["S2"] * 4, ["M1"] * 4 + ["M2"] * 4],
                  pile=["WF"], turn=0, turns=TURN_LIMIT - 2)
    state, _ = act(state, 0, {"type": "take"})
    state, _ = act(state, 0, {"type": "discard", "card": "C1"})
    assert state["turns"] == TURN_LIMIT - 1 and state["deal"] == 0
    state, _ = act(state, 1, {"type": "take"})
    state, events = act(state, 1, {"type": "discard", "card": "S1"})
    assert events[1] == {"type": "deal_void", "deal": 0, "reason": "turn_limit"}
    assert state["deal"] == 1 and state["turns"] == 0


def test_three_void_deals_in_a_row_end_the_game_with_nothing_settled():
    state = E.new(SEED, 3)
    for d in range(3):
        assert state["deal"] == d and not state["over"]
        # cut this deal's stock to one card so the next turn ends it
        s = dict(state)
        s["pile"] = s["stock"][:-1]
        s["stock"] = s["stock"][-1:]
        state = s
        seat = state["turn"]
        state, _ = act(state, seat, {"type": "draw"})
        state, events = act(state, seat, E.timeout_move(state, seat))
    assert state["over"] and state["void_deals"] == 3 and len(state["shuffles"]) == 3
    assert events[-1]["type"] == "game_over"
    result = E.result(state)
    assert result["ranks"] == [1, 1, 1] and result["winners"] == [0, 1, 2]
    assert result["winner"] is None and result["void"] and not result["settled"]
    assert result["deltas"] == [0, 0, 0] and result["cards"] == []
    assert E.deadline(state) is None and E.to_act(state) == []
    assert SEED.hex() not in json.dumps(E.view(state, 0)) and E.proof(state)["seed"] == SEED.hex()
    assert E.replay_view(state)["seed"] == SEED.hex()


# ----- timeouts --------------------------------------------------------------------------

def test_timeout_draws_then_discards_the_drawn_card_at_once():
    state = build([READY_A, ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 4], stock_top=["M9"], turn=0)
    assert E.deadline(state) == {"seat": 0, "since_ms": None, "limit_ms": None}
    move = E.timeout_move(state, 0)
    assert move == {"type": "draw", "auto": True}
    state, _ = act(state, 0, move, now=20_000)
    assert E.deadline(state) == {"seat": 0, "since_ms": 20_000, "limit_ms": 0}
    move = E.timeout_move(state, 0)
    # never calls, even though keeping READY_A + throwing M9 ... or any ready shape would allow it
    assert move == {"type": "discard", "card": "M9", "call": False, "auto": True}
    state, _ = act(state, 0, move, now=20_001)
    assert state["called"] == [False, False, False] and state["pile"] == ["M9"]
    # "auto" is only on the moves the timer makes (draw, discard): an automatic call is not a move
    refused(build([READY_A, ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 4], turn=0), 0,
            {"type": "call", "auto": True}, "malformed")
    drawn, _ = act(build([READY_A, ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 4], stock_top=["M9"], turn=0),
                   0, {"type": "draw"}, now=1000)
    refused(drawn, 0, {"type": "discard", "card": "M9", "call": True, "auto": True}, "auto_cannot_call")


def test_timeout_after_a_take_throws_the_first_other_card_in_canonical_order():
    state = build([["C2", "C3", "S1", "M4", "WF", "RF", "OT", "C9"], ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 3 + ["M5"]],
                  pile=["C1"], turn=0)
    state, _ = act(state, 0, {"type": "take"}, now=3000)
    assert E.deadline(state) == {"seat": 0, "since_ms": None, "limit_ms": None}  # the turn's own timer
    assert E.timeout_move(state, 0) == {"type": "discard", "card": "C2", "call": False, "auto": True}


def test_timeout_for_a_waiting_caller_draws_and_wins_if_it_completes():
    state = build([READY_A, ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 4], stock_top=["S9"], pile=["C9"],
                  turn=0, called=[True, False, False])
    move = E.timeout_move(state, 0)
    assert move == {"type": "draw", "auto": True}    # never the completing take
    state, _ = act(state, 0, move)
    assert E.result(state)["winner"] == 0 and state["win"]["source"] == "stock"


# ----- leave, bad input, views ------------------------------------------------------------

def test_leave_keeps_the_seat_in_play_by_automatic_moves():
    state = E.new(SEED, 3)
    state, events = act(state, 0, {"type": "leave"}, now=500)
    assert events == [{"type": "leave", "seat": 0}] and state["left"] == [True, False, False]
    refused(state, 0, {"type": "leave"}, "already_left")
    assert state["moves"][-1]["move"] == {"type": "leave"}
    # seat 2 (the dealer's left) plays; seat 0's turn comes next and is automatic, due at once
    assert E.deadline(state) == {"seat": 2, "since_ms": None, "limit_ms": None}
    state, _ = act(state, 2, {"type": "draw"}, now=600)
    state, _ = act(state, 2, E.timeout_move(state, 2), now=700)
    assert state["turn"] == 0
    assert E.deadline(state) == {"seat": 0, "since_ms": 700, "limit_ms": 0}
    state, _ = act(state, 0, E.timeout_move(state, 0), now=701)
    assert E.deadline(state) == {"seat": 0, "since_ms": 701, "limit_ms": 0}
    state, _ = act(state, 0, E.timeout_move(state, 0), now=702)
    assert state["turn"] == 1 and E.deadline(state) == {"seat": 1, "since_ms": 702, "limit_ms": None}


def test_time_never_runs_backwards():
    # Issue 20: a move stamped earlier than the last logged move is refused (time_backwards, the
    # code Lembar uses too) and changes nothing; the same millisecond is fine (a chain of automatic
    # moves may share one).
    state, _ = act(E.new(SEED, 3), 2, {"type": "draw"}, now=5000)
    assert state["last_move_ms"] == 5000
    card = state["drawn"]
    for seat, move in [(2, {"type": "discard", "card": card}), (1, {"type": "leave"}),
                       (2, E.timeout_move(state, 2))]:
        before = copy.deepcopy(state)
        with pytest.raises(IllegalMove) as info:
            E.apply(state, seat, move, now_ms=4999)
        assert info.value.code == "time_backwards", info.value.message
        assert state == before
    # a seat not on turn is refused as such: the envelope checks the turn before the clock
    with pytest.raises(IllegalMove) as info:
        E.apply(state, 0, {"type": "draw"}, now_ms=1)
    assert info.value.code == "not_your_turn"
    state, _ = act(state, 2, {"type": "discard", "card": card}, now=5000)
    assert state["last_move_ms"] == 5000 and state["turn"] == 0


@pytest.mark.parametrize("seat,move,code", [
    (2, None, "malformed"),
    (2, {"type": 3}, "malformed"),
    (2, {"type": "draw", "extra": 1}, "malformed"),
    (2, {"type": "draw", "auto": "yes"}, "malformed"),
    (2, {"type": "fly"}, "unknown_move"),
    (True, {"type": "draw"}, "bad_seat"),
    (3, {"type": "draw"}, "bad_seat"),
    (None, {"type": "draw"}, "bad_seat"),
    (0, {"type": "draw"}, "not_your_turn"),
    (2, {"type": "discard", "card": "C1"}, "wrong_phase"),
])
def test_bad_input_is_refused_with_a_stable_code(seat, move, code):
    refused(E.new(SEED, 3), seat, move, code)


def test_legal_moves_of_odd_seats_are_empty():
    state = E.new(SEED, 3)
    assert [E.legal_moves(state, s) for s in (0, 1, 2.0, True, None, "2", 7)] == [[]] * 7
    assert E.legal_moves(state, 2) == [{"type": "draw"}]


@pytest.mark.parametrize("card,code", [(None, "malformed"), (5, "malformed"), ("ZZ", "malformed"),
                                       (True, "malformed"), ("OT", "card_not_held")])
def test_bad_discards_are_refused(card, code):
    state = build([["C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8"], ["S1"] * 4 + ["S2"] * 4, ["M1"] * 4 + ["M2"] * 4],
                  stock_top=["WF"], turn=0)
    state, _ = act(state, 0, {"type": "draw"})
    refused(state, 0, {"type": "discard", "card": card}, code)


def test_views_hide_other_hands_the_stock_and_the_seed():
    state = E.new(SEED, 3)
    for seat in (0, 1, 2, None):
        view = E.view(state, seat)
        text = json.dumps(view)
        assert SEED.hex() not in text and "stock" not in view
        assert view["counts"] == [8, 8, 8] and view["stock_count"] == 96 and view["to_act"] == [2]
        if seat is not None:
            assert view["hand"] == state["hands"][seat]
        else:
            assert "hand" not in view
    replay = E.replay_view(state)
    assert replay["hands"] == state["hands"] and replay["stock"] == state["stock"]


def test_replaying_the_move_log_reproduces_the_game():
    state = E.new(SEED, 3)
    now = 0
    while not state["over"]:
        now += 400
        seat = E.deadline(state)["seat"]
        state, _ = E.apply(state, seat, E.timeout_move(state, seat), now_ms=now)
    replay = E.new(SEED, 3)
    for entry in state["moves"]:
        replay, _ = E.apply(replay, entry["seat"], entry["move"], now_ms=entry["now_ms"])
    assert replay == state
    # all-automatic play never calls, so nobody can win: three void deals
    assert E.result(state)["void"] and state["void_deals"] == 3


def test_a_win_during_the_200th_turn_stands():
    state = build([READY_A, ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 4], stock_top=["C9"],
                  turn=0, called=[True, False, False], turns=TURN_LIMIT - 1)
    state, _ = act(state, 0, {"type": "draw"})
    assert E.result(state)["winner"] == 0 and state["deal"] == 0


def test_discarding_a_known_face_forgets_one_public_copy():
    state = build([["C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8"], ["S1"] * 4 + ["S2"] * 4, ["M1"] * 4 + ["M2"] * 4],
                  pile=["C5"], stock_top=["WF", "RF", "OT"], turn=0)
    state, _ = act(state, 0, {"type": "take"})
    state, _ = act(state, 0, {"type": "discard", "card": "C1"})
    assert state["known"][0] == ["C5"] and state["hands"][0].count("C5") == 2
    for seat in (1, 2):
        state, _ = act(state, seat, {"type": "draw"})
        state, _ = act(state, seat, E.timeout_move(state, seat))
    state, _ = act(state, 0, {"type": "draw"})
    state, _ = act(state, 0, {"type": "discard", "card": "C5"})
    # one C5 is still held, but nobody can tell whether it is the one taken
    assert state["known"][0] == [] and state["hands"][0].count("C5") == 1
    assert Counter(E.hidden_cards(state, 1))["C5"] == 1 + 2


def test_leave_after_the_end_is_refused():
    state = build([READY_A, ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 4], stock_top=["C9"],
                  turn=0, called=[True, False, False])
    state, _ = act(state, 0, {"type": "draw"})
    refused(state, 1, {"type": "leave"}, "game_over")


# ----- audit: spec points not pinned down above ------------------------------------------

def test_a_ready_hand_that_has_not_called_cannot_win():
    # "Calling is optional, but only a caller can win": the completing discard just joins the hand
    state = build([READY_A, ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 4], pile=["M9"], turn=0)
    state, events = act(state, 0, {"type": "take"})
    assert events == [{"type": "take", "seat": 0, "card": "M9"}]
    assert not state["over"] and state["phase"] == "discard" and len(state["hands"][0]) == 9
    state, events = act(state, 0, {"type": "discard", "card": "C1"})
    assert not state["over"] and state["turn"] == 1 and E.result(state)["winner"] is None


def test_a_pair_sharing_the_triples_value_wins_on_that_value():
    hand = ["C7", "S7", "M7", "C7", "S7", "C8", "S8", "M8"]     # 5 + 3: waits for a 7
    state = build([hand, ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 4], stock_top=["C8", "WF", "RF", "M7"],
                  turn=0, called=[True, False, False])
    state, events = act(state, 0, {"type": "draw"})              # C8 would make four 8s: thrown
    assert events[1] == {"type": "discard", "seat": 0, "card": "C8", "forced": True} and not state["over"]
    for seat in (1, 2):
        state, _ = act(state, seat, {"type": "draw"})
        state, _ = act(state, seat, E.timeout_move(state, seat))
    state, _ = act(state, 0, {"type": "draw"})
    assert E.result(state)["winner"] == 0
    assert E.result(state)["points"] == 6 * 7 + 3 * 8 and E.result(state)["deltas"] == [132, -66, -66]


def test_the_dealer_moves_left_on_every_void_deal():
    state = E.new(SEED, 3)
    dealers = [state["dealer"]]
    for _ in range(2):
        s = dict(state)
        s["pile"] = s["stock"][:-1]
        s["stock"] = s["stock"][-1:]
        seat = s["turn"]
        s, _ = act(s, seat, {"type": "draw"})
        state, _ = act(s, seat, E.timeout_move(s, seat))
        dealers.append(state["dealer"])
        assert state["turn"] == (state["dealer"] + 1) % 3 and state["pile"] == []
    assert dealers == [VECTOR_FIRST_3, (VECTOR_FIRST_3 + 1) % 3, (VECTOR_FIRST_3 + 2) % 3]
    assert [sh["round"] for sh in state["shuffles"]] == [0, 1, 2]


def test_timeout_after_a_take_skips_every_copy_of_the_taken_face():
    state = build([["C1", "C3", "S1", "M4", "WF", "RF", "OT", "C9"], ["S3"] * 4 + ["S4"] * 4, ["M3"] * 4 + ["M4"] * 3 + ["M5"]],
                  pile=["C1"], turn=0)
    state, _ = act(state, 0, {"type": "take"})
    assert state["hands"][0][:2] == ["C1", "C1"]
    assert E.timeout_move(state, 0) == {"type": "discard", "card": "C3", "call": False, "auto": True}
