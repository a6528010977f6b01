"""rooms.selectors: what viewers are shown."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from gameworkers.engines import get_engine
from rooms import selectors, services
from rooms.models import Seat, SeatStatus, TableEvent, TableStatus
from tests.conftest import make_due

pytestmark = pytest.mark.django_db


def test_a_lembar_player_removed_for_timeouts_shows_the_same_count_everywhere(lembar_room, make_user):
    """The engine's timeout event, the frame's seats[].timeouts and the seat's view all say 3."""
    users = [make_user() for _ in range(3)]
    table = services.table_open(room=lembar_room, host=users[0], seat_count=3)
    for user in users:
        services.table_sit(table_id=table.pk, user=user)
    engine = get_engine("lembar")
    for _ in range(400):
        table.refresh_from_db()
        if table.status != TableStatus.RUNNING or Seat.objects.filter(table=table, status=SeatStatus.REMOVED).exists():
            break
        due = engine.deadline(table.state)
        if due["seat"] in (0, None):  # seat 0 never moves: the timer plays for it
            make_due(table, at=timezone.now() - timedelta(seconds=1))
            services.table_fire_deadline(table_id=table.pk, expected_version=table.version)
        else:
            seat = due["seat"]
            services.table_play(table_id=table.pk, seat_number=seat, move=engine.legal_moves(table.state, seat)[0],
                                expected_version=table.version)
    table.refresh_from_db()
    assert Seat.objects.get(table=table, number=0).status == SeatStatus.REMOVED
    last_timeout = TableEvent.objects.filter(table=table, kind="timeout").order_by("-seq").first()
    assert last_timeout.payload["seat"] == 0 and last_timeout.payload["count"] == 3
    frame = selectors.table_frame(table=table, seat_number=0)
    assert [s["timeouts"] for s in frame["seats"] if s["seat"] == 0] == [3]
    assert frame["view"]["timeouts"][0] == 3
    assert Seat.objects.get(table=table, number=0).consecutive_timeouts == 3
