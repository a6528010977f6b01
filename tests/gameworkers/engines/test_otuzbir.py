"""Golden scenarios for 31 (Otuz bir): every rule of otuzbir.md, with exact outcomes.

Positions are built by starting a table with an explicit ebe and putting chosen cards on top of
the current hand's deck (the hand's first cards go one closed card each in play order, then draws).
"""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from gameworkers.engines import IllegalMove, fairness, get_engine
from gameworkers.engines import otuzbir as o

ENGINE = get_engine("otuzbir")
SEED = bytes(range(32))
ROOT = Path(__file__).resolve().parents[3]


def table(n: int, ebe: int, top: list[str], **options) -> dict:
    """A table whose first hand deals ``top`` first (closed cards in play order, then draws)."""
    state = ENGINE.new(SEED, n, {"ebe": ebe, **options})
    assert len(set(top)) == len(top)
    state["deck"] = list(top) + [c for c in fairness.OTUZBIR_DECK if c not in top]
    return state


def play(state: dict, moves: list[tuple[int, dict]], now: int | None = None) -> tuple[dict, list[dict]]:
    if now is None:  # time never runs backwards: go on from the last move (issue 20)
        now = max(1000, (state["last_move_ms"] or 0) + 100)
    events: list[dict] = []
    for seat, move in moves:
        before = copy.deepcopy(state)
        state, ev = ENGINE.apply(state, seat, move, now_ms=now)
        assert before != state
        events += ev
        now += 100
    return state, events


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


PASS = {"type": "pass"}
OPEN = {"type": "open"}
STAND = {"type": "stand"}
SEE = {"type": "see"}
FOLD = {"type": "fold"}


def closed(a: int) -> dict:
    return {"type": "closed", "amount": a}


def raise_stand(a: int) -> dict:
    return {"type": "raise_stand", "amount": a}


# ----- hand values ---------------------------------------------------------------------

@pytest.mark.parametrize("cards, expected", [
    (["SA", "HK", "DQ"], "31"),             # 11 + 10 + 10
    (["S5", "H6", "D9", "CA", "HT"], "31"),  # 5+6+9+1+10
    (["SA", "HA"], "cin"),
    (["SJ", "HJ"], "cengel"),
    (["C5", "C9"], "yonca"),                 # also 14: the better category counts
    (["CK", "CQ"], "yonca"),
    (["S5", "H9"], "14"),
    (["SA", "H8", "D5"], "14"),              # 14 or 24: 14 is the hand
    (["S2", "H3", "D4", "C5"], "14"),        # 14 with any number of cards
    (["SA", "HA", "D5"], "27"),              # a third card gives up Cin
    (["C2", "C3", "C4"], "none"),            # Yonca needs exactly two cards
    (["SK", "HQ"], "none"),                  # 20: may not stand
    (["SK", "HQ", "D6"], "26"),
    (["SK", "HQ", "D9"], "29"),
    (["SK", "HQ", "DA", "C9"], "30"),        # the Ace counts 1
    (["SK", "HQ", "D9", "C3"], "bust"),
])
def test_hand_categories(cards, expected):
    assert o.category(o.hand_score(cards)) == expected


def test_category_order_is_31_cin_cengel_yonca_14_then_totals():
    hands = [["SA", "HK", "DQ"], ["SA", "HA"], ["SJ", "HJ"], ["C2", "C3"], ["S5", "H9"],
             ["SK", "HQ", "DQ"], ["SK", "HQ", "D6"]]
    scores = [o.hand_score(h) for h in hands]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == len(scores)


# ----- ebe -----------------------------------------------------------------------------

def _verifier_ebe(seed: bytes, n: int) -> int:
    sys.path.insert(0, str(ROOT / "tools"))
    import verify_proof  # noqa: PLC0415 - the independent re-implementation

    return verify_proof.otuzbir_ebe(verify_proof.shuffle(seed, 0, "ebe", list(fairness.OTUZBIR_DECK)), n)


def test_ebe_draw_published_seed_and_tied_redraws():
    # Seed 00..1f: the published 0:ebe shuffle begins D8 S9 S5, so S9 (seat 1) is highest;
    # the state records the draw and the 0:ebe shuffle for the proof.
    # The suite's copy of ../shared/spec/fairness-vectors.json (test_fairness checks it equals the spec).
    vector = json.loads((Path(__file__).parent / "fairness-vectors.json").read_text())["vectors"][0]
    assert vector["otuzbir_ebe"][:3] == ["D8", "S9", "S5"]
    state = ENGINE.new(SEED, 3)
    assert state["ebe_draw"] == [[{"seat": 0, "card": "D8"}, {"seat": 1, "card": "S9"}, {"seat": 2, "card": "S5"}]]
    assert state["first"] == state["ebe"] == 1 and state["order"] == [2, 0, 1]
    assert state["shuffles"][0]["purpose"] == "ebe" and state["shuffles"][1]["purpose"] == "kocok"
    # find seeds with a tie: only the tied players draw again, in seat order, from the next cards
    found = 0
    for k in range(200):
        seed = bytes([k]) * 32
        first, rounds, cards = o.ebe_draw(seed, 4)
        assert first == _verifier_ebe(seed, 4)
        if len(rounds) > 1:
            found += 1
            tops = [o.EBE_VALUE[x["card"]] for x in rounds[0]]
            tied = [x["seat"] for x in rounds[0] if o.EBE_VALUE[x["card"]] == max(tops)]
            assert [x["seat"] for x in rounds[1]] == tied
            assert [x["card"] for x in rounds[1]] == cards[4:4 + len(tied)]
    assert found > 5


