"""Play whole games between bots with the engine alone (no Django, Redis or database).

Used by ``manage.py playbots``, the property tests and the benchmarks.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from gameworkers.bots import Bot, get_bot
from gameworkers.engines import get_engine

STEP_MS = 400  # simulated time between consecutive moves


def play_game(
    game: str,
    seed: bytes,
    seats: int,
    *,
    options: dict | None = None,
    bots: list[Bot] | None = None,
    rng_seed: int = 0,
    max_steps: int = 200_000,
    step_ms: int = STEP_MS,
    on_step: Callable[[dict, int | None, dict], None] | None = None,
) -> dict:
    """Play to the end and return the final state.

    Each step: every seat in ``to_act`` except the one whose deadline runs may act
    optionally (catch windows and the like); then the deadline seat (or the system
    step when the deadline belongs to nobody) must act.
    """
    engine = get_engine(game)
    state = engine.new(seed, seats, options)
    bots = bots or [get_bot(game) for _ in range(seats)]
    rng = random.Random(rng_seed)
    now = 0
    for _ in range(max_steps):
        if engine.is_over(state):
            return state
        now += step_ms
        moved = False
        due = engine.deadline(state)
        due_seat = due["seat"] if due else None
        if due is not None and due_seat is None and due.get("since_ms") is not None \
                and due.get("limit_ms") is not None and now > due["since_ms"] + due["limit_ms"]:
            # An overdue system step (e.g. an expired Lembar catch window) comes first, as in the
            # runtime; otherwise a seat could be offered a move the expiry has made illegal.
            state = _apply(engine, state, None, engine.timeout_move(state, None), now, on_step)
            continue
        for seat in engine.to_act(state):
            if seat == due_seat:
                continue
            legal = engine.legal_moves(state, seat)
            if not legal:
                continue
            move = bots[seat].choose(engine.view(state, seat), legal, rng, optional=True)
            if move is not None:
                state = _apply(engine, state, seat, move, now, on_step)
                moved = True
                break
        if moved:
            continue
        if due is None:
            raise RuntimeError(f"{game}: nobody must act but the game is not over")
        if due_seat is None or (due.get("limit_ms") == 0):
            if due_seat is None and due.get("since_ms") is not None and due.get("limit_ms") is not None:
                # A system step runs when it is due, never early (Lembar refuses to close a catch
                # window before its 3 s have passed): the clock jumps to it.
                now = max(now, due["since_ms"] + due["limit_ms"])
            move = engine.timeout_move(state, due_seat)
        else:
            legal = engine.legal_moves(state, due_seat)
            move = bots[due_seat].choose(engine.view(state, due_seat), legal, rng)
            if move is None:
                move = engine.timeout_move(state, due_seat)
        state = _apply(engine, state, due_seat, move, now, on_step)
    raise RuntimeError(f"{game}: no end after {max_steps} steps")


def _apply(engine: Any, state: dict, seat: int | None, move: dict, now: int,
           on_step: Callable[[dict, int | None, dict], None] | None) -> dict:
    state, _events = engine.apply(state, seat, move, now_ms=now)
    if on_step is not None:
        on_step(state, seat, move)
    return state
