"""Data migrations of stored tables."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from gameworkers.engines import get_engine
from rooms import seeds
from rooms.models import Table, TableDeadline


def test_a_state_saved_before_the_counters_gets_them_and_plays_on(lembar_room, started_table):
    migration = importlib.import_module("rooms.migrations.0010_state_counters_everywhere")
    table = started_table(lembar_room)
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


def test_states_that_have_the_counters_are_left_as_they_are(lembar_room, started_table):
    migration = importlib.import_module("rooms.migrations.0010_state_counters_everywhere")
    table = started_table(lembar_room)
    before = Table.objects.get(pk=table.pk).state
    migration.forwards(apps, None)
    assert Table.objects.get(pk=table.pk).state == before


@pytest.mark.django_db(transaction=True)
def test_running_tables_keep_their_deadline_and_claim_mark_when_the_due_index_moves(lembar_room, started_table):
    # 0013: the timer finds due tables through TableDeadline; a table running at the upgrade must still
    # time out, and one the timer had just handed out is not handed out twice.
    table = started_table(lembar_room)
    executor = MigrationExecutor(connection)
    before, after = [("rooms", "0012_table_seed_sealed")], [("rooms", "0013_table_deadline")]
    executor.migrate(before)
    try:
        old = executor.loader.project_state(before).apps
        enqueued = timezone.now().replace(microsecond=0)
        old.get_model("rooms", "Table").objects.filter(pk=table.pk).update(deadline_enqueued_at=enqueued)
        executor = MigrationExecutor(connection)
        executor.migrate(after)
    finally:
        latest = MigrationExecutor(connection)
        latest.migrate(latest.loader.graph.leaf_nodes())
    entry = TableDeadline.objects.get(table_id=table.pk)
    assert (entry.due_at, entry.version, entry.enqueued_at) == (table.deadline_at, table.version, enqueued)
