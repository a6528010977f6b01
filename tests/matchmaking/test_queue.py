"""Joining and leaving queues, the matcher seating players through rooms.services, bot filling."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.api import http_status
from matchmaking import selectors, services
from matchmaking.errors import QueueError
from matchmaking.models import EntryStatus, Match, MatchStatus, QueueEntry
from matchmaking.services import queue
from rooms import services as rooms_services
from rooms.models import Seat, SeatStatus, TableStatus

from .helpers import later, run_matcher

pytestmark = pytest.mark.django_db


def _codes(fn) -> str:
    with pytest.raises(QueueError) as info:
        fn()
    return info.value.code


def test_join_then_leave(make_room, make_user):
    room, user = make_room(), make_user()
    entry = services.queue_join(room=room, user=user)
    frame = selectors.queue_frame(entry=entry)
    assert (frame["type"], frame["status"], frame["position"], frame["room"]) == ("queue", "waiting", 1, room.slug)
    assert 0 <= frame["estimated_wait"] <= room.fill_delay_seconds + 1
    left = services.queue_leave(user=user)
    assert left.pk == entry.pk and left.status == EntryStatus.LEFT
    assert _codes(lambda: services.queue_leave(user=user)) == "not_queued"
    # A player who left is never matched, even long after the fill delay.
    assert run_matcher(later(120)) == []
    assert not Seat.objects.filter(user=user).exists()
    services.queue_join(room=room, user=user)  # and may queue again


def test_one_active_entry_per_player(make_room, make_user):
    a_room, b_room, user = make_room(), make_room(game="cherki"), make_user()
    services.queue_join(room=a_room, user=user)
    assert _codes(lambda: services.queue_join(room=a_room, user=user)) == "already_queued"
    assert _codes(lambda: services.queue_join(room=b_room, user=user)) == "already_queued"
    with pytest.raises(IntegrityError), transaction.atomic():  # the database enforces it too
        QueueEntry.objects.create(room=b_room, user=user, joined_at=timezone.now())
    assert QueueEntry.objects.filter(user=user).count() == 1


def test_bad_input_changes_nothing(make_room, make_user, bots):
    room, user = make_room(), make_user()
    room_closed = make_room(is_open=False)
    assert _codes(lambda: services.queue_join(room=room_closed, user=user)) == "room_closed"
    assert _codes(lambda: services.queue_join(room=room, user=bots[0])) == "bots_cannot_queue"
    assert _codes(lambda: services.rematch(table_id="x", user=user)) == "no_such_table"
    assert _codes(lambda: services.private_join(code="../../etc", user=user)) == "no_such_invite"
    assert _codes(lambda: services.private_join(code="nope", user=user)) == "no_such_invite"
    assert _codes(lambda: services.private_add_bot(table_id=999999, by=user)) == "no_such_table"
    assert not QueueEntry.objects.exists() and not Match.objects.exists()


def test_matcher_seats_four_players_and_the_table_starts(make_room, make_user, bots):
    room = make_room()
    players = [make_user() for _ in range(4)]
    for p in players:
        services.queue_join(room=room, user=p)
    [match] = run_matcher()
    assert match.status == MatchStatus.SEATED and match.bots == 0
    table = match.table
    table.refresh_from_db()
    assert table.status == TableStatus.RUNNING and not table.is_private
    assert sorted(table.seats.values_list("user_id", flat=True)) == sorted(p.pk for p in players)
    for p in players:
        entry = QueueEntry.objects.get(user=p)
        assert entry.status == EntryStatus.SEATED and entry.table_id == table.pk
        assert selectors.queue_frame(entry=entry)["table"] == table.pk
    assert run_matcher() == []  # nothing left to do; a second pass seats nobody twice


def test_bots_fill_only_after_the_room_delay_with_varied_styles(make_room, make_user, bots):
    room = make_room(fill_delay_seconds=30)
    user = make_user()
    entry = services.queue_join(room=room, user=user)
    assert run_matcher(later(29)) == []
    assert QueueEntry.objects.get(pk=entry.pk).status == EntryStatus.WAITING
    [match] = run_matcher(later(31))
    assert match.bots == 3
    seats = list(match.table.seats.select_related("user").order_by("number"))
    assert [s.user.is_bot for s in seats].count(True) == 3
    assert len({s.user.bot_style for s in seats if s.user.is_bot}) == 3  # careful, aggressive, tricky
    assert all(s.bot_style == s.user.bot_style for s in seats)  # identity and style are visible on the seat
    match.table.refresh_from_db()
    assert match.table.status == TableStatus.RUNNING


def test_bots_never_take_a_seat_a_waiting_human_could_take(make_room, make_user, bots):
    room = make_room(fill_delay_seconds=10)
    old, new = make_user(), make_user()
    services.queue_join(room=room, user=old, now=timezone.now())
    services.queue_join(room=room, user=new, now=later(9))  # joined 9 s later, far from the delay itself
    # Ratings far apart (beyond any window): they still sit together before any bot does.
    QueueEntry.objects.filter(user=new).update(rating=60.0)
    [match] = run_matcher(later(11))
    humans = set(match.table.seats.filter(user__is_bot=False).values_list("user_id", flat=True))
    assert humans == {old.pk, new.pk} and match.bots == 2


def test_ai_arena_fills_at_once(make_room, make_user, bots):
    arena = make_room(game="otuzbir", bots_only=True, fill_delay_seconds=0)
    a, b = make_user(), make_user()
    services.queue_join(room=arena, user=a)
    services.queue_join(room=arena, user=b)
    matches = run_matcher()
    assert len(matches) == 2 and all(m.bots == 3 for m in matches)
    for m in matches:
        assert m.table.seats.filter(user__is_bot=False).count() == 1


def test_a_player_in_a_running_game_cannot_queue_for_that_room(make_room, make_user, bots):
    room = make_room()
    user = make_user()
    services.queue_join(room=room, user=user)
    [match] = run_matcher(later(31))
    match.table.refresh_from_db()
    assert match.table.status == TableStatus.RUNNING
    assert _codes(lambda: services.queue_join(room=room, user=user)) == "already_playing"
    assert QueueEntry.objects.filter(user=user).count() == 1
    services.queue_join(room=make_room(game="cherki"), user=user)  # another room is fine


def test_a_player_seated_at_an_open_table_of_the_room_cannot_queue(make_room, make_user):
    room, user = make_room(), make_user()
    table = rooms_services.table_open(room=room, host=user)
    rooms_services.table_sit(table_id=table.pk, user=user)
    assert _codes(lambda: services.queue_join(room=room, user=user)) == "already_seated"


def test_too_little_money_is_refused_at_once_with_what_is_needed(make_room, make_user):
    """Issue 26: no wait for a table to form. Cherki at 1000 Chip a point needs 100,000 Chip to sit."""
    room, user = make_room(game="cherki", stake_kind="per_point", currency="CHP", stake=1000), make_user()
    with pytest.raises(QueueError) as info:
        services.queue_join(room=room, user=user)
    exc = info.value
    assert (exc.code, http_status(exc)) == ("insufficient_funds", 402)
    assert exc.details["currency"] == "CHP" and exc.details["needed"] == 100_000 and exc.details["balance"] == 1000
    assert "100000 Chip" in exc.message and "bailout" in exc.details["how"] and "500 Chip" in exc.details["how"]
    assert not QueueEntry.objects.filter(user=user).exists()
    # Enough money: the same player queues in a room they can afford.
    assert services.queue_join(room=make_room(game="cherki", stake_kind="per_point", currency="CHP", stake=10),
                               user=user).status == EntryStatus.WAITING


@pytest.mark.parametrize(("game", "stake_kind", "currency", "stake", "needed"), [
    ("lembar", "pot", "KEL", 150, 150), ("lembar", "pot", "MUT", 101, 101), ("otuzbir", "ante", "CHP", 1001, 1001)])
def test_every_staked_room_refuses_at_once(make_room, make_user, game, stake_kind, currency, stake, needed):
    room = make_room(game=game, stake_kind=stake_kind, currency=currency, stake=stake)
    with pytest.raises(QueueError) as info:
        services.queue_join(room=room, user=make_user())
    assert info.value.code == "insufficient_funds" and info.value.details["needed"] == needed


def test_money_refusal_refuses_that_entry_and_the_others_keep_waiting(make_room, make_user, bots):
    # The balance dropped while waiting (spent elsewhere): the seating refuses that entry (insufficient_funds).
    from wallets import services as wallet_services

    room = make_room(game="cherki", stake_kind="per_point", currency="CHP", stake=10)
    players = [make_user() for _ in range(3)]
    for p in players:
        services.queue_join(room=room, user=p)
    wallet_services.transfer(key="spent-elsewhere", source=wallet_services.wallet(user=players[0], currency="CHP"),
                             target=wallet_services.revenue(currency="CHP"), amount=500)
    [match] = run_matcher()
    assert match.status == MatchStatus.FAILED
    first = QueueEntry.objects.get(user=players[0])
    assert first.status == EntryStatus.REFUSED and first.error_code == "insufficient_funds"
    frame = selectors.queue_frame(entry=first)
    assert frame["status"] == "refused" and frame["code"] == "insufficient_funds" and frame["message"]
    # The refused frame (pushed on the queue socket) says how much is missing, like the REST refusal.
    assert (frame["currency"], frame["needed"], frame["balance"]) == ("CHP", 1000, 500)
    rest = QueueEntry.objects.filter(user__in=players[1:])
    assert {e.status for e in rest} == {EntryStatus.WAITING} and all(e.match_id is None for e in rest)
    assert not Seat.objects.filter(user__in=players).exclude(status=SeatStatus.STOOD).exists()
    assert match.table is None


def test_leaving_while_being_seated_puts_the_others_back(make_room, make_user, bots):
    room = make_room()
    players = [make_user() for _ in range(4)]
    for p in players:
        services.queue_join(room=room, user=p)
    [match_id] = services.match_pass()
    assert QueueEntry.objects.filter(status=EntryStatus.MATCHING).count() == 4
    services.queue_leave(user=players[2])
    match = services.seat_match(match_id=match_id)
    assert match.status == MatchStatus.FAILED and match.error_code == "player_left"
    assert QueueEntry.objects.filter(status=EntryStatus.WAITING).count() == 3
    assert services.seat_match(match_id=match_id).status == MatchStatus.FAILED  # a re-run changes nothing
    assert not Seat.objects.exists()


def test_seating_a_match_twice_seats_nobody_twice(make_room, make_user, bots):
    room = make_room()
    for _ in range(4):
        services.queue_join(room=room, user=make_user())
    [match_id] = services.match_pass()
    services.seat_match(match_id=match_id)
    services.seat_match(match_id=match_id)  # a redelivered task
    assert Seat.objects.count() == 4


def test_a_room_closing_refuses_its_waiting_players(make_room, make_user):
    room, user = make_room(), make_user()
    services.queue_join(room=room, user=user)
    room.is_open = False
    room.save(update_fields=["is_open"])
    assert run_matcher(later(60)) == []
    entry = QueueEntry.objects.get(user=user)
    assert (entry.status, entry.error_code) == (EntryStatus.REFUSED, "room_closed")


def test_a_lost_seating_task_is_handed_out_again_once(make_room, make_user, bots, monkeypatch):
    room = make_room()
    for _ in range(4):
        services.queue_join(room=room, user=make_user())
    handed: list[int] = []
    monkeypatch.setattr(queue, "_after_commit", lambda fn, *args: handed.extend(args[0])
                        if fn is queue._enqueue_seat else None)
    [match_id] = services.match_pass()
    assert handed == [match_id]
    services.match_pass(now=later(10))
    assert handed == [match_id]  # not yet stale
    services.match_pass(now=later(31))
    services.match_pass(now=later(32))
    assert handed == [match_id, match_id]  # claimed once, not on every pass
    services.seat_match(match_id=match_id)
    services.match_pass(now=later(120))
    assert handed == [match_id, match_id]