def test_play_order_starts_from_ebe_alti():
    state = table(4, 2, [])
    assert state["order"] == [3, 0, 1, 2] and ENGINE.to_act(state) == [3]


# ----- the hand --------------------------------------------------------------------------

def test_antes_deal_order_and_open_cards():
    # 3 seats, ebe 0: order 1, 2, 0; closed cards S2 -> 1, S3 -> 2, S4 -> 0
    state = table(3, 0, ["S2", "S3", "S4", "HK"], ante=5)
    assert state["pot"] == 15 and state["contrib"] == [5, 5, 5]
    state, ev = play(state, [(1, PASS)])
    assert state["closed"] == [["S4"], ["S2"], ["S3"]] and state["turn"] == 1
    state, ev = play(state, [(1, OPEN)])
    assert state["open"][1] == ["HK"]
    assert ev[0] == {"type": "open_card", "seat": 1, "card": "HK"}
    assert ENGINE.to_act(state) == [1]  # drawing does not pass the turn


def test_standing_below_26_is_refused_and_14_24_choice():
    # seat 1: SA closed, H8 and D5 open -> 14 or 24; may stand on 14 or draw on for 31
    top = ["SA", "S9", "H8", "D5", "D7"]
    state, _ = play(table(2, 0, top), [(1, PASS), (1, OPEN)])
    assert o.category(o.hand_score(state["closed"][1] + state["open"][1])) == "none"  # 19
    with pytest.raises(IllegalMove) as exc:
        ENGINE.apply(state, 1, STAND, now_ms=state["last_move_ms"])
    assert exc.value.code == "cannot_stand"
    assert STAND not in ENGINE.legal_moves(state, 1)
    state, _ = play(state, [(1, OPEN)])
    assert STAND in ENGINE.legal_moves(state, 1) and OPEN in ENGINE.legal_moves(state, 1)
    stood, _ = play(state, [(1, STAND)])
    assert stood["status"][1] == "stood" and stood["turn"] == 0
    drew, ev = play(state, [(1, OPEN)])  # D7: 11 + 8 + 5 + 7 = 31 ends the turn at once
    assert drew["status"][1] == "31" and of_type(ev, "made_31") == [{"type": "made_31", "seat": 1}]
    assert drew["turn"] == 0


def _showdown(n: int, ebe: int, hands: dict[int, list[str]]) -> tuple[dict, list[dict]]:
    """Deal each seat's first card, then each player draws its other cards open and stands."""
    state = table(n, ebe, [])
    order = state["order"]
    top = [hands[s][0] for s in order] + [c for s in order for c in hands[s][1:]]
    state["deck"] = top + [c for c in fairness.OTUZBIR_DECK if c not in top]
    state, events = play(state, [(order[0], PASS)])
    for s in order:
        for _ in hands[s][1:]:
            state, ev = play(state, [(s, OPEN)])
            events += ev
        if state["hand"] == 0 and state["status"][s] == "in":
            state, ev = play(state, [(s, STAND)])
            events += ev
    return state, events


@pytest.mark.parametrize("hands, winner", [
    ({0: ["SA", "HK", "DQ"], 1: ["CA", "DA"], 2: ["SJ", "HJ"]}, 0),    # 31 beats Cin and Çengel
    ({0: ["H9", "H5"], 1: ["CA", "DA"], 2: ["SJ", "HJ"]}, 1),           # Cin beats Çengel and 14
    ({0: ["H9", "H5"], 1: ["C2", "C3"], 2: ["SJ", "HJ"]}, 2),           # Çengel beats Yonca
    ({0: ["H9", "H5"], 1: ["C2", "C3"], 2: ["SK", "HQ", "D9"]}, 1),     # Yonca beats 14 and 29
    ({0: ["H9", "H5"], 1: ["SK", "HQ", "DT"], 2: ["SK", "SQ", "S9"]}, 0),  # 14 beats 30
])
def test_special_hands_at_showdown(hands, winner):
    state, events = _showdown(3, 2, hands)
    over = of_type(events, "hand_over")[0]
    assert over["winner"] == winner
    # everyone in the final comparison reveals
    assert [r is not None for r in over["revealed"]] == [True, True, True]
    assert state["ebe"] == (winner if o.category(o.hand_score(hands[winner])) == "31" else 2)


