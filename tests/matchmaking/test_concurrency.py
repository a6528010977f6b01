"""Two (or more) matchers at once never seat a player twice. PostgreSQL: real row locks."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import connection, connections
from django.utils import timezone

from matchmaking import services
from matchmaking.errors import QueueError
from matchmaking.models import EntryStatus, Match, MatchStatus, QueueEntry
from rooms.models import Seat, SeatStatus

from .helpers import later

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql",
                       reason="needs PostgreSQL row locks (SELECT ... FOR UPDATE SKIP LOCKED); SQLite "
                              "serialises whole transactions, so threads cannot race there"),
]


def _in_threads(n: int, fn) -> list:
    barrier = threading.Barrier(n)
    results: list = []
    errors: list = []

    def run() -> None:
        try:
            barrier.wait()
            results.append(fn())
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    return results


def test_concurrent_matchers_never_double_seat(make_room, make_user, bots):
    rooms = [make_room(game="baloot"), make_room(game="cherki"), make_room(game="lembar", seats=4, min_seats=2)]
    players = [make_user() for _ in range(30)]
    start = timezone.now()
    for i, p in enumerate(players):
        services.queue_join(room=rooms[i % 3], user=p, now=start)
    now = later(31)  # past the fill delay: every player can be matched (with bots where needed)
    formed = [m for ids in _in_threads(4, lambda: services.match_pass(now=now)) for m in ids]
    assert formed and len(formed) == len(set(formed))
    # Every entry belongs to exactly one match; then four seaters race over every match twice.
    per_entry = Counter(QueueEntry.objects.filter(status=EntryStatus.MATCHING).values_list("user_id", flat=True))
    assert set(per_entry.values()) == {1} and len(per_entry) == len(players)
    work = iter(formed * 2)
    lock = threading.Lock()

    def seat_all() -> int:
        done = 0
        while True:
            with lock:
                match_id = next(work, None)
            if match_id is None:
                return done
            services.seat_match(match_id=match_id)
            done += 1

    _in_threads(4, seat_all)
    seated = Counter(Seat.objects.filter(user__is_bot=False).exclude(status=SeatStatus.STOOD)
                     .values_list("user_id", flat=True))
    assert set(seated.values()) == {1} and len(seated) == len(players)
    assert set(Match.objects.values_list("status", flat=True)) == {MatchStatus.SEATED}
    assert QueueEntry.objects.filter(status=EntryStatus.SEATED).count() == len(players)


def test_joins_racing_a_matcher_keep_one_entry_per_player(make_room, make_user):
    room = make_room(game="lembar", seats=2, min_seats=2)
    user = make_user()

    def join():
        try:
            services.queue_join(room=room, user=user)
            return "ok"
        except QueueError as exc:
            return exc.code

    outcomes = _in_threads(4, join)
    assert sorted(outcomes) == ["already_queued"] * 3 + ["ok"]
    assert QueueEntry.objects.filter(user=user, status__in=["waiting", "matching"]).count() == 1
