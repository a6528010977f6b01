"""OpenSkill ratings: every game, teams for Baloot, rankings with ties, bots rated, once per table."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from matchmaking import selectors, services
from matchmaking.models import Rating, RatingChange
from rooms import services as rooms_services
from rooms.models import Table, TableStatus
from rooms.signals import table_finished

pytestmark = pytest.mark.django_db

SIZES = {"baloot": 4, "cherki": 3, "lembar": 3, "otuzbir": 3}


def _finish(room, users, leavers, capture) -> Table:
    """A real game ended by the rules through rooms.services: players leave until it is over.

    The finishing commit sends rooms.signals.table_finished (on_commit callbacks run here)."""
    with capture(execute=True):
        table = rooms_services.table_open(room=room, seat_count=len(users))
        for u in users:
            rooms_services.table_sit(table_id=table.pk, user=u)
        for u in leavers:
            rooms_services.table_stand(table_id=table.pk, user=u)
    table.refresh_from_db()
    return table


@pytest.mark.parametrize("game", ["baloot", "cherki", "lembar", "otuzbir"])
def test_a_finished_game_updates_ratings_once(game, make_room, make_user, bots,
                                              django_capture_on_commit_callbacks):
    room = make_room(game=game, seats=SIZES[game], min_seats=2 if game in ("lembar", "otuzbir") else SIZES[game])
    humans = [make_user() for _ in range(SIZES[game] - 1)]
    players = humans + [bots[0]]  # the bot sits last, so it takes the last seat
    if game == "cherki":
        # A left Cherki seat stays in the game (automatic play), so a real game is long: the table is
        # finished with an engine-shaped result and the signal is sent as rooms.services sends it.
        table = rooms_services.table_open(room=room, seat_count=3)
        for u in players:
            rooms_services.table_sit(table_id=table.pk, user=u)
        Table.objects.filter(pk=table.pk).update(status=TableStatus.FINISHED, result={
            "ranks": [2, 1, 2], "winners": [1], "winner": 1, "void": False, "settled": True})
        table_finished.send(sender=Table, table_id=table.pk)
        table.refresh_from_db()
    else:
        # Baloot: seats 0 and 2 leave, that team forfeits; Lembar and 31: the last one in wins.
        leavers = [humans[0], humans[2]] if game == "baloot" else humans[:-1] + [bots[0]]
        table = _finish(room, players, leavers, django_capture_on_commit_callbacks)
    assert table.status == TableStatus.FINISHED, (table.status, table.stop_reason)
    changes = {c.user_id: c for c in RatingChange.objects.filter(table=table)}
    assert set(changes) == {u.pk for u in players}  # the bot is rated too
    ranks = table.result["ranks"]
    by_seat = {s.number: s.user_id for s in table.seats.all()}
    winners = {by_seat[n] for n, r in enumerate(ranks) if r == 1}
    losers = {by_seat[n] for n, r in enumerate(ranks) if r == max(ranks)}
    assert winners and losers and not winners & losers
    for user_id, change in changes.items():
        rating = Rating.objects.get(user_id=user_id, game=game)
        assert (rating.mu, rating.sigma, rating.games) == (change.mu_after, change.sigma_after, 1)
        assert rating.sigma < change.sigma_before
        if user_id in winners:
            assert change.mu_after > change.mu_before
        if user_id in losers:
            assert change.mu_after < change.mu_before
    # The signal again (a retry, a second receiver run): nothing moves twice.
    table_finished.send(sender=Table, table_id=table.pk)
    assert services.rate_table(table_id=table.pk) == 0
    assert RatingChange.objects.filter(table=table).count() == len(players)
    assert set(Rating.objects.filter(game=game).values_list("games", flat=True)) == {1}
    board = selectors.leaderboard(game=game)
    assert len(board) == len(players) and board[0]["rating"] >= board[-1]["rating"]


def test_baloot_is_rated_as_two_teams(make_room, make_user, bots):
    room = make_room(game="baloot")
    users = [make_user() for _ in range(4)]
    table = rooms_services.table_open(room=room)
    for u in users:
        rooms_services.table_sit(table_id=table.pk, user=u)
    Table.objects.filter(pk=table.pk).update(status=TableStatus.FINISHED, result={"ranks": [2, 1, 2, 1]})
    assert services.rate_table(table_id=table.pk) == 4
    model = PlackettLuce()
    [[w1, w2], [l1, l2]] = model.rate([[model.rating(), model.rating()], [model.rating(), model.rating()]],
                                      ranks=[1, 2])
    mu = {u.pk: Rating.objects.get(user=u, game="baloot").mu for u in users}
    assert mu[users[1].pk] == pytest.approx(w1.mu) and mu[users[3].pk] == pytest.approx(w2.mu)
    assert mu[users[0].pk] == pytest.approx(l1.mu) and mu[users[2].pk] == pytest.approx(l2.mu)


def test_multiplayer_ranks_share_ties(make_room, make_user):
    room = make_room(game="lembar", seats=4, min_seats=2)
    users = [make_user() for _ in range(4)]
    table = rooms_services.table_open(room=room)
    for u in users:
        rooms_services.table_sit(table_id=table.pk, user=u)
    Table.objects.filter(pk=table.pk).update(status=TableStatus.FINISHED, result={"ranks": [3, 1, 1, 4]})
    services.rate_table(table_id=table.pk)
    mu = [Rating.objects.get(user=u, game="lembar").mu for u in users]
    # openskill 6.2's Plackett-Luce gives the rank right after a tie the tied players' mean: >= here.
    assert mu[1] == pytest.approx(mu[2]) and mu[1] >= mu[0] > mu[3]


def test_tables_not_finished_by_the_rules_are_not_rated(make_room, make_user):
    room = make_room(game="lembar", seats=2, min_seats=2)
    a, b = make_user(), make_user()
    table = rooms_services.table_open(room=room, host=a)
    rooms_services.table_sit(table_id=table.pk, user=a)
    rooms_services.table_sit(table_id=table.pk, user=b)
    rooms_services.table_stop(table_id=table.pk, reason="host", by=a)
    assert services.rate_table(table_id=table.pk) == 0
    table_finished.send(sender=Table, table_id=None)  # a malformed signal is ignored
    assert not Rating.objects.exists()


def test_profile_shows_every_game(make_user):
    user = make_user()
    ratings = selectors.profile_ratings(user)["ratings"]
    assert [r["game"] for r in ratings] == ["lembar", "baloot", "cherki", "otuzbir"]
    assert all(r["games"] == 0 for r in ratings)
    from accounts.selectors import profile_context

    assert profile_context(user=user)["ratings"] == ratings
