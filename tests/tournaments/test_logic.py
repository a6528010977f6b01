"""Pure tournament logic: balancing (property tests), ranking, prizes, brackets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameworkers.engines.otuzbir import ante_for
from tournaments.logic import (
    DEFAULT_ROWS,
    WHOLE,
    Bust,
    LogicError,
    TableState,
    balance,
    bracket_rounds,
    check_rows,
    first_round,
    format_percent,
    next_round,
    parse_percents,
    pass_ebe,
    payout_percents,
    prize_split,
    prize_table,
    rank_busts,
    seat_late,
    seat_players,
    split_places,
    tables_needed,
)


def _check(tables: list[TableState], players: set[int], seats: int) -> None:
    sizes = [len(t.players) for t in tables]
    assert max(sizes) - min(sizes) <= 1
    assert max(sizes) <= seats
    assert len(tables) == tables_needed(len(players), seats)
    seated = [p for t in tables for p in t.players]
    assert sorted(seated) == sorted(players)
    for t in tables:
        assert t.ebe is None or t.ebe in t.players


@settings(max_examples=100, deadline=None)
@given(n=st.integers(2, 120), seats=st.integers(2, 7), data=st.data())
def test_balancing_keeps_sizes_within_one_and_reaches_a_final_table(n, seats, data):
    tables = seat_players(list(range(n)), seats=seats)
    alive = set(range(n))
    _check(tables, alive, seats)
    hand_of = {p: 0 for p in alive}
    rounds = 0
    while len(alive) > 1:
        rounds += 1
        # every table plays a hand; some players bust (never everyone: the pot winner survives)
        before = len(alive)
        for t in tables:
            t.hands += 1
            busts = data.draw(st.lists(st.sampled_from(t.players), unique=True, max_size=len(t.players) - 1))
            if t is tables[-1] and len(alive) - len(busts) == before:
                busts = [t.players[-1]]  # at least one bust per round, so the test ends
            for p in busts:
                t.players.remove(p)
                alive.discard(p)
            if t.ebe not in t.players:
                t.ebe = t.players[0] if t.players else None
        result = balance(tables, seats=seats)
        tables = result.tables
        _check(tables, alive, seats)
        for t in tables:
            for p in t.players:
                assert t.hands >= hand_of[p]  # a table never takes a player back to a lower ante
                hand_of[p] = t.hands
        for move in result.moves:
            assert move.from_table != move.to_table
        if len(alive) <= seats:
            assert len(tables) == 1  # the final table
        assert rounds < 10 * n
    assert len(tables) == 1


def test_balance_breaks_the_table_that_empties_best_and_takes_the_highest_count():
    tables = [TableState(1, [1, 2, 3, 4], hands=3, ebe=1), TableState(2, [5, 6, 7], hands=7, ebe=6),
              TableState(3, [8, 9], hands=5, ebe=9)]
    result = balance(tables, seats=5)
    assert result.broken == [3]
    ids = {t.id: t for t in result.tables}
    # 9 is the ebe of table 3: ebe altı (8) moves first, to the smaller table (2), then 9 to table 1
    assert ids[2].players == [5, 6, 7, 8] and ids[1].players == [1, 2, 3, 4, 9]
    assert ids[2].hands == 7 and ids[1].hands == 5
    assert tables[2].players == [8, 9]  # inputs unchanged


def test_balance_moves_ebe_alti_of_the_largest_table_to_the_smallest():
    tables = [TableState(1, [1, 2, 3, 4, 5], hands=2, ebe=3), TableState(2, [6, 7, 8], hands=4, ebe=6)]
    result = balance(tables, seats=5)
    ids = {t.id: t for t in result.tables}
    assert ids[1].players == [1, 2, 3, 5] and ids[2].players == [6, 7, 8, 4]
    assert ids[2].hands == 4 and ids[1].hands == 2  # the receiving table keeps the higher count


def test_balance_rejects_bad_input():
    with pytest.raises(LogicError) as err:
        balance([TableState(1, [1, 2]), TableState(2, [2, 3])], seats=4)
    assert err.value.code == "duplicate_player"
    with pytest.raises(LogicError) as err:
        balance([TableState(1, [1, 2])], seats=1)
    assert err.value.code == "bad_seats"


def test_pass_ebe_goes_to_ebe_alti():
    assert pass_ebe([1, 2, 3, 4], 2, {1, 3, 4}) == 3
    assert pass_ebe([1, 2, 3, 4], 4, {2, 3}) == 2
    assert pass_ebe([1, 2, 3, 4], 3, {1, 3}) == 3


def test_ante_schedule_doubles_every_five_hands_and_follows_levels():
    schedule = {"ante_schedule": {"base": 1, "double_every": 5}, "ante": 1}
    assert [ante_for(schedule, h) for h in (0, 4, 5, 9, 10, 15, 20)] == [1, 1, 2, 2, 4, 8, 16]
    levels = {"ante_schedule": {"levels": [1, 2, 3], "every": 2}, "ante": 1}
    assert [ante_for(levels, h) for h in range(8)] == [1, 1, 2, 2, 3, 3, 3, 3]


def test_same_hand_busts_rank_by_stack_at_the_start_of_the_hand():
    places = rank_busts([Bust(1, 10), Bust(2, 40), Bust(3, 10), Bust(4, 25)], remaining=3)
    assert places == {2: 4, 4: 5, 1: 6, 3: 6}


def test_leavers_rank_below_the_hands_busts_the_later_leave_higher_never_shared():
    # otuzbir.md, Tournament: a leaver "ranks below everyone still playing and below the players
    # eliminated at the end of that hand, and of several who leave the later ranks higher. Two
    # players never share a place because of a leave." left_at = (now_ms, seq) of the leave move.
    busts = [Bust(1, 10), Bust(2, 90, left_at=(5_000, 3)), Bust(3, 10), Bust(4, 90, left_at=(7_000, 9)),
             Bust(5, 90, left_at=(7_000, 8)), Bust(6, 50, left_at=(6_000, 4))]
    places = rank_busts(busts, remaining=2)
    # 1 and 3 are genuinely tied (same hand, same start stack); the leavers never are
    assert places == {1: 3, 3: 3, 4: 5, 5: 6, 6: 7, 2: 8}
    # the same millisecond at one table: its log order decides; at two tables (log numbers that
    # cannot be compared) still no shared place: the larger stack, then the earlier entry
    places = rank_busts([Bust(7, 40, left_at=(1_000, 5)), Bust(8, 40, left_at=(1_000, 5)),
                         Bust(9, 60, left_at=(1_000, 5))], remaining=1)
    assert places == {9: 2, 7: 3, 8: 4}


def test_prizes_follow_the_places_a_leave_never_splits_a_prize():
    # four entrants; 2nd and 3rd both left in the last hand, 3rd first: 2nd takes the whole 30%
    places = rank_busts([Bust(11, 99, left_at=(100, 2)), Bust(12, 99, left_at=(200, 5))], remaining=1)
    places[10] = 1
    assert split_places(places=places, prizes=prize_table(pool=80, entrants=4)) == {10: 56, 12: 24}


def test_prize_table_70_30_and_winner_takes_all():
    assert prize_table(pool=600, entrants=30) == [420, 180]
    assert prize_table(pool=81, entrants=4) == [57, 24]  # remainder to first place
    assert prize_table(pool=60, entrants=3) == [60]
    with pytest.raises(LogicError):
        prize_table(pool=-1, entrants=3)


def test_shared_places_sum_the_places_they_cover():
    prizes = prize_table(pool=101, entrants=5)  # [71, 30]
    # two players share 2nd (cover 2nd and 3rd: 30 + 0), split 15/15
    assert split_places(places={1: 1, 2: 2, 3: 2}, prizes=prizes, seats={2: 3, 3: 1}) == {1: 71, 2: 15, 3: 15}
    # two share first: 101 split, the odd chip to the smaller seat
    assert split_places(places={1: 1, 2: 1, 3: 3}, prizes=prizes, seats={1: 4, 2: 2}) == {2: 51, 1: 50}


def test_three_round_bracket_with_a_bye():
    teams = [10, 11, 12, 13, 14]  # Baloot pairs: tables of two teams
    assert bracket_rounds(5, 2) == 3
    round1 = first_round(teams, k=2, low=2)
    assert sorted(len(g) for g in round1) == [1, 1, 1, 2]
    byes = [g[0] for g in round1 if len(g) == 1]
    assert sorted(byes) == [10, 11, 12]  # the earliest registrations
    winners1 = [g[0] if len(g) == 1 else g[1] for g in round1]
    round2 = next_round(winners1, k=2)
    assert len(round2) == 2 and all(len(t) == 2 for t in round2)
    round3 = next_round([t[0] for t in round2], k=2)
    assert len(round3) == 1 and len(round3[0]) == 2
    assert next_round([round3[0][0]], k=2) == []


@settings(max_examples=150, deadline=None)
@given(n=st.integers(2, 300), game=st.sampled_from([("lembar", 4, 2), ("lembar", 6, 2), ("cherki", 3, 3),
                                                     ("baloot", 2, 2)]))
def test_brackets_always_reach_one_final_table(n, game):
    _, k, low = game
    if low == k and (n - 1) % (k - 1):
        with pytest.raises(LogicError) as err:
            first_round(list(range(n)), k=k, low=low)
        assert err.value.code == "uneven_bracket"
        return
    if n < low:
        return
    groups = first_round(list(range(n)), k=k, low=low)
    assert sorted(p for g in groups for p in g) == list(range(n))
    assert all(len(g) == 1 or low <= len(g) <= k for g in groups)
    winners = [g[-1] for g in groups]
    rounds = 1
    while len(winners) > 1:
        tables = next_round(winners, k=k)
        assert all(len(t) == k for t in tables)
        winners = [t[0] for t in tables]
        rounds += 1
    assert rounds == bracket_rounds(n, k)


# ----- payout structures (issue 24) ---------------------------------------------------------------------

def test_percentages_are_whole_or_two_decimals_and_add_up_to_100():
    assert parse_percents("70, 30") == [7_000, 3_000]
    assert parse_percents("33.34; 33.33, 33.33 %") == [3_334, 3_333, 3_333]
    assert [format_percent(p) for p in (7_000, 3_333, 1_250)] == ["70", "33.33", "12.5"]
    for text, code in [("70, 20", "bad_sum"), ("50.005, 49.995", "bad_percent"), ("30, 70", "bad_order"),
                       ("-10, 110", "bad_percent"), ("NaN", "bad_percent"), (" , ", "no_percents")]:
        with pytest.raises(LogicError) as err:
            parse_percents(text)
        assert err.value.code == code


def test_the_row_for_the_entrant_count_applies():
    rows = [(1, [WHOLE]), (5, [5_000, 3_000, 2_000]), (4, [7_000, 3_000])]
    assert [len(payout_percents(rows=rows, entrants=n)) for n in (0, 1, 3, 4, 5, 99)] == [1, 1, 1, 2, 3, 3]
    assert payout_percents(rows=[], entrants=10) == [WHOLE]
    assert prize_table(pool=600, entrants=30) == prize_table(pool=600, entrants=30, rows=DEFAULT_ROWS)
    for rows, code in [([(3, [WHOLE])], "no_small_row"), ([(1, [WHOLE]), (1, [WHOLE])], "duplicate_row"),
                       ([(2, [4_000, 3_000, 3_000])], "too_many_places"), ([(1, [9_000])], "bad_sum")]:
        with pytest.raises(LogicError) as err:
            check_rows(rows)
        assert err.value.code == code


percents_st = st.lists(st.integers(1, 5_000), min_size=1, max_size=9).map(
    lambda xs: sorted([*xs[:-1], WHOLE - sum(xs[:-1])], reverse=True) if sum(xs[:-1]) < WHOLE else [WHOLE])


@settings(max_examples=300, deadline=None)
@given(pool=st.integers(0, 10**7), percents=percents_st, data=st.data())
def test_prizes_always_add_up_to_the_pool_whatever_the_ties(pool, percents, data):
    prizes = prize_split(pool=pool, percents=percents)
    assert sum(prizes) == pool and prizes[0] == max(prizes)  # the rounding remainder goes to the best place
    assert all(p == pool * q // WHOLE for p, q in zip(prizes[1:], percents[1:], strict=True))
    # any finishing order with ties (competition ranks): everything is paid, nobody twice
    n = data.draw(st.integers(len(prizes), 40))
    scores = data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    places = {p: 1 + sum(1 for other in scores if other > scores[p]) for p in range(n)}
    paid = split_places(places=places, prizes=prizes, seats={p: (p * 7) % n for p in range(n)})
    assert sum(paid.values()) == pool


def test_late_entrants_take_a_free_seat_or_a_new_table_at_the_highest_hand_count():
    tables = [TableState(1, [1, 2, 3], 6), TableState(2, [4, 5], 8)]
    seated = seat_late(tables, [10, 11, 12], seats=3, next_id=3)
    assert [t.players for t in seated] == [[1, 2, 3], [4, 5, 10], [11, 12]]
    assert seated[2].id == 3 and seated[2].hands == 8 and tables[1].players == [4, 5]  # inputs untouched
    evened = balance(seated, seats=3)
    assert sorted(len(t.players) for t in evened.tables) == [2, 3, 3]
    with pytest.raises(LogicError):
        seat_late(tables, [1], seats=3, next_id=3)
