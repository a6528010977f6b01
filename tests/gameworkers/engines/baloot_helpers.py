"""Shared by the Baloot golden-scenario modules (test_baloot*.py): positions, bidding and play helpers
and the recorded deals the scoring tests replay (../shared/spec/baloot.md, docs/rules/baloot.md)."""

from __future__ import annotations

import copy

from gameworkers.engines import get_engine
from gameworkers.engines.baloot import hand_sorted

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
