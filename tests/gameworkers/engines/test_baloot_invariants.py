"""Baloot invariants over thousands of seeded random games (../shared/spec/baloot.md).

tests/gameworkers/engines/test_properties.py already checks, for every engine on a few games, that
states round-trip through JSON, views hide what they must, junk input is refused without change and
proofs reject tampering. This file plays many more Baloot games (random legal moves, automatic
moves, the odd leave) and checks after every step what the Baloot spec states: the deck is whole,
exactly the seats in ``to_act`` may act, move numbers are dense, each deal's shuffle is
``d:kocok`` with its deal index, every Baloot claim is made on the second of trump K and Q (never
by a Sawa), every scored deal adds up as the spec's scoring section says (recomputed here from the
tricks with the spec's own tables, not the engine's) and the game ends when and as the spec says.
Every finished game's proof verifies with tools/verify_proof.py and its log replays to the same
state.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from gameworkers.engines import IllegalMove, fairness, get_engine

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
import verify_proof  # noqa: E402 - the standalone verifier, imported from tools/

E = get_engine("baloot")
DECK = set(fairness.BALOOT_DECK)  # 32 distinct cards
GAMES = 1500  # about 8,000 scored deals; ~35 s on one core (the verifier replays every game)
CHUNK = 100
MAX_STEPS = 5000

# The spec's tables, written out again so the engine's own constants are not trusted.
SUN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3}
SUN_ORDER = "789JQKTA"
TRUMP_ORDER = "78QKTA9J"
SEQUENCE = "789TJQKA"
PROJECT_TYPE = {"sira": 0, "fifty": 1, "hundred": 2, "four_hundred": 3}
PROJECT_GAME = {True: {"sira": 4, "fifty": 10, "hundred": 20, "four_hundred": 40},
                False: {"sira": 2, "fifty": 5, "hundred": 10}}


def points(card: str, trump: str | None) -> int:
    return (TRUMP_POINTS if card[0] == trump else SUN_POINTS).get(card[1], 0)


def winner_of(cards: list[dict], trump: str | None) -> int:
    """Seat that wins a trick (cards in play order)."""
    led = cards[0]["card"][0]
    trumps = [p for p in cards if p["card"][0] == trump]
    if trumps:
        return max(trumps, key=lambda p: TRUMP_ORDER.index(p["card"][1]))["seat"]
    return max((p for p in cards if p["card"][0] == led), key=lambda p: SUN_ORDER.index(p["card"][1]))["seat"]


def convert(raw: int, sun: bool) -> int:
    if sun:  # nearest 10 (a total ending in 5 is not rounded), then / 5
        return raw // 5 if raw % 10 == 5 else (raw // 10 + (raw % 10 >= 6)) * 10 // 5
    return raw // 10 + (raw % 10 >= 6)  # / 10, remainder 6-9 up


def best_project_team(projects: list, dealer: int) -> int | None:
    best, team = None, None
    for seat in range(4):
        position = (seat - dealer - 1) % 4  # 0 = P1, the dealer's right
        for p in projects[seat] or []:
            key = (PROJECT_TYPE[p["kind"]], max(SEQUENCE.index(c[1]) for c in p["cards"]), -position)
            if best is None or key > best:
                best, team = key, seat % 2
    return team


def spec_deal_score(prev: dict, events: list[dict]) -> tuple[list[int], bool, int]:
    """(deal score per team, did the bidders fail, the deal's winner) by the spec's scoring section,
    from the state before the deal's last move and that move's events."""
    contract, dbl = prev["contract"], prev["doubling"]
    trump, bidders = contract["trump"], contract["team"]
    sun = trump is None
    defenders = 1 - bidders
    mult, gahwa = dbl["level"], dbl["gahwa"]
    tricks = [t["cards"] for t in prev["tricks"]] + [e["cards"] for e in events if e["type"] == "trick"]
    raw, takers = [0, 0], []
    for cards in tricks:
        team = winner_of(cards, trump) % 2
        raw[team] += sum(points(p["card"], trump) for p in cards)
        takers.append(team)
    sawa = [e for e in events if e["type"] == "sawa"]
    if sawa:  # the taker's team takes every remaining card and the last trick
        team = sawa[0]["seat"] % 2
        raw[team] += sum(points(c, trump) for c in sawa[0]["cards"])
        takers.append(team)
    raw[takers[-1]] += 10
    assert sum(raw) == (130 if sun else 162), "a deal's card points with the last trick"
    claims = list(prev["baloot"]) + [e["seat"] for e in events if e["type"] == "baloot"]
    baloot = [2 * sum(1 for s in claims if s % 2 == t) for t in (0, 1)]
    best = best_project_team(prev["projects"], prev["dealer"])
    proj = [0, 0]
    if best is not None:
        proj[best] = sum(PROJECT_GAME[sun][p["kind"]] for s in (best, best + 2) for p in prev["projects"][s])
    if len(set(takers)) == 1:  # sweep, whoever bid
        sweeper = takers[0]
        final = [baloot[0], baloot[1]]
        final[sweeper] += mult * ((44 if sun else 25) + proj[sweeper])
        deal = list(final)
    else:
        game = [0, 0]
        game[bidders] = convert(raw[bidders], sun)
        game[defenders] = (26 if sun else 16) - game[bidders]
        final = [mult * (game[t] + proj[t]) + baloot[t] for t in (0, 1)]
        deal = list(final)
    # Failed: the bidders' final game points (multiplier and Baloot included) not more than the
    # defenders'; equal: compare card points; still equal: failed.
    failed = final[bidders] < final[defenders] or (
        final[bidders] == final[defenders] and raw[bidders] <= raw[defenders])
    if failed and len(set(takers)) > 1:  # the failed-bid transfer (never in a sweep)
        deal = [0, 0]
        deal[bidders] = baloot[bidders]
        deal[defenders] = final[0] + final[1] - baloot[0] - baloot[1] + baloot[defenders]
    winner = defenders if failed else bidders
    if gahwa:  # the winner adds 152, the other team nothing (Baloot ignored in the score)
        deal = [0, 0]
        deal[winner] = 152
    return deal, failed, winner


def check_claims(prev: dict, seat: int, move: dict, events: list[dict]) -> None:
    """A Baloot claim comes only with the play of the second of trump K and Q by one seat."""
    claims = [e for e in events if e["type"] == "baloot"]
    if not claims:
        return
    assert move["type"] == "play" and move.get("baloot") is True, f"Baloot claimed by {move!r}"
    assert claims == [{"type": "baloot", "seat": seat}]
    trump, card = prev["contract"]["trump"], move["card"]
    assert trump is not None and card in (trump + "K", trump + "Q") and seat not in prev["baloot"]
    other = trump + ("Q" if card[1] == "K" else "K")
    played = [p for t in prev["tricks"] for p in t["cards"]] + prev["trick"]
    assert {"seat": seat, "card": other} in played, "the first of the two was played earlier by the claimer"


def check_step(prev: dict, seat: int, move: dict, now: int, state: dict, events: list[dict]) -> None:
    # Move numbers: one entry per applied move, numbered 1, 2, 3, ... without gaps.
    count = prev["move_count"] + 1
    assert state["move_count"] == count == len(state["moves"]) and state["last_move_ms"] == now
    assert state["moves"][-1] == {"seq": count, "seat": seat, "move": move, "now_ms": now}
    check_claims(prev, seat, move, events)
    trump = (prev["contract"] or {}).get("trump")
    for e in events:
        if e["type"] == "trick":
            assert e["winner"] == winner_of(e["cards"], trump)
            assert e["points"] == sum(points(p["card"], trump) for p in e["cards"])
    deal_ended = [e for e in events if e["type"] in ("deal_scored", "void_deal")]
    assert len(deal_ended) <= 1
    assert len(state["deals"]) == len(prev["deals"]) + len(deal_ended)
    over = E.is_over(state)
    # A deal's shuffle is d:kocok with its deal index d (fairness.md; a void deal uses up its index):
    # a new one exactly when a deal ends and the game goes on.
    new_deal = bool(deal_ended) and not over
    assert len(state["shuffles"]) == len(prev["shuffles"]) + new_deal
    if new_deal:
        last = state["shuffles"][-1]
        assert state["deal_no"] == prev["deal_no"] + 1 == last["round"] == len(state["shuffles"]) - 1
        assert last["purpose"] == "kocok" and last["initial"] == list(fairness.BALOOT_DECK)
    scored = [e for e in events if e["type"] == "deal_scored"]
    if not scored:
        assert state["scores"] == prev["scores"]
        if over:
            assert state["forfeit"] is not None, "only a forfeit ends a game between deals"
        return
    s = scored[0]
    deal, failed, winner = spec_deal_score(prev, events)
    assert s["deal_score"] == deal and s["failed"] == failed, (s, deal, failed)
    totals = [prev["scores"][t] + deal[t] for t in (0, 1)]
    assert s["scores"] == state["scores"] == totals
    if s["gahwa"]:
        assert s["winner"] == winner and over and state["result"]["winning_team"] == winner
    elif max(totals) >= 152 and totals[0] != totals[1]:
        assert over and state["result"]["winning_team"] == (0 if totals[0] > totals[1] else 1)
    else:
        assert not over


def play_one(game_seed: int) -> dict:
    rng = random.Random(game_seed)
    seed = rng.randbytes(32)
    # Mostly Fast (from 52: fewer deals per game, so more games in the time); some leave now and
    # then, which also ends some games early by forfeit.
    options = {"mode": "classic" if rng.random() < 0.3 else "fast", "overtrump": rng.random() < 0.5}
    state = E.new(seed, 4, options)
    leave_rate = rng.choice([0.0, 0.003, 0.015])
    now = 0
    for _ in range(MAX_STEPS):
        cards = E.all_cards(state)
        assert len(cards) == 32 and set(cards) == DECK, "every card of the deal accounted for, once"
        acting = E.to_act(state)
        if E.is_over(state):
            assert acting == []
            return state
        assert acting, "someone may act until the game is over"
        seat = rng.choice(acting)
        legal = E.legal_moves(state, seat)
        assert legal and not any(m["type"] == "sawa" and "baloot" in m for m in legal), "a Sawa plays no card"
        # The same move from a seat not in to_act is refused (apply never mutates: checked in
        # test_properties.py) and that seat is offered nothing.
        idle = [s for s in range(4) if s not in acting]
        if idle:
            other = rng.choice(idle)
            with pytest.raises(IllegalMove) as refused:
                E.apply(state, other, legal[0], now_ms=now)
            assert refused.value.code == "not_your_turn" and E.legal_moves(state, other) == []
        now += rng.choice((1, 700, 9000))
        roll = rng.random()
        if roll < leave_rate:
            seat, move = rng.randrange(4), {"type": "leave"}
        elif roll < 0.12:
            move = E.timeout_move(state, seat)
        else:
            move = rng.choice(legal)
        try:
            new, events = E.apply(state, seat, move, now_ms=now)
        except IllegalMove as exc:
            assert move["type"] == "leave" and exc.code == "already_left"
            continue
        check_step(state, seat, move, now, new, events)
        state = new
    pytest.fail(f"game {game_seed} did not end within {MAX_STEPS} steps")


def check_finished(state: dict, *, whole_state: bool) -> None:
    doc = json.loads(json.dumps(E.proof(state)))
    # The verifier re-derives every shuffle, replays the log (engine.new + apply) and compares the
    # shuffles, the first dealer and the result.
    assert verify_proof.verify(doc) == [], "the proof verifies"
    if whole_state:  # a sample also replays to the very same state, every key
        replay = E.new(bytes.fromhex(doc["seed"]), 4, doc["options"])
        for entry in doc["moves"]:
            replay, _ = E.apply(replay, entry["seat"], entry["move"], now_ms=entry["now_ms"])
        assert replay == state


@pytest.mark.parametrize("start", range(0, GAMES, CHUNK))
def test_random_games_keep_the_spec_invariants(start):
    for game_seed in range(start, start + CHUNK):
        check_finished(play_one(game_seed), whole_state=game_seed % 10 == 0)
