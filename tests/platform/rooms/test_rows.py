"""rooms.rows: the hand-written SQL must load and write exactly what the ORM would."""

from __future__ import annotations

from django.db import transaction

from gameworkers.engines import get_engine
from rooms import rows, services
from rooms.models import Table, TableEvent, TableMove


def _fields(table: Table) -> dict:
    return {f.attname: getattr(table, f.attname) for f in Table._meta.concrete_fields}


def test_the_locked_table_equals_the_orm_one(lembar_room, make_user):
    host, guest = make_user(), make_user()
    table = services.table_open(room=lembar_room, host=host)
    services.table_sit(table_id=table.pk, user=host)
    services.table_sit(table_id=table.pk, user=guest)
    services.table_start(table_id=table.pk, by=host)
    with transaction.atomic():
        locked = rows.lock_table(table.pk)
    expected = Table.objects.select_related("room", "host").get(pk=table.pk)
    assert _fields(locked) == _fields(expected)  # JSON, datetimes and all, on SQLite and PostgreSQL
    assert {f.attname: getattr(locked.room, f.attname) for f in lembar_room._meta.concrete_fields} == {
        f.attname: getattr(expected.room, f.attname) for f in lembar_room._meta.concrete_fields}
    assert locked.host.username == host.username and locked.host.pk == host.pk
    assert locked.host.email == host.email  # any other field of the host is fetched when read
    with transaction.atomic():
        assert rows.lock_table(10**9) is None


def test_the_move_rows_and_the_table_update_read_back_through_the_orm(lembar_room, make_user):
    host, guest = make_user(), make_user()
    table = services.table_open(room=lembar_room, host=host)
    services.table_sit(table_id=table.pk, user=host)
    services.table_sit(table_id=table.pk, user=guest)
    table = services.table_start(table_id=table.pk, by=host)
    engine = get_engine("lembar")
    seat = engine.to_act(table.state)[0]
    move = engine.legal_moves(table.state, seat)[0]
    version = services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=0)
    table.refresh_from_db()
    assert version == table.version == 1 and table.state["move_count"] == 1 and table.state["moves"] == []
    logged = TableMove.objects.get(table=table)
    assert (logged.seq, logged.seat, logged.move) == (1, seat, move)
    events = list(TableEvent.objects.filter(table=table, version=1).order_by("seq"))
    assert events and all(e.created_at is not None for e in events)
    assert [e.seq for e in TableEvent.objects.filter(table=table).order_by("seq")] == list(
        range(1, table.last_event_seq + 1))
    assert events[0].payload["type"] == events[0].kind