def test_equal_hands_ebe_first_then_play_order_from_ebe_alti():
    # 27 against 27: the ebe (seat 2) wins
    hands = {0: ["SK", "HQ", "D7"], 1: ["S9", "H8", "DT"], 2: ["CK", "CQ", "C7"]}
    _, events = _showdown(3, 2, hands)
    assert of_type(events, "hand_over")[0]["winner"] == 2
    # the ebe not among the tied: the first in play order from ebe altı (order 0, 1, 2 -> seat 0)
    hands = {0: ["SK", "HQ", "D7"], 1: ["S9", "H8", "DT"], 2: ["CK", "CQ", "C6"]}
    _, events = _showdown(3, 2, hands)
    assert of_type(events, "hand_over")[0]["winner"] == 0
    # every 31 ties every 31: the ebe keeps the deal when its 31 ties
    hands = {0: ["SA", "HK", "DQ"], 1: ["S9", "H8", "DT"], 2: ["CK", "CQ", "C9", "H2"]}
    state, events = _showdown(3, 2, hands)
    assert of_type(events, "hand_over")[0]["winner"] == 2 and state["ebe"] == 2


def test_closed_card_raise_answered_by_fold():
    # 3 seats, ebe 0, order 1 2 0. Seat 1 buys a closed card with a raise of 3; both fold.
    state = table(3, 0, ["S2", "S3", "S4", "HK"])
    state, ev = play(state, [(1, PASS), (1, closed(3))])
    assert state["phase"] == "answer" and ENGINE.to_act(state) == [2]
    assert state["pot"] == 6 and state["contrib"] == [1, 4, 1]
    state, ev = play(state, [(2, FOLD), (0, FOLD)])
    over = of_type(ev, "hand_over")[0]
    assert over["winner"] == 1 and over["pot"] == 6 and over["payouts"] == [0, 6, 0]
    assert over["revealed"] == [None, None, None]  # won without showing
    assert "closed_card" not in [e["type"] for e in ev]  # no card once nobody is left to answer
    assert state["net"] == [-1, 2, -1] and state["hand"] == 1 and state["ebe"] == 0


def test_closed_card_raise_answered_by_see_deals_a_private_card():
    state = table(3, 0, ["S2", "S3", "S4", "HK"])
    state, ev = play(state, [(1, PASS), (1, closed(2)), (2, SEE), (0, FOLD)])
    assert state["closed"][1] == ["S2", "HK"] and state["pot"] == 7 and state["contrib"] == [1, 3, 3]
    assert {"type": "closed_card", "seat": 1} in ev
    assert "HK" not in json.dumps(ev)  # events are public: the bought card is not in them
    assert "HK" not in json.dumps(ENGINE.view(state, 2)) and "HK" in json.dumps(ENGINE.view(state, 1))
    assert state["status"] == ["folded", "in", "in"] and ENGINE.to_act(state) == [1]


def test_answers_go_from_ebe_alti_skipping_raiser_and_include_stood_and_31_players():
    # 4 seats, ebe 0, order 1 2 3 0. Seat 1 makes 31 (S2 + H9 + HK + HQ? 2+9+10+10 = 31),
    # seat 2 stands on 27, seat 3 raises: answers 1, 2, 0 (from ebe altı, skipping seat 3).
    top = ["S2", "SK", "S5", "S6", "H9", "HK", "HQ", "DK", "D7"]
    state = table(4, 0, top)
    state, ev = play(state, [(1, PASS), (1, OPEN), (1, OPEN), (1, OPEN)])
    assert state["status"][1] == "31" and state["turn"] == 2
    state, ev = play(state, [(2, OPEN), (2, OPEN)])  # SK DK D7 = 27
    state, ev = play(state, [(2, STAND), (3, closed(2))])
    assert state["raise"]["queue"] == [1, 2, 0]
    with pytest.raises(IllegalMove) as exc:
        ENGINE.apply(state, 3, {"type": "raise", "amount": 1}, now_ms=state["last_move_ms"])  # no re-raise while answering
    assert exc.value.code == "not_your_turn"
    with pytest.raises(IllegalMove) as exc:
        ENGINE.apply(state, 1, closed(1), now_ms=state["last_move_ms"])
    assert exc.value.code == "wrong_phase"
    assert ENGINE.legal_moves(state, 1) == [SEE, FOLD]
    state, _ = play(state, [(1, SEE), (2, SEE), (0, SEE)])
    assert state["pot"] == 4 + 2 + 3 * 2 and state["contrib"] == [3, 3, 3, 3]
    assert state["turn"] == 3 and state["closed"][3] == ["S5", "S3"]  # S3: the first card after ``top``


