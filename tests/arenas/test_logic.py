"""The arena's pure rules: points per result, the streak bonus, pairing, places and prizes."""

from __future__ import annotations

import random

from arenas import logic
from arenas.logic import Outcome, Waiting
from gameworkers.engines import game_spec


def points(ranks, game="lembar"):
    found = logic.outcomes(ranks, game_spec(game).sides(len(ranks)))
    return [found[seat].points for seat in range(len(ranks))], [found[seat].win for seat in range(len(ranks))]


def test_two_sides_win_draw_loss():
    assert points([1, 2]) == ([2, 0], [True, False])
    assert points([2, 1]) == ([0, 2], [False, True])
    assert points([1, 1]) == ([1, 1], [False, False])


def test_more_sides_first_two_the_top_half_one():
    assert points([2, 1, 3], "cherki") == ([1, 2, 0], [False, True, False])
    assert points([1, 1, 1], "cherki") == ([1, 1, 1], [False, False, False])  # a void game: a three-way tie
    assert points([3, 1, 2, 4]) == ([0, 2, 1, 0], [False, True, False, False])
    assert points([1, 2, 2, 4, 5, 6])[0] == [2, 1, 1, 0, 0, 0]
    assert points([1, 1, 3, 4])[0] == [1, 1, 0, 0]  # shared first is a draw; third of four is not top half


def test_baloot_partners_share_the_team_result():
    # seats 0 & 2 against 1 & 3; the engine ranks both seats of a team alike
    assert points([1, 2, 1, 2], "baloot") == ([2, 0, 2, 0], [True, False, True, False])
    assert points([2, 1, 2, 1], "baloot")[0] == [0, 2, 0, 2]


def test_two_wins_in_a_row_light_the_fire_until_a_game_is_not_won():
    win, draw, loss = Outcome(2, True), Outcome(1, False), Outcome(0, False)
    streak, total, doubled_games = 0, 0, []
    for outcome in (win, win, win, draw, win, loss, win, win, win):
        gained, streak, doubled = logic.score(streak, outcome)
        total += gained
        doubled_games.append(doubled)
    assert doubled_games == [False, False, True, True, False, False, False, False, True]
    # 2 + 2 + 4 + 2 (a draw on fire counts double, then the streak ends) + 2 + 0 + 2 + 2 + 4
    assert total == 20 and streak == 3


def w(player, score=0, waited=0.0, last=()):
    return Waiting(player=player, user=player * 10, score=score, waited=waited,
                   last_opponents=frozenset(x * 10 for x in last))


def test_plan_pairs_close_scores_at_once_and_leftovers_wait_for_bots():
    groups = logic.plan([w(1, 0), w(2, 9), w(3, 4), w(4, 8), w(5, 1, waited=3)], seats=2, bot_after=10)
    assert [[m.player for m in g] for g in groups] == [[2, 4], [3, 5]]  # player 1 waits (alone, 0 s)
    groups = logic.plan([w(1, 0, waited=10)], seats=2, bot_after=10)
    assert [[m.player for m in g] for g in groups] == [[1]]  # a bot takes the other seat
    assert logic.plan([w(1, waited=9.9), w(2, waited=1)], seats=3, bot_after=10) == []
    groups = logic.plan([w(1, waited=10), w(2, waited=1)], seats=3, bot_after=10)
    assert [[m.player for m in g] for g in groups] == [[1, 2]]  # together, one bot


def test_plan_avoids_an_immediate_rematch_when_it_can():
    groups = logic.plan([w(1, 5, last=[2]), w(2, 5, last=[1]), w(3, 0)], seats=2, bot_after=60)
    assert [[m.player for m in g] for g in groups] == [[1, 3]]
    groups = logic.plan([w(1, 5, last=[2]), w(2, 5, last=[1])], seats=2, bot_after=60)
    assert [[m.player for m in g] for g in groups] == [[1, 2]]  # nobody else: they play again


def test_seat_order_is_a_permutation():
    members = list(range(6))
    assert sorted(logic.seat_order(members, random.Random(3))) == members


def test_places_and_prizes_split_ties_evenly():
    ranks = logic.competition_ranks({10: 7, 11: 7, 12: 3, 13: 0})
    assert ranks == {10: 1, 11: 1, 12: 3, 13: 4}
    amounts = logic.prize_amounts(pool=101, payouts=[50, 30, 20], places=4)
    assert amounts == [51, 30, 20, 0]  # rounding remainders to first
    prizes = logic.split_prizes(ranks=ranks, amounts=amounts)
    assert prizes == {10: 41, 11: 40, 12: 20, 13: 0}  # 1st+2nd shared: 81 → 41/40 (the earlier joiner)
    assert sum(prizes.values()) == 101


def test_unclaimed_places_go_to_first():
    assert logic.prize_amounts(pool=100, payouts=[50, 30, 20], places=2) == [70, 30]
    assert logic.prize_amounts(pool=100, payouts=[100], places=3) == [100, 0, 0]
    assert logic.prize_amounts(pool=0, payouts=[50, 50], places=1) == [0]
    assert logic.split_prizes(ranks={1: 1, 2: 1, 3: 1}, amounts=[70, 30, 0]) == {1: 34, 2: 33, 3: 33}
