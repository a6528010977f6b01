"""31 (Otuz bir) invariants over thousands of seeded random games (../shared/spec/otuzbir.md,
economy.md, fairness.md).

tests/gameworkers/engines/test_properties.py already checks, for every engine on a few games, that
states round-trip through JSON, views hide what they must, junk input is refused without change,
``apply`` never mutates its argument and proofs reject tampering. This file plays many more 31
tables, 2-7 seats, cash tables (ante, rake, a number of hands) and tournament tables (stacks, the
doubling ante, an explicit ebe or the high-card draw), with random legal moves (raises up to the
pot), automatic moves via ``timeout_move``, random ``{"type": "leave"}`` and refused moves back in
time, and checks after every step what the spec states, recomputed here with the spec's own rules
rather than the engine's helpers:

- the 52 cards are all somewhere exactly once, and the hand's cards come from the top of its
  ``d:kocok`` shuffle; every shuffle is ``(0, "ebe")`` (the dealer draw, unless the ebe is given)
  then ``(d, "kocok")`` with ``d`` the hand index (fairness.md: "a deal's shuffle uses the deal index
  d"; only Lembar's reshuffles take a move's sequence number);
- exactly one seat may act: ebe altı before the deal, the head of the answer queue, the seat on turn;
  a stand is offered exactly when the spec allows it; raises run from 1 to the pot; the automatic
  move is the spec's (stand if allowed, else an open card; see with 31 or a special hand, else fold;
  no pre-deal raise);
- chips: the pot is what was bet; every hand pays pot - rake to its winner, the rake being
  floor(pot x rake_bps / 10000); net chips (and tournament stacks) add up to minus the rake taken;
- every hand's ante follows the schedule, play order is ebe altı first and the ebe last, the winner
  is the only player left or the best hand at the showdown (ties: the ebe, then play order), and
  only a winning 31 moves the ebe (an ebe who is out passes it to the next seat still in);
- the log's sequence numbers are 1..move_count, one entry per move with its ``now_ms``; a move
  stamped before the last is refused with ``time_backwards`` and changes nothing;
- the result ranks as the spec says: cash tables by net chips (docs/rules/otuzbir.md), tournaments
  with players still in above everyone out, later exits better, a leaver below the players
  eliminated at the end of its hand (of several leavers the later higher, never a shared place),
  same-hand busts by their stack at its start;
- every finished table's proof verifies with tools/verify_proof.py, and ``new`` + ``apply`` of its
  logged moves replays to the same result (a sample: to the very same state).
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path

import pytest

from gameworkers.engines import IllegalMove, fairness, get_engine
from gameworkers.engines.base import copy_json

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
import verify_proof  # noqa: E402 - the standalone verifier, imported from tools/

E = get_engine("otuzbir")
CANONICAL = list(fairness.OTUZBIR_DECK)
SORTED_DECK = sorted(CANONICAL)
GAMES = 2000
CHUNK = 250
MAX_STEPS = 4000
LIVE = ("in", "stood", "31")

# The spec's card values and hand order, written out again so the engine's are not trusted.
LOW = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}
BUST, NONE, FOURTEEN, YONCA, CENGEL, CIN, THIRTY_ONE = -1, 0, 40, 50, 60, 70, 80  # 26..30 in between


def spec_score(cards: list[str]) -> int:
    """otuzbir.md "Hands, best first": the best category over every way of counting the Aces."""
    low = sum(LOW.get(c[1]) or int(c[1]) for c in cards)
    totals = [low + 10 * k for k in range(sum(1 for c in cards if c[1] == "A") + 1)]
    if all(t > 31 for t in totals):
        return BUST
    if 31 in totals:
        return THIRTY_ONE
    if len(cards) == 2:
        if cards[0][1] == cards[1][1] == "A":
            return CIN
        if cards[0][1] == cards[1][1] == "J":
            return CENGEL
        if cards[0][0] == cards[1][0] == "C":
            return YONCA
    if 14 in totals:
        return FOURTEEN
    best = max(t for t in totals if t <= 31)
    return best if 26 <= best <= 30 else NONE


def spec_may_stand(score: int) -> bool:
    """"you may not stand under 26 unless the hand is 14, Yonca, Çengel or Cin" (31 ends the turn)."""
    return score != THIRTY_ONE and (26 <= score <= 30 or score in (FOURTEEN, YONCA, CENGEL, CIN))


def spec_ante(options: dict, d: int) -> int:
    """The tournament ante doubles every 5 hands (or follows the listed levels); cash: flat."""
    schedule, h = options["ante_schedule"], options["hand_offset"] + d
    if schedule is None:
        return options["ante"]
    if "levels" in schedule:
        return schedule["levels"][min(h // schedule["every"], len(schedule["levels"]) - 1)]
    return schedule["base"] * 2 ** (h // schedule["double_every"])


def competition(keys: list) -> list[int]:
    """Competition ranks (1, 2, 2, 4), higher key better."""
    return [1 + sum(1 for k in keys if k > key) for key in keys]


def cards_of(state: dict, s: int) -> list[str]:
    return state["closed"][s] + state["open"][s]


def check_state(state: dict, initial_total: int | None) -> list[dict]:
    """What holds in every state; returns the legal moves of the seat to act."""
    n = state["seats"]
    assert sorted(E.all_cards(state)) == SORTED_DECK, "every card is somewhere exactly once"
    assert sorted(c for s in range(n) for c in cards_of(state, s)) == sorted(state["deck"][:state["pos"]])
    assert state["pot"] == sum(state["contrib"]), "the pot is what was bet"
    rake_total = sum(h["rake"] for h in state["history"])
    assert sum(state["net"]) == -rake_total, "net chips add up to minus the rake"
    if initial_total is not None:
        assert sum(state["stacks"]) == initial_total - rake_total, "tournament chips are conserved"
    if E.is_over(state):
        assert E.to_act(state) == [] and E.deadline(state) is None
        assert all(E.legal_moves(state, s) == [] for s in range(n))
        return []
    acting = E.to_act(state)
    assert len(acting) == 1
    seat, phase, status = acting[0], state["phase"], state["status"]
    assert state["in_table"][seat]
    legal = E.legal_moves(state, seat)
    assert legal and all(not E.legal_moves(state, s) for s in range(n) if s != seat), "only one seat acts"
    kinds = Counter(m["type"] for m in legal)
    amounts = [m["amount"] for m in legal if "amount" in m]
    assert all(1 <= a <= state["pot"] for a in amounts) and (not amounts or max(amounts) == state["pot"])
    score = spec_score(cards_of(state, seat)) if cards_of(state, seat) else NONE
    auto = E.timeout_move(state, seat)
    if phase == "predeal":
        assert seat == state["order"][0] and not state["dealt"], "ebe altı decides before the deal"
        assert auto == {"type": "pass", "auto": True}, "no automatic pre-deal raise"
    elif phase in ("predeal_answer", "answer"):
        r = state["raise"]
        assert seat == r["queue"][0] and seat != r["seat"] and status[seat] in LIVE
        assert set(kinds) == {"see", "fold"}
        special = score == THIRTY_ONE or score in (FOURTEEN, YONCA, CENGEL, CIN)
        assert auto == {"type": "see" if special else "fold", "auto": True}, "see with 31 or a special hand"
    else:
        assert phase == "turn" and seat == state["turn"] and status[seat] == "in"
        assert ("stand" in kinds) == spec_may_stand(score), "a stand exactly when the spec allows it"
        assert auto == {"type": "stand" if spec_may_stand(score) else "open", "auto": True}
        earlier = state["order"][:state["order"].index(seat)]
        assert all(status[s] != "in" for s in earlier), "in play order: everyone before has acted"
    return legal


def check_hand_start(state: dict) -> None:
    """A new hand: antes, ebe altı first and the ebe last, shuffle d:kocok dealt from its top."""
    n, d, ebe = state["seats"], state["hand"], state["ebe"]
    assert state["in_table"][ebe], "the ebe is a player still at the table"
    order = [(ebe + k) % n for k in range(1, n + 1) if state["in_table"][(ebe + k) % n]]
    assert state["order"] == order and order[-1] == ebe
    ante = spec_ante(state["options"], d)
    assert state["contrib"] == [ante if state["in_table"][s] else 0 for s in range(n)], "everyone pays the ante"
    last = state["shuffles"][-1]
    assert (last["round"], last["purpose"], last["initial"]) == (d, "kocok", CANONICAL)
    assert state["deck"] == last["result"]


def check_hand_over(before: dict, after: dict, summary: dict) -> None:
    """The finished hand: who won, what was paid, where the ebe goes."""
    n = after["seats"]
    hand = after["history"][-1]
    pot, rake = summary["pot"], summary["rake"]
    assert pot == sum(summary["contributions"]) == sum(summary["payouts"]) + rake
    assert rake == pot * after["options"]["rake_bps"] // 10000
    winner = summary["winner"]
    assert summary["payouts"] == [pot - rake if s == winner else 0 for s in range(n)]
    live = [s for s in hand["order"] if hand["status"][s] in LIVE]
    assert winner in live
    if len(live) > 1:  # the showdown: the best hand; equal hands: the ebe, then play order
        scores = {s: spec_score(hand["closed"][s] + hand["open"][s]) for s in live}
        best = max(scores.values())
        tied = [s for s in live if scores[s] == best]
        assert winner == (hand["ebe"] if hand["ebe"] in tied else tied[0])
        assert all(hand["status"][s] in ("stood", "31") for s in live), "everyone has acted"
    won_31 = spec_score(hand["closed"][winner] + hand["open"][winner]) == THIRTY_ONE
    ebe = winner if won_31 else hand["ebe"]
    if not after["in_table"][ebe]:
        ebe = next((ebe + k) % n for k in range(1, n + 1) if after["in_table"][(ebe + k) % n])
    assert summary["next_ebe"] == ebe, "only a winning 31 moves the ebe; an ebe out passes it on"
    if after["stacks"] is not None:
        for s in range(n):
            assert after["stacks"][s] == before["start_stacks"][s] + summary["payouts"][s] - summary["contributions"][s]


def refused_backwards(state: dict, seat: int, move: dict, now: int) -> None:
    # The log is only ever appended to on a copy (test_properties.py): compare the rest in full.
    before, logged = copy_json({k: v for k, v in state.items() if k != "moves"}), len(state["moves"])
    with pytest.raises(IllegalMove) as info:
        E.apply(state, seat, move, now_ms=now)
    assert info.value.code == "time_backwards", info.value.message
    assert {k: v for k, v in state.items() if k != "moves"} == before and len(state["moves"]) == logged


def random_options(rng: random.Random, n: int) -> dict:
    if rng.random() < 0.5:  # a cash table
        return {"ante": rng.choice((1, 5, 10, 25)), "rake_bps": rng.choice((0, 0, 500, 1000)),
                "hands": rng.randint(1, 6)}
    options: dict = {"stacks": [rng.choice((3, 10, 30, 100)) for _ in range(n)], "ante": rng.choice((1, 2))}
    roll = rng.random()
    if roll < 0.3:
        options["ante_schedule"] = [rng.randint(1, 3) for _ in range(rng.randint(1, 3))]
    elif roll < 0.4:
        options["ante_schedule"] = {"base": 1, "double_every": rng.randint(1, 5)}
    if rng.random() < 0.3:
        options["hand_offset"] = rng.randrange(20)
    if rng.random() < 0.4:
        options["ebe"] = rng.randrange(n)  # a table formed mid-tournament: no 0:ebe draw
    if rng.random() < 0.2:
        options["hands"] = rng.randint(1, 4)  # the platform's hand-for-hand tables play one
    return options


def pick_move(state: dict, legal: list[dict], rng: random.Random, raise_rate: float) -> tuple[int, dict]:
    roll = rng.random()
    if roll < 0.012:
        return rng.randrange(state["seats"]), {"type": "leave"}  # may be refused: already out
    seat = E.to_act(state)[0]
    if roll < 0.1:
        return seat, E.timeout_move(state, seat)
    plain = [m for m in legal if "amount" not in m]
    if plain and rng.random() > raise_rate:
        return seat, rng.choice(plain)
    return seat, rng.choice(legal)


def play_one(game: int, stats: Counter) -> None:
    rng = random.Random(game)
    n = rng.randint(2, 7)
    seed = rng.randbytes(32)
    options = random_options(rng, n)
    state = E.new(seed, n, options)
    tournament = state["stacks"] is not None
    initial_total = sum(state["stacks"]) if tournament else None
    purposes = [(sh["round"], sh["purpose"]) for sh in state["shuffles"]]
    assert purposes == ([] if options.get("ebe") is not None else [(0, "ebe")]) + [(0, "kocok")]
    check_hand_start(state)
    raise_rate = rng.choice((0.05, 0.2, 0.5))
    out: dict[int, tuple] = {}  # tournament: seat -> when it went out, as the spec ranks it
    now = rng.randrange(10**6)
    for _ in range(MAX_STEPS):
        legal = check_state(state, initial_total)
        if E.is_over(state):
            break
        seat, move = pick_move(state, legal, rng, raise_rate)
        last = state["last_move_ms"]
        if last is not None and (move["type"] != "leave" or state["in_table"][seat]) and rng.random() < 0.01:
            refused_backwards(state, seat, move, last - rng.choice((1, 1000)))
            stats["backwards"] += 1
        now += rng.choice((0, 1, 400, 2500, 20_000))
        try:
            after, events = E.apply(state, seat, move, now_ms=now)
        except IllegalMove as exc:
            assert (move["type"], exc.code) == ("leave", "not_in_game") and not state["in_table"][seat]
            continue
        seq = state["move_count"] + 1
        assert after["move_count"] == seq and after["moves"][-1] == {
            "seq": seq, "seat": seat, "move": move, "now_ms": now}
        assert after["last_move_ms"] == now
        if move["type"] == "leave":
            assert not after["in_table"][seat] and after["left"][seat]
            if tournament:  # eliminated at that moment, in that hand
                out[seat] = (0, state["hand"], 0, seq)
                assert after["elim_hand"][seat] == state["hand"]
        overs = [e for e in events if e["type"] == "hand_over"]
        assert len(overs) == len(after["history"]) - len(state["history"]) <= 1
        if overs:
            check_hand_over(state, after, overs[0])
            stats["hands"] += 1
            stats["showdown"] += bool(overs[0]["showdown"])
            if tournament:  # out at the hand's end with 0 or below, ranked by the stack at its start
                for s in range(n):
                    if state["in_table"][s] and s not in out and after["stacks"][s] <= 0:
                        out[s] = (0, state["hand"], 1, state["start_stacks"][s])
                        stats["bust"] += 1
                assert [s for s in range(n) if after["elim_hand"][s] is not None] == sorted(out)
        if after["hand"] != state["hand"]:
            assert after["hand"] == state["hand"] + 1 and not E.is_over(after)
            check_hand_start(after)
        stats[move["type"] + (":auto" if move.get("auto") else "")] += 1
        state = after
    else:
        pytest.fail(f"game {game} did not end within {MAX_STEPS} steps")
    # The end and the ranking.
    result = E.result(state)
    in_table = sum(state["in_table"])
    assert in_table < 2 or state["hands_played"] == state["options"]["hands"]
    if tournament:
        keys = [out.get(s, (1, 0, 0, state["stacks"][s])) for s in range(n)]
        leavers = [s for s in range(n) if state["left"][s]]
        assert len({competition(keys)[s] for s in leavers}) == len(leavers), "a leave never shares a place"
        stats["tournament"] += 1
        stats["leavers>1"] += len(leavers) > 1
    else:
        keys = [(state["net"][s],) for s in range(n)]
        stats["cash"] += 1
    assert result["ranks"] == competition(keys)
    assert result["winners"] == [s for s in range(n) if result["ranks"][s] == 1]
    # The proof: the standalone verifier accepts it (it replays the log with new + apply and
    # compares shuffles, the first ebe and the result); a sample replays to the very same state.
    doc = json.loads(json.dumps(E.proof(state)))
    assert [m["seq"] for m in doc["moves"]] == list(range(1, state["move_count"] + 1)), "dense, unique numbers"
    times = [m["now_ms"] for m in doc["moves"]]
    assert times == sorted(times), "time never runs backwards"
    assert verify_proof.verify(doc) == [], game
    if game % 8 == 0:
        replay = E.new(seed, n, doc["options"])
        for entry in doc["moves"]:
            replay, _ = E.apply(replay, entry["seat"], entry["move"], now_ms=entry["now_ms"])
        assert replay == state, f"game {game}: the replay differs"


@pytest.mark.parametrize("chunk", range(GAMES // CHUNK))
def test_random_games_keep_the_spec_invariants(chunk):
    stats: Counter = Counter()
    path = list(sys.path)
    try:
        for game in range(chunk * CHUNK, (chunk + 1) * CHUNK):
            play_one(game, stats)
    finally:
        sys.path[:] = path  # verify_proof puts the repository on sys.path at every call
    # Every path this file is about was taken in every chunk.
    for kind in ("cash", "tournament", "showdown", "bust", "leave", "leavers>1", "raise", "closed",
                 "raise_stand", "see", "fold", "stand:auto", "open:auto", "backwards"):
        assert stats[kind] > 0, (kind, stats)