def test_raise_and_stand_needs_a_standing_hand_and_stands_after_the_answers():
    # 3 seats, ebe 0, order 1 2 0. Seat 1: SK | HQ (20) may not raise-and-stand; + D7 = 27 may.
    top = ["SK", "S3", "S4", "HQ", "D7", "HK", "C9", "C5"]
    state, _ = play(table(3, 0, top), [(1, PASS), (1, OPEN)])
    with pytest.raises(IllegalMove) as exc:
        ENGINE.apply(state, 1, raise_stand(1), now_ms=state["last_move_ms"])
    assert exc.value.code == "cannot_stand"
    assert not [m for m in ENGINE.legal_moves(state, 1) if m["type"] == "raise_stand"]
    state, ev = play(state, [(1, OPEN), (1, raise_stand(2))])
    assert ev[-1] == {"type": "raise", "seat": 1, "amount": 2, "kind": "stand", "pot": 5}
    assert state["phase"] == "answer" and state["raise"]["queue"] == [2, 0]
    # everyone folds: the raiser wins at once without showing, and the ebe stays
    alone, ev = play(state, [(2, FOLD), (0, FOLD)])
    over = of_type(ev, "hand_over")[0]
    assert over["winner"] == 1 and over["payouts"] == [0, 5, 0] and over["revealed"] == [None, None, None]
    assert alone["ebe"] == 0
    # both see: the raiser stands, the turn passes; the stood raiser answers the next raise
    state, ev = play(state, [(2, SEE), (0, SEE)])
    assert state["status"] == ["in", "stood", "in"] and state["turn"] == 2
    assert state["pot"] == 9 and state["contrib"] == [3, 3, 3]
    assert [e["type"] for e in ev] == ["see", "see", "stand", "turn"]
    state, _ = play(state, [(2, OPEN), (2, closed(1))])  # S3 HK = 13, buys a closed card
    assert state["raise"]["queue"] == [1, 0]
    state, ev = play(state, [(1, SEE), (0, FOLD), (2, OPEN), (2, STAND)])  # S3 HK C9 C5 = 27
    over = of_type(ev, "hand_over")[0]
    # 27 against 27 without the ebe: the first in play order (seat 1) wins; the folder never shows
    assert over["winner"] == 1 and over["pot"] == 11 and over["contributions"] == [3, 4, 4]
    assert over["revealed"] == [None, ["SK", "HQ", "D7"], ["S3", "C9", "HK", "C5"]]


def test_a_raiser_leaving_mid_answer_ends_the_raise_and_play_goes_on():
    # 4 seats, ebe 0, order 1 2 3 0: seat 1 buys a closed card for 2, seat 2 sees, seat 1 leaves.
    state = table(4, 0, ["S2", "S3", "S4", "S5", "H9"])
    state, ev = play(state, [(1, PASS), (1, closed(2)), (2, SEE), (1, {"type": "leave"})])
    assert state["raise"] is None and state["phase"] == "turn" and ENGINE.to_act(state) == [2]
    assert state["status"] == ["in", "folded", "in", "in"]
    assert state["contrib"] == [1, 3, 3, 1] and state["pot"] == 8  # the seen chips stay in the pot
    assert state["closed"][1] == ["S2"] and "H9" in state["deck"][state["pos"]:]  # no card dealt
    assert "closed_card" not in [e["type"] for e in ev]


def test_a_player_holding_31_may_fold_to_a_raise():
    # order 1 2 0: seat 1 makes 31 (S2 H9 HK HQ), seat 2 raises, seat 1 folds its 31
    top = ["S2", "S3", "S4", "H9", "HK", "HQ"]
    state, _ = play(table(3, 0, top), [(1, PASS), (1, OPEN), (1, OPEN), (1, OPEN)])
    assert state["status"][1] == "31" and ENGINE.legal_moves(state, 2)
    state, _ = play(state, [(2, closed(1))])
    assert ENGINE.legal_moves(state, 1) == [SEE, FOLD]
    state, _ = play(state, [(1, FOLD)])
    assert state["status"][1] == "folded" and ENGINE.to_act(state) == [0]


def test_predeal_raise_everyone_folds_without_cards():
    state = table(4, 0, [])
    state, ev = play(state, [(1, {"type": "raise", "amount": 4})])
    assert state["phase"] == "predeal_answer" and state["raise"]["queue"] == [2, 3, 0]
    state, ev = play(state, [(2, FOLD), (3, FOLD), (0, FOLD)])
    over = of_type(ev, "hand_over")[0]
    assert over["winner"] == 1 and over["pot"] == 8 and over["contributions"] == [1, 5, 1, 1]
    assert "deal" not in [e["type"] for e in ev]
    assert state["hand"] == 1 and state["ebe"] == 0  # no 31: the ebe stays
    assert [s["round"] for s in state["shuffles"] if s["purpose"] == "kocok"] == [0, 1]


def test_predeal_raise_seen_then_dealt_only_to_those_in():
    state = table(3, 0, ["S2", "S3", "S4"])
    state, ev = play(state, [(1, {"type": "raise", "amount": 3}), (2, FOLD), (0, SEE)])
    assert state["closed"] == [["S3"], ["S2"], []] and state["pot"] == 9 and state["turn"] == 1


