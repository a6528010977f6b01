"""Properties every registered engine must hold, over random seeds and random legal play."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameworkers.engines import IllegalMove, available_engines, fairness, get_engine

ROOT = Path(__file__).resolve().parents[3]
DECKS = {
    "lembar": fairness.LEMBAR_DECK,
    "baloot": fairness.BALOOT_DECK,
    "cherki": fairness.CHERKI_DECK,
    "otuzbir": fairness.OTUZBIR_DECK,
}
SEAT_CHOICES = {"lembar": [2, 3, 4, 6], "baloot": [4], "cherki": [3], "otuzbir": [2, 4, 7]}
GAMES = available_engines()
MAX_STEPS = 20_000  # random play can be long (Lembar p99 ~1,500 moves)

JUNK_MOVES = [None, 7, "play", [], {}, {"type": 5}, {"type": "no-such-move"},
              {"type": "play", "card": "ZZ"}, {"type": "play", "card": None}]


def _card_leaves(obj, cards: set[str]) -> Counter:
    found: Counter = Counter()
    if isinstance(obj, str):
        if obj in cards:
            found[obj] += 1
    elif isinstance(obj, dict):
        for v in obj.values():
            found += _card_leaves(v, cards)
    elif isinstance(obj, list):
        for v in obj:
            found += _card_leaves(v, cards)
    return found


def _check_step(engine, state, deck_counter, seats) -> None:
    assert json.loads(json.dumps(state)) == state, "state must round-trip through JSON"
    assert Counter(engine.all_cards(state)) == deck_counter, "every card accounted for"
    over = engine.is_over(state)
    if not over:
        assert engine.to_act(state), "someone must be able to act until the end"
    card_set = set(deck_counter)
    for seat in [*range(seats), None]:
        view = engine.view(state, seat)
        text = json.dumps(view)
        if not over:
            assert state["seed"] not in text, "the seed must not leave before the end"
        hidden = Counter(engine.hidden_cards(state, seat))
        wholly_hidden = {c for c, k in hidden.items() if k == deck_counter[c]}
        shown = _card_leaves(view, card_set)
        leaked = wholly_hidden & set(shown)
        assert not leaked, f"view of seat {seat} shows hidden cards {sorted(leaked)}"


def _check_illegal(engine, state, seats, rng) -> None:
    before = copy.deepcopy(state)
    acting = set(engine.to_act(state))
    attempts = [(s, m) for s in range(seats) for m in JUNK_MOVES[:3]]
    idle = [s for s in range(seats) if s not in acting]
    for s in idle:
        for s2 in acting:
            for m in engine.legal_moves(state, s2)[:2]:
                attempts.append((s, m))
    attempts += [(99, {"type": "pass"}), (-1, {"type": "pass"})]
    attempts.append((rng.randrange(seats), rng.choice(JUNK_MOVES)))
    for seat, move in attempts:
        try:
            engine.apply(state, seat, move, now_ms=10**9)
        except IllegalMove as exc:
            assert isinstance(exc.code, str) and exc.code
        else:
            if seat in acting or (isinstance(move, dict) and move.get("type") == "leave"):
                continue  # the move happened to be legal for that seat
            pytest.fail(f"seat {seat} not to act but {move!r} was accepted")
        assert state == before, "an illegal move changed the state"


def play_random(game: str, seed: bytes, seats: int, rng_seed: int, check: bool = True):
    engine = get_engine(game)
    rng = random.Random(rng_seed)
    state = engine.new(seed, seats)
    deck_counter = Counter(DECKS[game])
    now = 0
    for step in range(MAX_STEPS):
        over = engine.is_over(state)
        # Every step early on, then a sample: long games (Cherki ~700 moves) stay affordable.
        if check and (step < 80 or step % 9 == 0 or over):
            _check_step(engine, state, deck_counter, seats)
            if step % 7 == 0:
                _check_illegal(engine, state, seats, rng)
        if over:
            return engine, state
        now += 400
        due = engine.deadline(state)
        assert due is not None, "a game in progress always has a next deadline"
        actors = engine.to_act(state)
        if due["seat"] is None or rng.random() < 0.1:
            # exercise the automatic path; it must always be legal (a system step when it is due)
            mover = due["seat"]
            move = engine.timeout_move(state, mover)
            if mover is None:
                now = max(now, _due_at(due))
        else:
            mover = rng.choice(actors)
            legal = engine.legal_moves(state, mover)
            assert legal, f"seat {mover} is to act but has no legal move"
            move = rng.choice(legal)
        logged = len(state["moves"])
        snapshot = copy.deepcopy(state) if check and step % 9 == 0 else None
        previous = state
        state, events = engine.apply(state, mover, move, now_ms=now)
        # Every move is logged; a system step (seat None) is not a move and is not.
        assert len(state["moves"]) == logged + (mover is not None), "every applied move is logged"
        if snapshot is not None:
            assert previous == snapshot, "apply must not mutate the state it was given"
        assert isinstance(events, list)
        json.dumps(events)
    pytest.fail(f"{game} did not end within {MAX_STEPS} steps")


def _due_at(due: dict) -> int:
    """When a deadline with a known start is due (system steps always have one)."""
    return due["since_ms"] + (due["limit_ms"] or 0)


pytestmark = pytest.mark.skipif(not GAMES, reason="no engine registered yet")


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.binary(min_size=32, max_size=32), rng_seed=st.integers(0, 2**32), pick=st.integers(0, 10))
def test_random_play_holds_every_invariant(game, seed, rng_seed, pick):
    seats = SEAT_CHOICES[game][pick % len(SEAT_CHOICES[game])]
    engine, final = play_random(game, seed, seats, rng_seed)
    result = engine.result(final)
    assert len(result["ranks"]) == seats and result["winners"] == [
        s for s, r in enumerate(result["ranks"]) if r == 1]


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=5, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), rng_seed=st.integers(0, 2**32))
def test_same_seed_and_moves_give_the_same_states(game, seed, rng_seed):
    seats = SEAT_CHOICES[game][0]
    _, a = play_random(game, seed, seats, rng_seed, check=False)
    engine, b = play_random(game, seed, seats, rng_seed, check=False)
    assert a == b
    replay = engine.new(seed, seats)
    for entry in a["moves"]:
        replay, _ = engine.apply(replay, entry["seat"], entry["move"], now_ms=entry["now_ms"])
    assert replay == a


def _verify(tmp_path: Path, doc: dict) -> subprocess.CompletedProcess:
    path = tmp_path / "proof.json"
    path.write_text(json.dumps(doc))
    return subprocess.run([sys.executable, str(ROOT / "tools" / "verify_proof.py"), str(path)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=3, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), rng_seed=st.integers(0, 2**32))
def test_verify_proof_accepts_finished_games_and_rejects_tampering(game, seed, rng_seed, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("proof")
    seats = SEAT_CHOICES[game][-1]
    engine, final = play_random(game, seed, seats, rng_seed, check=False)
    doc = json.loads(json.dumps(engine.proof(final)))
    assert doc["seed"] == seed.hex() and doc["commitment"] == fairness.commitment(seed)
    ok = _verify(tmp_path, doc)
    assert ok.returncode == 0 and ok.stdout.strip() == "OK", ok.stdout + ok.stderr

    swapped = copy.deepcopy(doc)
    result = swapped["shuffles"][0]["result"]
    i = next(k for k in range(1, len(result)) if result[k] != result[0])
    result[0], result[i] = result[i], result[0]
    bad = _verify(tmp_path, swapped)
    assert bad.returncode == 1 and "shuffle #0" in bad.stdout

    other_seed = copy.deepcopy(doc)
    other_seed["seed"] = ("00" if doc["seed"][:2] != "00" else "01") + doc["seed"][2:]
    assert _verify(tmp_path, other_seed).returncode == 1

    if doc["moves"]:
        dropped = copy.deepcopy(doc)
        dropped["moves"] = dropped["moves"][:-1]
        assert _verify(tmp_path, dropped).returncode == 1


@pytest.mark.parametrize("game", GAMES)
def test_proof_hides_seed_and_log_until_over(game):
    engine = get_engine(game)
    seed = bytes(range(32))
    state = engine.new(seed, SEAT_CHOICES[game][0])
    doc = engine.proof(state)
    assert "seed" not in doc and doc["commitment"] == fairness.commitment(seed)
    assert seed.hex() not in json.dumps(doc)


# ----- the move log is an output: the rules never read it ------------------------------------
# The platform keeps ``state["moves"]`` in its own table and hands the engine a state whose log
# is empty (or holds only the entries since its last save). Two runs of the same game, one with
# the whole log and one with it cut after every apply, must agree on everything but the log.


def _without_log(obj: dict) -> dict:
    return {k: v for k, v in obj.items() if k != "moves"}


def _outcome(engine, state, seat, move, now):
    """``apply``'s result, or the refusal's code (both runs must refuse alike)."""
    try:
        return engine.apply(state, seat, move, now_ms=now)
    except IllegalMove as exc:
        return exc.code


def _assert_same_rules(engine, full, cut, seats, where) -> None:
    assert _without_log(full) == _without_log(cut), f"{where}: states differ beyond the log"
    assert engine.to_act(full) == engine.to_act(cut), where
    assert engine.deadline(full) == engine.deadline(cut), where
    assert engine.is_over(full) == engine.is_over(cut), where
    assert engine.replay_view(full) == engine.replay_view(cut), where
    for seat in [*range(seats), None]:
        assert engine.view(full, seat) == engine.view(cut, seat), f"{where}: view of seat {seat}"
        if seat is not None:
            assert engine.legal_moves(full, seat) == engine.legal_moves(cut, seat), f"{where}: seat {seat}"
    if engine.is_over(full):
        assert engine.result(full) == engine.result(cut), where
        assert _without_log(engine.proof(full)) == _without_log(engine.proof(cut)), where


def play_with_and_without_log(game: str, seed: bytes, seats: int, rng_seed: int, leave_rate: float) -> int:
    """Play one random game (timeouts, system steps and, at ``leave_rate`` per step, leaves)
    twice in lockstep; returns the number of steps taken."""
    engine = get_engine(game)
    rng = random.Random(rng_seed)
    full = engine.new(seed, seats)
    cut = engine.new(seed, seats)
    assert full["move_count"] == 0 and full["moves"] == []
    saved: list = []  # what the platform's table of moves would hold
    now = 0
    for step in range(MAX_STEPS):
        where = f"{game} seats={seats} step={step}"
        _assert_same_rules(engine, full, cut, seats, where)
        assert full["move_count"] == len(full["moves"]), where
        if engine.is_over(full):
            assert full["moves"] == saved + cut["moves"], "the cut log's pieces make the whole log"
            return step
        now += rng.choice((1, 400, 2500, 30_000))
        due = engine.deadline(full)
        roll = rng.random()
        # A system step (seat None: Lembar's catch window) half the time, so catches happen too.
        if roll < (0.5 if due["seat"] is None else 0.15):
            mover = due["seat"]
            move = engine.timeout_move(full, mover)
            assert move == engine.timeout_move(cut, mover), where
            if mover is None and rng.random() < 0.8:
                now = max(now, _due_at(due))  # mostly when due; early it must be refused alike
        elif roll > 1 - leave_rate:
            mover, move = rng.randrange(seats), {"type": "leave"}  # may be refused: seat already out
        else:
            mover = rng.choice(engine.to_act(full))
            move = rng.choice(engine.legal_moves(full, mover))
        before = full["move_count"]
        got_full = _outcome(engine, full, mover, move, now)
        got_cut = _outcome(engine, cut, mover, move, now)
        if isinstance(got_full, str):
            assert got_full == got_cut, f"{where}: refused differently"
            continue
        assert not isinstance(got_cut, str), f"{where}: the cut run refused {move!r}: {got_cut}"
        (full, events_full), (cut_next, events_cut) = got_full, got_cut
        assert events_full == events_cut, where
        appended = full["moves"][before:]
        if mover is None:  # a system step is not a move: no entry, no number
            assert appended == [] and full["move_count"] == before, f"{where}: a system step was logged"
        else:
            assert [e["seq"] for e in appended] == [full["move_count"]], f"{where}: one entry, seq == move_count"
            assert appended[-1]["now_ms"] == now == full["last_move_ms"], where
        assert cut_next["moves"] == cut["moves"] + appended, f"{where}: the cut run appends the same entries"
        # The platform saves the new entries and hands back an empty log (sometimes it has not
        # saved yet and the log holds the entries since its last save).
        if rng.random() < 0.8:
            saved += cut_next["moves"]
            cut_next["moves"] = []
        cut = cut_next
    pytest.fail(f"{game} did not end within {MAX_STEPS} steps")


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.binary(min_size=32, max_size=32), rng_seed=st.integers(0, 2**32), pick=st.integers(0, 10),
       leave_rate=st.sampled_from([0.0, 0.002, 0.03]))
def test_rules_never_read_the_move_log(game, seed, rng_seed, pick, leave_rate):
    seats = SEAT_CHOICES[game][pick % len(SEAT_CHOICES[game])]
    assert play_with_and_without_log(game, seed, seats, rng_seed, leave_rate) > 0


@pytest.mark.parametrize("game", GAMES)
def test_rules_never_read_the_move_log_every_seat_count(game):
    for k, seats in enumerate(SEAT_CHOICES[game]):
        for leave_rate in (0.0, 0.01):
            play_with_and_without_log(game, bytes([k + 1] * 32), seats, 1000 + k, leave_rate)
