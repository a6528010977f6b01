"""Arena rules as pure functions (no Django): points per result, the streak bonus, pairing, places
and the prize split. docs/arenas.md states each reading.

Points (Lichess: win 2, draw 1, loss 0), generalised by the sides' ranks in the engine's
``result()["ranks"]`` (a side is a player, or a Baloot pair):

- first alone: a **win**, 2 points;
- first shared with another side: a **draw**, 1 point (a void Cherki game is a three-way tie);
- otherwise 1 point when the side finished in the top half (rank ≤ ceil(sides / 2)), else 0: with two
  sides a loss is 0; Cherki's three: 2 / 1 / 0; four-handed Lembar: 2 / 1 / 0 / 0.

Streak: after ``FIRE_AFTER`` (2) wins in a row a player is on fire and every result counts double
(win 4, draw 2) until a game that is not a win ends the streak.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

WIN_POINTS = 2
DRAW_POINTS = 1
FIRE_AFTER = 2  # wins in a row before results count double


@dataclass(frozen=True)
class Outcome:
    points: int  # before the streak bonus
    win: bool


def side_ranks(ranks: list, sides: list[list[int]]) -> list[int | None]:
    """Each side's rank: the best rank of its seats (a Baloot pair shares one)."""
    out: list[int | None] = []
    for seats in sides:
        values = [ranks[s] for s in seats if s < len(ranks) and isinstance(ranks[s], int)]
        out.append(min(values) if values else None)
    return out


def outcomes(ranks: list, sides: list[list[int]]) -> dict[int, Outcome]:
    """Seat -> outcome, from the engine's per-seat ranks (1 = first, shared ranks allowed)."""
    by_side = side_ranks(ranks, sides)
    counted = [r for r in by_side if r is not None]
    top_half = math.ceil(len(by_side) / 2)
    result: dict[int, Outcome] = {}
    for seats, rank in zip(sides, by_side, strict=True):
        if rank is None:
            outcome = Outcome(0, False)
        elif rank == 1 and counted.count(1) == 1:
            outcome = Outcome(WIN_POINTS, True)
        elif rank == 1:
            outcome = Outcome(DRAW_POINTS, False)
        elif rank <= top_half:
            outcome = Outcome(DRAW_POINTS, False)
        else:
            outcome = Outcome(0, False)
        for seat in seats:
            result[seat] = outcome
    return result


def score(streak: int, outcome: Outcome) -> tuple[int, int, bool]:
    """``(points, new streak, doubled)`` for a player with ``streak`` wins in a row before this game."""
    doubled = streak >= FIRE_AFTER
    points = outcome.points * (2 if doubled else 1)
    return points, (streak + 1 if outcome.win else 0), doubled


# ----- pairing ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Waiting:
    player: int  # ArenaPlayer id
    user: int
    score: int
    waited: float  # seconds since the player became free
    last_opponents: frozenset[int] = frozenset()  # user ids


def plan(waiting: list[Waiting], *, seats: int, bot_after: float) -> list[list[Waiting]]:
    """Groups to seat now; a group shorter than ``seats`` gets bots in the free seats.

    Players close in the standings meet (highest score first; a tie: who waited longer); a full group
    forms as soon as enough are free, preferring people who did not just play the anchor. The few
    left over wait, until one of them has waited ``bot_after`` seconds: then they play together with bots.
    """
    pool = sorted(waiting, key=lambda w: (-w.score, -w.waited, w.player))
    groups: list[list[Waiting]] = []
    while len(pool) >= seats:
        anchor = pool.pop(0)
        fresh = [w for w in pool if w.user not in anchor.last_opponents and anchor.user not in w.last_opponents]
        chosen = fresh[:seats - 1]
        if len(chosen) < seats - 1:  # only rematches left: play them rather than wait
            chosen += [w for w in pool if w not in chosen][:seats - 1 - len(chosen)]
        chosen_ids = {w.player for w in chosen}
        pool = [w for w in pool if w.player not in chosen_ids]
        groups.append([anchor, *chosen])
    if pool and max(w.waited for w in pool) >= bot_after:
        groups.append(pool)
    return groups


def seat_order(members: list, rng: random.Random) -> list:
    """The seat draw: a fresh random order for every game (Baloot: the partners of the game)."""
    order = list(members)
    rng.shuffle(order)
    return order


# ----- standings and prizes ------------------------------------------------------------------

def competition_ranks(scores: dict[int, int]) -> dict[int, int]:
    """Player -> rank by score, equal scores sharing a rank (1, 1, 3)."""
    ordered = sorted(scores.values(), reverse=True)
    return {player: 1 + ordered.index(value) for player, value in scores.items()}


def prize_amounts(*, pool: int, payouts: list[int], places: int) -> list[int]:
    """Prize per place (index 0 = first) for ``places`` ranked players: ``floor(pool × % / 100)`` each;
    places nobody takes and every remainder of rounding go to first place."""
    if places <= 0:
        return []
    amounts = [pool * percent // 100 for percent in payouts[:places]]
    amounts += [0] * (places - len(amounts))
    amounts[0] += pool - sum(amounts)
    return amounts


def split_prizes(*, ranks: dict[int, int], amounts: list[int]) -> dict[int, int]:
    """Player -> prize. Players sharing a rank share the prizes of the places they cover, evenly; the
    remainder goes to the smallest player id (the earliest to join)."""
    by_rank: dict[int, list[int]] = {}
    for player, rank in ranks.items():
        by_rank.setdefault(rank, []).append(player)
    prizes: dict[int, int] = {}
    for rank, players in by_rank.items():
        covered = sum(amounts[rank - 1:rank - 1 + len(players)])
        share, remainder = divmod(covered, len(players))
        for index, player in enumerate(sorted(players)):
            prizes[player] = share + (remainder if index == 0 else 0)
    return prizes