@pytest.mark.parametrize("move, code", [
    ({"type": "closed", "amount": 4}, "over_pot_limit"),
    ({"type": "closed", "amount": 0}, "bad_amount"),
    ({"type": "closed", "amount": True}, "bad_amount"),
    ({"type": "closed", "amount": 1.5}, "bad_amount"),
    ({"type": "closed"}, "malformed"),
    ({"type": "open", "card": "SA"}, "malformed"),
    ({"type": "open", "auto": False}, "malformed"),
    ({"type": "see"}, "wrong_phase"),
    ({"type": "dance"}, "unknown_move"),
    ("open", "malformed"),
])
def test_bad_moves_are_refused_and_change_nothing(move, code):
    state, _ = play(table(3, 0, []), [(1, PASS)])
    before = copy.deepcopy(state)
    with pytest.raises(IllegalMove) as exc:
        ENGINE.apply(state, 1, move, now_ms=state["last_move_ms"])
    assert exc.value.code == code and state == before
    ok, _ = ENGINE.apply(state, 1, {"type": "closed", "amount": 3}, now_ms=2000)  # the pot is 3
    assert ok["pot"] == 6
    for seat, c in ((True, "bad_seat"), (3, "bad_seat"), (-1, "bad_seat"), (2, "not_your_turn")):
        with pytest.raises(IllegalMove) as exc:
            ENGINE.apply(state, seat, OPEN, now_ms=state["last_move_ms"])
        assert exc.value.code == c


def test_legal_raises_are_concrete_from_one_to_the_pot():
    state, _ = play(table(5, 0, []), [(1, PASS)])
    amounts = [m["amount"] for m in ENGINE.legal_moves(state, 1) if m["type"] == "closed"]
    assert amounts == [1, 2, 3, 5]  # pot 5: 1, 5//4, 5//2, 15//4, 5


def test_hand_ends_when_one_player_is_left_by_bust():
    # two seats, ebe 0: seat 1 busts, seat 0 wins at once without acting or showing
    top = ["SK", "S2", "HK", "D5", "DK"]  # 10 + 10 + 5 + 10 = 35
    state, ev = play(table(2, 0, top), [(1, PASS), (1, OPEN), (1, OPEN), (1, OPEN)])
    over = of_type(ev, "hand_over")[0]
    assert of_type(ev, "bust") == [{"type": "bust", "seat": 1}]
    assert over["winner"] == 0 and over["revealed"] == [None, None] and over["showdown"] == []
    assert state["hand"] == 1


def test_ebe_moves_only_on_a_winning_31_including_when_left_alone():
    # seat 1 (ebe altı) wins with 29: ebe stays with seat 0
    hands = {1: ["SK", "HQ", "D9"], 0: ["S9", "H8", "DT"]}
    state, _ = _showdown(2, 0, hands)
    assert state["ebe"] == 0
    # seat 1 makes 31 (A K K, which ends its turn); seat 0 buys a closed card (14), draws on and
    # busts: seat 1 is left alone holding 31, wins without showing and becomes the ebe
    top = ["SA", "S9", "HK", "DK", "C5", "CK", "HQ"]
    state = table(2, 0, top)
    state, ev = play(state, [(1, PASS), (1, OPEN), (1, OPEN)])
    assert state["status"][1] == "31" and state["turn"] == 0
    state, ev = play(state, [(0, closed(1)), (1, SEE), (0, OPEN)])  # S9 C5 | CK = 24
    assert state["closed"][0] == ["S9", "C5"] and state["open"][0] == ["CK"] and state["ebe"] == 0
    state, ev = play(state, [(0, OPEN)])  # + HQ = 34
    over = of_type(ev, "hand_over")[0]
    assert over["winner"] == 1 and over["revealed"] == [None, None] and over["next_ebe"] == 1
    assert state["ebe"] == 1 and state["order"] == [0, 1]


def test_timeout_moves_and_deadlines():
    top = ["SK", "S2", "H3", "HK", "D6"]
    state = table(2, 0, top)
    assert ENGINE.deadline(state) == {"seat": 1, "since_ms": None, "limit_ms": None}
    assert ENGINE.timeout_move(state, 1) == {"type": "pass", "auto": True}
    state, _ = play(state, [(1, ENGINE.timeout_move(state, 1))], now=500)
    assert ENGINE.deadline(state) == {"seat": 1, "since_ms": 500, "limit_ms": None}
    assert ENGINE.timeout_move(state, 1) == {"type": "open", "auto": True}  # 10: may not stand
    state, _ = play(state, [(1, ENGINE.timeout_move(state, 1))], now=900)  # + H3 = 13
    assert ENGINE.deadline(state) == {"seat": 1, "since_ms": 900, "limit_ms": 0}
    state, _ = play(state, [(1, ENGINE.timeout_move(state, 1))], now=900)  # + HK = 23
    assert ENGINE.timeout_move(state, 1) == {"type": "open", "auto": True}
    state, _ = play(state, [(1, ENGINE.timeout_move(state, 1))], now=900)  # + D6 = 29
    assert ENGINE.timeout_move(state, 1) == {"type": "stand", "auto": True}
    state, _ = play(state, [(1, STAND)], now=2000)  # a player's own move ends the automatic run
    assert ENGINE.deadline(state) == {"seat": 0, "since_ms": 2000, "limit_ms": None}
    # answering: see with 31 or a special hand, else fold. Order 1 2 0: seat 1 stands on 14.
    state = table(3, 0, ["S5", "S3", "S4", "H9"])
    state, _ = play(state, [(1, PASS), (1, OPEN), (1, STAND), (2, closed(1))])
    assert ENGINE.to_act(state) == [1]
    assert ENGINE.timeout_move(state, 1) == {"type": "see", "auto": True}
    state, _ = play(state, [(1, ENGINE.timeout_move(state, 1))])
    assert ENGINE.timeout_move(state, 0) == {"type": "fold", "auto": True}  # S4 alone is 4
    # before the deal nobody has a hand: the automatic answer folds
    state, _ = play(table(3, 0, []), [(1, {"type": "raise", "amount": 1})])
    assert ENGINE.timeout_move(state, 2) == {"type": "fold", "auto": True}


