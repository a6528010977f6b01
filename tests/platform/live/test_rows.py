"""live.rows: the hand-written SQL must load and write exactly what the ORM would."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from psycopg import pq

from gameworkers.engines import get_engine
from live import pg_pipeline, rows
from rooms import broadcast, services
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


def _started_table(lembar_room, make_user) -> tuple[Table, int, dict]:
    host, guest = make_user(), make_user()
    table = services.table_open(room=lembar_room, host=host)
    services.table_sit(table_id=table.pk, user=host)
    services.table_sit(table_id=table.pk, user=guest)
    services.table_start(table_id=table.pk, by=host)
    table = Table.objects.get(pk=table.pk)  # as stored: the version counts the sits and the start too
    engine = get_engine("lembar")
    seat = engine.to_act(table.state)[0]
    return table, seat, engine.legal_moves(table.state, seat)[0]


def test_the_move_rows_and_the_table_update_read_back_through_the_orm(lembar_room, make_user):
    table, seat, move = _started_table(lembar_room, make_user)
    start = table.version
    version = services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=start)
    table.refresh_from_db()
    assert version == table.version == start + 1 and table.state["move_count"] == 1 and table.state["moves"] == []
    logged = TableMove.objects.get(table=table)
    assert (logged.seq, logged.seat, logged.move) == (1, seat, move)
    events = list(TableEvent.objects.filter(table=table, version=start + 1).order_by("seq"))
    assert events and all(e.created_at is not None for e in events)
    assert [e.seq for e in TableEvent.objects.filter(table=table).order_by("seq")] == list(
        range(1, table.last_event_seq + 1))
    assert events[0].payload["type"] == events[0].kind


@pytest.mark.django_db(transaction=True)
def test_a_move_commits_with_its_writes_and_its_on_commit_hooks_still_run(lembar_room, make_user, monkeypatch):
    table, seat, move = _started_table(lembar_room, make_user)
    announced, after_writes = [], []
    monkeypatch.setattr(broadcast, "table_changed", lambda t, **kw: announced.append(t.version))
    execute = rows.execute

    def execute_and_look(statements, **kw):
        execute(statements, **kw)
        if connection.vendor == "postgresql":  # the server's view: committed with the writes
            after_writes.append(connection.connection.pgconn.transaction_status == pq.TransactionStatus.IDLE)

    monkeypatch.setattr(rows, "execute", execute_and_look)
    start = table.version
    version = services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=start)
    assert version == start + 1 and announced == [start + 1]
    assert after_writes == ([True] if connection.vendor == "postgresql" else [])
    assert Table.objects.get(pk=table.pk).version == start + 1 and TableMove.objects.filter(table=table).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_move_inside_an_outer_transaction_does_not_commit_it(lembar_room, make_user, monkeypatch):
    """The COMMIT goes with the writes only when the move's transaction is the outermost: inside a
    caller's, the caller's rollback still undoes the move."""
    table, seat, move = _started_table(lembar_room, make_user)
    announced = []
    monkeypatch.setattr(broadcast, "table_changed", lambda t, **kw: announced.append(t.version))

    class Undo(Exception):
        pass

    start = table.version
    with pytest.raises(Undo), transaction.atomic():
        services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=start)
        raise Undo
    assert Table.objects.get(pk=table.pk).version == start and not TableMove.objects.filter(table=table).exists()
    assert announced == []


@pytest.mark.django_db(transaction=True)
def test_a_failed_write_rolls_the_move_back_and_announces_nothing(lembar_room, make_user, monkeypatch):
    table, seat, move = _started_table(lembar_room, make_user)
    announced = []
    monkeypatch.setattr(broadcast, "table_changed", lambda t, **kw: announced.append(t.version))
    TableMove.objects.create(table=table, seq=1, seat=seat, move=move, now_ms=0)  # the move's row is taken
    start = table.version
    with pytest.raises(IntegrityError):
        services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=start)
    assert Table.objects.get(pk=table.pk).version == start and announced == []
    assert not connection.needs_rollback and not connection.in_atomic_block
    TableMove.objects.filter(table=table).delete()
    assert services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=start) == start + 1
    assert announced == [start + 1]


@pytest.mark.django_db(transaction=True)
def test_without_pipeline_mode_a_move_still_commits_once(lembar_room, make_user, monkeypatch):
    """A libpq older than 14 has no pipeline mode: one statement per round trip, Django commits."""
    monkeypatch.setattr(pg_pipeline, "available", lambda: False)
    table, seat, move = _started_table(lembar_room, make_user)
    announced = []
    monkeypatch.setattr(broadcast, "table_changed", lambda t, **kw: announced.append(t.version))
    start = table.version
    assert services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=start) == start + 1
    assert announced == [start + 1] and Table.objects.get(pk=table.pk).version == start + 1
    with transaction.atomic():
        assert rows.lock_table(table.pk).version == start + 1


def test_the_state_column_is_compressed_with_lz4_where_postgresql_has_it(db):
    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL column setting")
    with connection.cursor() as cursor:
        cursor.execute("SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'")
        (has_lz4,) = cursor.fetchone()
        cursor.execute("SELECT attcompression FROM pg_attribute WHERE attrelid = %s::regclass AND attname = 'state'",
                       [Table._meta.db_table])
        (method,) = cursor.fetchone()
    assert method == ("l" if has_lz4 else "")


def test_no_index_of_the_table_row_covers_a_column_a_move_writes(db):
    # A move's update is then a HOT update on PostgreSQL: no new entry in any of the table's indexes (the
    # timer's due index is on TableDeadline's narrow row).
    written = {Table._meta.get_field(name).column for name in rows.STEP_FIELDS}
    with connection.cursor() as cursor:
        indexes = connection.introspection.get_constraints(cursor, Table._meta.db_table)
    covered = {name: set(info["columns"]) & written for name, info in indexes.items() if info["index"]}
    assert covered and not any(covered.values()), covered


@pytest.mark.django_db(transaction=True)
def test_a_move_rewrites_the_table_row_in_place_and_no_index_of_it(lembar_room, make_user):
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's HOT updates")
    table, seat, move = _started_table(lembar_room, make_user)
    # A HOT update also needs room on the row's page: the setup's own row versions are gone once vacuumed.
    with connection.cursor() as cursor:
        cursor.execute(f"VACUUM {connection.ops.quote_name(Table._meta.db_table)}")

    def updates() -> tuple[int, int]:
        with connection.cursor() as cursor:  # counts of the transaction the move runs in
            cursor.execute("SELECT pg_stat_get_xact_tuples_updated(%s::regclass), "
                           "pg_stat_get_xact_tuples_hot_updated(%s::regclass)", [Table._meta.db_table] * 2)
            return cursor.fetchone()

    with transaction.atomic():
        before = updates()
        services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=table.version)
        after = updates()
    assert (after[0] - before[0], after[1] - before[1]) == (1, 1)  # one update, and it was a HOT one


def test_every_column_a_step_writes_or_compares_is_prepared_as_django_prepares_it(lembar_room, make_user):
    """The statements prepare values without Django's five calls per value where Django would hand the
    value on unchanged (text, flags, keys, aware datetimes); each answer equals ``get_db_prep_save``'s,
    type included, for the values a step carries and for ones Django converts (then it does)."""
    import datetime
    from decimal import Decimal

    from django.utils import timezone

    from rooms.models import Room, TableDeadline

    table, _, _ = _started_table(lembar_room, make_user)
    connection.ensure_connection()
    db = connection
    aware = timezone.now()
    samples = [None, 0, 7, 10**12, True, False, "x", "", "12", aware, aware.astimezone(datetime.timezone(datetime.timedelta(hours=7))),
               Decimal("3"), 3.0]
    checked = 0
    for model in (Table, Room, TableMove, TableEvent, TableDeadline):
        for field in model._meta.concrete_fields:
            prepare = rows._preparer(db.vendor, field)
            values = [getattr(table if model is Table else table.room if model is Room else table, field.attname, None),
                      *samples]
            for value in values:
                try:
                    expected = field.get_db_prep_save(value, db)
                except Exception as exc:  # noqa: BLE001 - the same refusal either way
                    with pytest.raises(type(exc)):
                        prepare(db, field, value)
                    continue
                got = prepare(db, field, value)
                if rows._plain_json(field) and connection.vendor == "postgresql":
                    continue  # JSON goes as orjson-encoded Jsonb: covered by the round-trip tests
                assert type(got) is type(expected) and got == expected, (model.__name__, field.name, value)
                checked += 1
    assert checked > 300
