"""The pure matcher: rating windows, waiting bonus, bounded gaps, bot fill, parties."""

from __future__ import annotations

from matchmaking.planner import Gaps, RoomRules, Unit, plan_room

GAPS = Gaps(base=3.0, per_second=0.5, max=15.0)


def units(*specs):
    return [Unit([i], rating, waited) for i, (rating, waited) in enumerate(specs)]


def rules(**kw):
    base = {"seats": 4, "min_seats": 4, "fill_delay_s": 30, "bots_available": 6}
    base.update(kw)
    return RoomRules(**base)


def test_close_ratings_are_grouped_together():
    found = plan_room(units((10, 1), (40, 1), (11, 1), (41, 1), (12, 1), (42, 1), (13, 1), (43, 1)), rules(), GAPS)
    assert sorted(sorted(g.entries) for g in found) == [[0, 2, 4, 6], [1, 3, 5, 7]]
    assert all(g.bots == 0 and g.seat_count == 4 for g in found)


def test_gap_widens_with_waiting_up_to_the_bound():
    spread = ((20, 0), (24, 0), (28, 0), (32, 0))  # neighbours 4 apart: outside the base window of 3
    assert plan_room(units(*spread), rules(), GAPS) == []
    waited = tuple((r, 20) for r, _ in spread)  # window 3 + 10 = 13 >= 12
    assert [sorted(g.entries) for g in plan_room(units(*waited), rules(), GAPS)] == [[0, 1, 2, 3]]
    far = ((0, 29), (16, 29), (32, 29), (48, 29))  # gaps of 16 exceed the 15 bound however long they wait
    assert plan_room(units(*far), rules(), GAPS) == []


def test_a_pair_needs_to_fit_both_windows():
    # The old player's window is wide, the newcomer's is not: no match until the newcomer waits too.
    assert plan_room(units((20, 25), (30, 25), (25, 25), (35, 0)), rules(), GAPS) == []
    assert len(plan_room(units((20, 25), (30, 25), (25, 25), (35, 10)), rules(), GAPS)) == 1


def test_bots_fill_only_after_the_delay():
    lonely = units((25, 29.9))
    assert plan_room(lonely, rules(), GAPS) == []
    [group] = plan_room(units((25, 30)), rules(), GAPS)
    assert group.entries == [0] and group.seat_count == 4 and group.bots == 3


def test_bots_never_take_a_seat_a_waiting_human_could_take():
    # After the delay, the gap no longer matters: a far-rated human still beats a bot.
    [group] = plan_room(units((0, 31), (49, 0)), rules(), GAPS)
    assert sorted(group.entries) == [0, 1] and group.bots == 2
    # Five humans in a four-seat room: a full human table, the fifth waits (no bots next to humans who fit).
    found = plan_room(units(*[(25, 40)] * 5), rules(), GAPS)
    assert [g.bots for g in found] == [0, 3]
    assert sorted(e for g in found for e in g.entries) == [0, 1, 2, 3, 4]


def test_bot_tables_use_the_minimum_where_the_room_allows_fewer_seats():
    [group] = plan_room(units((25, 31)), rules(min_seats=2), GAPS)
    assert (group.seat_count, group.bots) == (2, 1)
    [group] = plan_room(units((25, 31), (26, 1), (27, 1)), rules(min_seats=2), GAPS)
    assert (group.seat_count, group.bots) == (3, 0)  # three humans play three-handed, no bot
    [group] = plan_room(units((25, 31)), rules(min_seats=2, bot_tables="full"), GAPS)
    assert (group.seat_count, group.bots) == (4, 3)


def test_bots_only_rooms_seat_each_player_at_once_with_bots():
    found = plan_room(units((25, 0), (25, 0)), rules(bots_only=True, fill_delay_s=0), GAPS)
    assert [(g.entries, g.bots) for g in found] == [([0], 3), ([1], 3)]
    assert plan_room(units((25, 0)), rules(bots_only=True, fill_delay_s=0, bots_available=2), GAPS) == []


def test_parties_sit_together():
    party = Unit([0, 1], 25, 5, size=2, party="p")
    found = plan_room([party, Unit([2], 25, 5), Unit([3], 25, 5)], rules(), GAPS)
    assert [sorted(g.entries) for g in found] == [[0, 1, 2, 3]]
    # A party never splits, even when only part of it would fit.
    for singles in (1, 2, 3):
        crowd = [Unit([9], 25, 40), party] + [Unit([10 + i], 25, 5) for i in range(singles)]
        for group in plan_room(crowd, rules(seats=3, min_seats=3), GAPS):
            assert {0, 1} <= set(group.entries) or not {0, 1} & set(group.entries)
            assert group.humans + group.bots == 3


def test_not_enough_bots_means_keep_waiting():
    assert plan_room(units((25, 60)), rules(bots_available=2), GAPS) == []