def test_leave_is_a_fold_and_ebe_passes_to_ebe_alti():
    state = table(3, 0, ["S2", "S3", "S4"])
    state, ev = play(state, [(1, PASS), (0, {"type": "leave"})])
    assert state["status"][0] == "folded" and not state["in_table"][0] and ENGINE.to_act(state) == [1]
    state, ev = play(state, [(1, closed(1)), (2, FOLD)])
    assert of_type(ev, "hand_over")[0]["winner"] == 1
    assert state["ebe"] == 1 and state["order"] == [2, 1]  # ebe altı of the old ebe
    with pytest.raises(IllegalMove) as exc:
        ENGINE.apply(state, 0, {"type": "leave"}, now_ms=state["last_move_ms"])
    assert exc.value.code == "not_in_game"
    # the acting raiser leaving cancels the rest of its raise; one player left ends the table
    state, ev = play(state, [(2, {"type": "raise", "amount": 1}), (2, {"type": "leave"})])
    assert of_type(ev, "hand_over")[0]["winner"] == 1 and ENGINE.is_over(state)
    res = ENGINE.result(state)
    assert res["net"] == [-1, 4, -3] and res["ranks"] == [2, 1, 3] and res["left"] == [True, False, True]


def test_time_never_runs_backwards():
    # Issue 20: a move stamped earlier than the last logged move is refused with time_backwards
    # (the code Cherki and Lembar use) and changes nothing; the same millisecond is accepted.
    state = table(3, 0, ["S2", "S3", "S4"])
    state, _ = ENGINE.apply(state, 1, PASS, now_ms=5000)
    assert state["last_move_ms"] == 5000
    seat = ENGINE.to_act(state)[0]
    for who, move in [(seat, OPEN), (0, {"type": "leave"}), (seat, ENGINE.timeout_move(state, seat))]:
        before = copy.deepcopy(state)
        with pytest.raises(IllegalMove) as exc:
            ENGINE.apply(state, who, move, now_ms=4999)
        assert exc.value.code == "time_backwards", exc.value.message
        assert state == before
    with pytest.raises(IllegalMove) as exc:  # the envelope checks the turn before the clock
        ENGINE.apply(state, (seat + 1) % 3, OPEN, now_ms=1)
    assert exc.value.code == "not_your_turn"
    state, _ = ENGINE.apply(state, seat, OPEN, now_ms=5000)
    assert state["last_move_ms"] == 5000


def test_cash_table_ends_after_hands_and_ranks_by_net():
    state = ENGINE.new(SEED, 3, {"hands": 2})
    now = 0
    while not ENGINE.is_over(state):
        seat = ENGINE.to_act(state)[0]
        now += 10
        state, _ = ENGINE.apply(state, seat, ENGINE.timeout_move(state, seat), now_ms=now)
    res = ENGINE.result(state)
    assert res["hands_played"] == 2 and sum(res["net"]) == 0
    assert res["ranks"] == [1 + sum(1 for m in res["net"] if m > v) for v in res["net"]]


def test_tournament_ante_doubles_every_five_hands_with_offset():
    opts = o._normal_options({"stacks": [100, 100], "ante": 2}, 2)
    assert opts["ante_schedule"] == {"base": 2, "double_every": 5} and opts["hands"] is None
    assert [o.ante_for(opts, h) for h in (0, 4, 5, 9, 10)] == [2, 2, 4, 4, 8]
    state = ENGINE.new(SEED, 2, {"stacks": [100, 100], "hand_offset": 9})
    assert state["ante"] == 2 and state["pot"] == 4  # hands 5-9 of the schedule: doubled once
    state = ENGINE.new(SEED, 2, {"stacks": [100, 100], "hand_offset": 10})
    assert state["ante"] == 4 and state["shuffles"][1]["round"] == 0  # the shuffle still counts from 0
    levels = o._normal_options({"stacks": [5, 5], "ante_schedule": [1, 3]}, 2)
    assert [o.ante_for(levels, h) for h in (0, 4, 5, 50)] == [1, 1, 3, 3]
    assert o.ante_for(o._normal_options({}, 2), 50) == 1  # cash tables: a flat ante
    for bad in ({"ante": 0}, {"stacks": [1]}, {"ante_schedule": {"base": 1}}, {"colour": 1}, {"ebe": 2}):
        with pytest.raises(ValueError):
            ENGINE.new(SEED, 2, bad)


