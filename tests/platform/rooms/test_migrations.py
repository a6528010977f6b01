"""Data migrations of stored tables."""

from __future__ import annotations

import importlib

from django.apps import apps

from gameworkers.engines import get_engine
from rooms import seeds, services
from rooms.models import Table


def _dealt(room, make_user) -> Table:
    a, b = make_user(), make_user()
    table = services.table_open(room=room, host=a)
    services.table_sit(table_id=table.pk, user=a)
    services.table_sit(table_id=table.pk, user=b)
    services.table_start(table_id=table.pk, by=a)
    table.refresh_from_db()
    return table


def test_a_state_saved_before_the_counters_gets_them_and_plays_on(lembar_room, make_user):
    migration = importlib.import_module("rooms.migrations.0010_state_counters_everywhere")
    table = _dealt(lembar_room, make_user)
    old = {k: v for k, v in table.state.items() if k not in ("move_count", "last_move_ms")}
    Table.objects.filter(pk=table.pk).update(state=old)  # dealt, no move yet, saved before the counters
    migration.forwards(apps, None)
    table.refresh_from_db()
    assert table.state["move_count"] == 0 and table.state["last_move_ms"] is None
    engine = get_engine("lembar")
    seat = engine.to_act(table.state)[0]
    move = engine.legal_moves(table.state, seat)[0]
    state, _ = engine.apply(seeds.playable(table), seat, move, now_ms=5_000)
    assert state["move_count"] == 1 and state["moves"][-1]["seq"] == 1


def test_states_that_have_the_counters_are_left_as_they_are(lembar_room, make_user):
    migration = importlib.import_module("rooms.migrations.0010_state_counters_everywhere")
    table = _dealt(lembar_room, make_user)
    before = Table.objects.get(pk=table.pk).state
    migration.forwards(apps, None)
    assert Table.objects.get(pk=table.pk).state == before