def test_same_hand_elimination_ranks_by_stack_at_the_hand_start():
    # stacks 10, 3, 4; seat 1 raises 3 before the deal and both others see (4 chips each);
    # seats 1 and 2 bust, seat 0 wins: seats 1 (3 - 4) and 2 (4 - 4) are out in the same hand
    top = ["S2", "S3", "S4", "SK", "HK", "DK", "HQ", "DQ", "CQ"]
    state = table(3, 0, top, stacks=[10, 3, 4])
    state, ev = play(state, [(1, {"type": "raise", "amount": 3}), (2, SEE), (0, SEE)])
    state, ev = play(state, [(1, OPEN), (1, OPEN), (1, OPEN), (2, OPEN), (2, OPEN), (2, OPEN)])
    over = of_type(ev, "hand_over")[0]
    assert over["winner"] == 0 and over["pot"] == 12 and over["eliminated"] == [1, 2]
    assert ENGINE.is_over(state)
    res = ENGINE.result(state)
    assert res["stacks"] == [18, -1, 0] and res["ranks"] == [1, 3, 2] and res["winners"] == [0]
    assert res["eliminated"] == [None, 0, 0]


LEAVE = {"type": "leave"}


def test_tournament_leavers_never_share_a_place_and_the_later_leaver_ranks_higher():
    # otuzbir.md, Tournament: "A tournament player who leaves (or is removed) is eliminated at that
    # moment [...] of several who leave the later ranks higher. Two players never share a place
    # because of a leave." Three seats with equal stacks, seat 0 leaves, then seat 1: [3, 2, 1].
    state = table(3, 0, [], stacks=[100, 100, 100])
    state, _ = play(state, [(1, PASS), (0, LEAVE)])
    state, ev = play(state, [(1, LEAVE)], now=9000)
    assert of_type(ev, "hand_over")[0]["winner"] == 2 and ENGINE.is_over(state)
    res = ENGINE.result(state)
    assert res["ranks"] == [3, 2, 1] and res["winners"] == [2]
    assert res["left_at"][1] == {"ms": 9000, "seq": 3} and res["left_at"][2] is None
    assert res["left_at"][0]["seq"] == 2


def test_tournament_leavers_rank_below_the_players_eliminated_at_the_end_of_that_hand():
    # "the leaver ranks below everyone still playing and below the players eliminated at the end of
    # that hand": seat 1 busts (stack 3 at the hand's start), seats 2 (stack 50) and 3 (20) leave in
    # that hand, seat 2 first: seat 1 is 2nd although its stack was the smallest, seat 3 3rd, seat 2 4th.
    top = ["S2", "S3", "SK", "HK", "DK", "HQ", "DQ"]  # closed cards to 1 2 3 0, then seat 1 opens
    state = table(4, 0, top, stacks=[20, 3, 50, 20])
    state, _ = play(state, [(1, {"type": "raise", "amount": 3}), (2, SEE), (3, SEE), (0, SEE)])
    state, ev = play(state, [(1, OPEN), (1, OPEN), (1, OPEN)])  # S2 DK HQ DQ = 32: bust
    assert of_type(ev, "bust") == [{"type": "bust", "seat": 1}]
    state, ev = play(state, [(2, LEAVE), (3, LEAVE)])
    over = of_type(ev, "hand_over")[0]
    assert over["winner"] == 0 and over["eliminated"] == [1, 2, 3] and ENGINE.is_over(state)
    res = ENGINE.result(state)
    assert res["stacks"] == [32, -1, 46, 16] and res["ranks"] == [1, 2, 4, 3]


def test_a_tournament_leaver_ranks_above_the_busts_of_earlier_hands():
    # eliminated "at that moment": leaves in hand 1 come after seat 1's bust at the end of hand 0
    state = table(4, 0, ["S2", "S3", "DK", "HQ", "DQ"], stacks=[30, 3, 30, 30])
    state, _ = play(state, [(1, {"type": "raise", "amount": 3}), (2, FOLD), (3, FOLD), (0, SEE)])
    state, ev = play(state, [(1, OPEN), (1, OPEN), (1, OPEN)])  # S2 DK HQ DQ = 32: seat 1 is out
    assert of_type(ev, "hand_over")[0]["eliminated"] == [1] and state["hand"] == 1
    state, ev = play(state, [(2, LEAVE), (3, LEAVE)])  # equal stacks, seat 2 leaves first
    assert of_type(ev, "hand_over")[0]["eliminated"] == [2, 3] and ENGINE.is_over(state)
    res = ENGINE.result(state)
    assert res["eliminated"] == [None, 0, 1, 1] and res["ranks"] == [1, 4, 3, 2]


def test_tables_recorded_before_the_leaver_rule_still_replay_to_their_results():
    # A table saved before rules revisions (no "rules" option) is played on, and replayed, by
    # revision 1: its leavers rank as they did then and its result has no left_at, so a proof
    # document stored then still verifies; a move back in time was accepted then and still is.
    path = list(sys.path)
    sys.path.insert(0, str(ROOT / "tools"))
    import verify_proof

    state = table(3, 0, [], stacks=[100, 100, 100], rules=1)
    del state["options"]["rules"]  # as stored before revisions existed
    state, _ = play(state, [(1, PASS), (0, LEAVE)], now=5000)
    state, _ = ENGINE.apply(state, 1, LEAVE, now_ms=10)
    res = ENGINE.result(state)
    assert res["ranks"] == [2, 2, 1] and "left_at" not in res
    doc = json.loads(json.dumps(ENGINE.proof(state)))
    assert doc["options"]["rules"] == 1
    del doc["options"]["rules"]  # a proof document saved before revisions
    try:
        assert verify_proof.verify(doc) == []  # the leaves do not depend on the cards table() put on top
        doc["result"]["ranks"] = [3, 2, 1]  # what revision 2 gives: not this table's rules
        assert verify_proof.verify(doc) == ["the result differs from the replayed game's result"]
    finally:
        sys.path[:] = path
    # a new table is revision 2, and its proof says so
    assert ENGINE.new(SEED, 2)["options"]["rules"] == 2


def test_eliminated_ebe_passes_the_deal_to_ebe_alti():
    top = ["S2", "S4", "SK", "HK", "D5", "HQ", "DQ", "D9"]
    state = table(3, 0, top, stacks=[2, 10, 10])
    state, ev = play(state, [(1, {"type": "raise", "amount": 3}), (2, FOLD), (0, SEE)])
    state, ev = play(state, [(1, OPEN), (1, OPEN), (1, OPEN), (1, STAND)])  # S2 SK HK D5 = 27
    state, ev = play(state, [(0, OPEN), (0, OPEN), (0, OPEN)])  # S4 HQ DQ D9 = 33
    over = of_type(ev, "hand_over")[0]
    assert over["winner"] == 1 and over["eliminated"] == [0] and over["next_ebe"] == 1
    assert state["stacks"] == [-2, 15, 9] and state["ebe"] == 1 and state["order"] == [2, 1]
    assert not ENGINE.is_over(state) and state["pot"] == 2


def test_chips_are_conserved_in_every_hand_with_rake():
    rng = random.Random(7)
    for k in range(6):
        n = 2 + k
        state = ENGINE.new(bytes([k + 1]) * 32, n, {"rake_bps": 500, "ante": 5, "hands": 6})
        now, hands = 0, []
        while not ENGINE.is_over(state):
            seat = ENGINE.to_act(state)[0]
            move = rng.choice(ENGINE.legal_moves(state, seat))
            if rng.random() < 0.02:
                move = {"type": "leave"}
            now += 10
            state, ev = ENGINE.apply(state, seat, move, now_ms=now)
            hands += of_type(ev, "hand_over")
        for h in hands:
            assert h["pot"] == sum(h["contributions"]) == sum(h["payouts"]) + h["rake"]
            assert h["rake"] == h["pot"] * 500 // 10000
        res = ENGINE.result(state)
        assert sum(res["net"]) + res["rake"] == 0 and res["hands_played"] == len(hands)


def test_explicit_ebe_skips_the_draw_and_the_proof_verifies(tmp_path):
    state = ENGINE.new(SEED, 3, {"ebe": 2, "hands": 2})
    assert state["first"] == 2 and [s["purpose"] for s in state["shuffles"]] == ["kocok"]
    assert state["order"] == [0, 1, 2]
    now = 0
    while not ENGINE.is_over(state):
        seat = ENGINE.to_act(state)[0]
        now += 10
        state, _ = ENGINE.apply(state, seat, ENGINE.timeout_move(state, seat), now_ms=now)
    doc = ENGINE.proof(state)
    path = tmp_path / "proof.json"
    path.write_text(json.dumps(doc))
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "verify_proof.py"), str(path)],
                         capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == "OK", run.stdout
    doc["first"] = 1
    path.write_text(json.dumps(doc))
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "verify_proof.py"), str(path)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and "explicit ebe" in run.stdout


def test_views_hide_closed_cards_until_revealed_and_replay_shows_all():
    hands = {0: ["SK", "HQ", "D7"], 1: ["S9", "H8", "DT"]}
    state = table(2, 0, [], hands=1)
    state["deck"] = ["S9", "SK", "H8", "DT", "HQ", "D7"] + [
        c for c in fairness.OTUZBIR_DECK if c not in hands[0] + hands[1]]
    state, _ = play(state, [(1, PASS)])
    spectator = ENGINE.view(state, None)
    assert "closed" not in spectator["players"][0] and spectator["players"][0]["closed_count"] == 1
    mine = ENGINE.view(state, 1)
    assert mine["players"][1]["closed"] == ["S9"] and "closed" not in mine["players"][0]
    assert "SK" not in json.dumps(mine) and mine["to_act"] == [1] and mine["pot"] == 2
    state, ev = play(state, [(1, OPEN), (1, OPEN), (1, STAND), (0, OPEN), (0, OPEN), (0, STAND)])
    assert ENGINE.is_over(state)
    end = ENGINE.view(state, None)
    assert end["players"][0]["closed"] == ["SK"] and end["players"][1]["closed"] == ["S9"]
    assert end["last_hand"]["showdown"] == [{"seat": 0, "category": "27"}, {"seat": 1, "category": "27"}]
    assert end["result"]["winners"] == [0]  # equal 27s: the ebe wins
    replay = ENGINE.replay_view(state)
    assert replay["history"][0]["closed"] == [["SK"], ["S9"]] and len(replay["stock"]) == 46
