"""Hand-written SQL for the move pipeline's hot path: lock and load a table, append a move's rows,
update the table row. The ORM cost ~1.5 ms of CPU per query here (compiling a join over three
models, building instances), more than the database spent answering.

On PostgreSQL the statements are prepared once per connection and bound on the server (no quoting
of a few KB of JSON on the client, no parsing and planning per move), all of a move's writes go as
one statement, and each goes in one round trip with its neighbour (``live.pg_pipeline``): ``BEGIN``
with the lock, the writes with ``COMMIT`` when the caller's transaction ends with them. A move
costs two round trips, not four; on a busy machine each cost a move-pool thread ~1.5-2 ms of
waiting. A move computed from a row read moments ago costs one (``write_step_if_unchanged``). (Behind a transaction-pooling PgBouncer, prepared statements need its
``max_prepared_statements``.)

Only ``rooms.services`` calls these, inside its transactions. Values go through each field's own
``get_db_prep_value`` and come back through the same converters the ORM applies, so SQLite and
PostgreSQL behave exactly as with the ORM.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache, lru_cache

import psycopg
from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS, DataError, IntegrityError, connection, connections
from django.db.models import (
    AutoField,
    BigAutoField,
    BooleanField,
    CharField,
    DateTimeField,
    ForeignKey,
    IntegerField,
    JSONField,
    OneToOneField,
    SlugField,
    TextField,
)
from django.utils import timezone
from psycopg.types.json import Jsonb

from core import fastjson
from live import pg_pipeline
from rooms.models import Room, Seat, SeatStatus, Table, TableDeadline, TableEvent, TableMove


@cache
def _lock_sql(vendor: str, locks: bool, locks_of: bool, actor: bool = False) -> str:
    """``actor``: one more column, whether the acting user's account is active (its id is the first
    parameter), so the move path checks it in the same round trip as the lock."""
    qn = connection.ops.quote_name
    user = get_user_model()
    columns = ([f"t.{qn(f.column)}" for f in Table._meta.concrete_fields]
               + [f"r.{qn(f.column)}" for f in Room._meta.concrete_fields] + [f"u.{qn('username')}"])
    if actor:
        columns.append(f"(SELECT a.{qn('is_active')} FROM {qn(user._meta.db_table)} a WHERE a.{qn('id')} = %s)")
    lock = (" FOR UPDATE OF t" if locks_of else " FOR UPDATE") if locks else ""
    return (f"SELECT {', '.join(columns)} FROM {qn(Table._meta.db_table)} t "
            f"JOIN {qn(Room._meta.db_table)} r ON r.{qn('id')} = t.{qn('room_id')} "
            f"LEFT JOIN {qn(user._meta.db_table)} u ON u.{qn('id')} = t.{qn('host_id')} "
            f"WHERE t.{qn('id')} = %s{lock}")


@cache
def _converters(vendor: str, model) -> list[list]:
    """Per column, the converters the ORM's compiler would apply to it (backend's, then field's); a
    plain JSON column is parsed with orjson (``core.fastjson``), as ``JSONField.from_db_value`` would."""
    return [connection.ops.get_db_converters(f.get_col(model._meta.db_table))
            + ([_json_from_db] if _plain_json(f) else f.get_db_converters(connection))
            for f in model._meta.concrete_fields]


def _plain_json(field) -> bool:
    return isinstance(field, JSONField) and field.encoder is None and field.decoder is None


def _json_from_db(value, expression, connection):
    if value is None or not isinstance(value, (str, bytes)):
        return value
    try:
        return fastjson.loads(value)
    except ValueError:
        return value  # as JSONField.from_db_value does


def _db():
    """This thread's connection itself: ``django.db.connection`` is a proxy that looks it up on every
    attribute read (an asgiref ``Local``), some 50 times a move here."""
    return connections[DEFAULT_DB_ALIAS]


@cache
def _preparer(vendor: str, field):
    """How a value of this field is prepared for the database, as ``field.get_db_prep_save`` would, but a
    plain JSON value for PostgreSQL is encoded with orjson. ~20 values a move, most of them whole
    numbers, for which Django's ``get_db_prep_save`` goes through five calls to end in ``int`` and, on
    PostgreSQL, psycopg's integer type of the column (kept, so a statement's parameter types stay the
    same whatever the value)."""
    if vendor == "postgresql" and _plain_json(field):
        return _json_value
    integer_type = getattr(connection.ops, "integerfield_type_map", {}).get(field.get_internal_type())
    if vendor == "postgresql" and integer_type is not None and type(field).get_prep_value is IntegerField.get_prep_value:
        return lambda db, field, value: value if value is None else integer_type(int(value))
    if vendor == "postgresql":
        kept = _kept_as_they_are(field)
        if kept is not None:
            # Django's answer for these is the value itself: its five calls only on anything else.
            return lambda db, field, value: (value if value is None or type(value) is kept
                                             else field.get_db_prep_save(value, db))
        if type(field) is DateTimeField:  # PostgreSQL takes an aware datetime as it is
            return lambda db, field, value: (value if value is None or (type(value) is datetime
                                                                        and value.utcoffset() is not None)
                                             else field.get_db_prep_save(value, db))
    return _field_value


def _kept_as_they_are(field) -> type | None:
    """The one type of value that ``field.get_db_prep_save`` returns unchanged on PostgreSQL (a table
    step compares ~25 columns of the table and its room: text, flags, keys), or None."""
    kind = type(field)
    if kind in (ForeignKey, OneToOneField) and type(field.target_field) in (AutoField, BigAutoField):
        return int
    if kind in (CharField, SlugField, TextField):
        return str
    if kind is BooleanField:
        return bool
    return None


def _json_value(db, field, value):
    return None if value is None else Jsonb(value, dumps=fastjson.dumps)


def _field_value(db, field, value):
    return field.get_db_prep_save(value, db)


def _server_cursor(db):
    """A cursor that binds on the server (Django's binds on the client) on the default connection."""
    db.ensure_connection()
    raw = db.connection
    if raw.prepare_threshold is None:
        # Django turns preparing off; its own (client-binding) cursors never prepare anyway, so
        # this lets only these statements be prepared.
        raw.prepare_threshold = 5
    return psycopg.Cursor(raw)


def _instance(db, model, values: list):
    fields = model._meta.concrete_fields
    for index, convert in enumerate(_converters(db.vendor, model)):
        for converter in convert:
            values[index] = converter(values[index], fields[index], db)
    return model.from_db(db.alias, _attnames(model), values)


@cache
def _attnames(model) -> list[str]:
    return [f.attname for f in model._meta.concrete_fields]


def lock_table(table_id: int, *, actor_id: int | None = None) -> Table | None:
    """The table with its room (and its host's username), row-locked: only the table's row, as
    locking the room's would serialise every table of a room. None when there is no such table.
    With ``actor_id``, ``table.actor_active`` says whether that user's account is active (False for no
    such user), read in the same statement."""
    db = _db()
    features = db.features
    actor = actor_id is not None
    sql = _lock_sql(db.vendor, features.has_select_for_update, features.has_select_for_update_of, actor)
    params = [actor_id, table_id] if actor else [table_id]
    if db.vendor == "postgresql" and pg_pipeline.available():
        found = _round_trip(db, pg_pipeline.Command(sql, params))
        row = found[0] if found else None
    elif db.vendor == "postgresql":
        with db.wrap_database_errors, _server_cursor(db) as cursor:
            cursor.execute(sql, params, prepare=True)
            row = cursor.fetchone()
    else:
        with db.cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
    if row is None:
        return None
    table_width, room_width = len(Table._meta.concrete_fields), len(Room._meta.concrete_fields)
    table = _instance(db, Table, list(row[:table_width]))
    table.room = _instance(db, Room, list(row[table_width:table_width + room_width]))
    if table.host_id is not None:
        # Only the username is loaded; any other field of the host is fetched if ever read.
        host_name = row[table_width + room_width]
        table.host = get_user_model().from_db(db.alias, ["id", "username"], [table.host_id, host_name])
    table.actor_active = bool(row[-1]) if actor else None
    return table


def load_tables(table_ids: list[int]) -> dict[int, Table]:
    """Several tables with their rooms in one prepared statement, not locked (a batch of automatic moves
    or bot turns reads them to decide; each move then locks its table and checks the version it read).
    Tables that do not exist are missing from the answer. Of the host only the username is loaded."""
    ids = sorted({int(t) for t in table_ids})
    if not ids:
        return {}
    db = _db()
    sql = _read_sql(db.vendor, 1 if db.vendor == "postgresql" else len(ids))
    found = _fetch(db, sql, [ids] if db.vendor == "postgresql" else ids)
    table_width, room_width = len(Table._meta.concrete_fields), len(Room._meta.concrete_fields)
    tables: dict[int, Table] = {}
    for row in found:
        table = _instance(db, Table, list(row[:table_width]))
        table.room = _instance(db, Room, list(row[table_width:table_width + room_width]))
        if table.host_id is not None:
            table.host = get_user_model().from_db(db.alias, ["id", "username"], [table.host_id, row[-1]])
        tables[table.pk] = table
    return tables


@lru_cache(maxsize=64)  # PostgreSQL: one shape (an array); SQLite: one per batch size
def _read_sql(vendor: str, count: int) -> str:
    qn = connection.ops.quote_name
    user = get_user_model()
    columns = ([f"t.{qn(f.column)}" for f in Table._meta.concrete_fields]
               + [f"r.{qn(f.column)}" for f in Room._meta.concrete_fields] + [f"u.{qn('username')}"])
    where = f"t.{qn('id')} = ANY(%s::bigint[])" if vendor == "postgresql" else (
        f"t.{qn('id')} IN ({', '.join(['%s'] * count)})")
    return (f"SELECT {', '.join(columns)} FROM {qn(Table._meta.db_table)} t "
            f"JOIN {qn(Room._meta.db_table)} r ON r.{qn('id')} = t.{qn('room_id')} "
            f"LEFT JOIN {qn(user._meta.db_table)} u ON u.{qn('id')} = t.{qn('host_id')} WHERE {where}")


def claim_due(*, now, stale, limit: int) -> list[tuple[int, int]]:
    """Claim due deadlines for the timer in one statement: (table id, version) of the tables whose
    deadline has passed and that were not handed out (``enqueued_at`` empty, or older than ``stale``
    when that is given), earliest first, at most ``limit``; they are marked handed out at ``now``.
    Only ``TableDeadline`` rows are read and written (an ended table's has no deadline). The outer
    conditions are checked again on each row as it is updated, so two timers claiming at once never
    both get a table; on PostgreSQL a row a move is rewriting is skipped (the move sets a new deadline)."""
    db = _db()
    field = TableDeadline._meta.get_field("due_at")
    at = field.get_db_prep_value(now, db)
    params = [at, at]
    if stale is not None:
        params.append(field.get_db_prep_value(stale, db))
    params.append(int(limit))
    params += params[1:-1]  # the same conditions again, on the row being updated
    return [(int(pk), int(version)) for pk, version in _fetch(db, _claim_sql(db.vendor, stale is not None), params)]


@cache
def _claim_sql(vendor: str, reclaim: bool) -> str:
    qn = connection.ops.quote_name
    table = qn(TableDeadline._meta.db_table)
    enqueued, due_at, key = qn("enqueued_at"), qn("due_at"), qn("table_id")
    unclaimed = f"({enqueued} IS NULL OR {enqueued} < %s)" if reclaim else f"{enqueued} IS NULL"
    due = f"{due_at} <= %s AND {unclaimed}"
    skip = " FOR UPDATE SKIP LOCKED" if vendor == "postgresql" else ""
    return (f"UPDATE {table} SET {enqueued} = %s WHERE {key} IN "
            f"(SELECT {key} FROM {table} WHERE {due} ORDER BY {due_at} LIMIT %s{skip}) "
            f"AND {due} RETURNING {key}, {qn('version')}")


def deadline_statement(table: Table) -> Statement:
    """The table's timer entry (``TableDeadline``) set to its deadline and version, not handed out, for
    ``execute`` with the step's other writes. Every write of ``Table.deadline_at`` goes with one."""
    db = _db()
    sql, columns = _deadline_shape(db.vendor)
    return sql, [prepare(db, field, value) for (field, prepare), value in
                 zip(columns, (table.pk, table.deadline_at, table.version), strict=True)]


def stale_deadline_statement(table: Table, handed_out_version: int) -> Statement:
    """The table's timer entry set from ``table`` (a row read after the timer handed the entry out) only
    if the entry still names ``handed_out_version``: every step rewrites it, so one that still does
    has drifted from its table, and would be handed out again and again for a version long gone."""
    db = _db()
    qn = connection.ops.quote_name
    due = TableDeadline._meta.get_field("due_at")
    sql = (f"UPDATE {qn(TableDeadline._meta.db_table)} SET {qn('due_at')} = %s, {qn('version')} = %s, "
           f"{qn('enqueued_at')} = NULL WHERE {qn('table_id')} = %s AND {qn('version')} = %s")
    return sql, [due.get_db_prep_value(table.deadline_at, db), table.version, table.pk, handed_out_version]


_DEADLINE_NAMES = ("table", "due_at", "version")


@cache
def _deadline_shape(vendor: str, guarded: bool = False) -> tuple[str, list]:
    """An upsert (the row is made by a table's first deadline); ``guarded``: PostgreSQL, as a part of
    ``write_step_if_unchanged``'s statement, written only if the table's update was."""
    qn = connection.ops.quote_name
    fields = [TableDeadline._meta.get_field(name) for name in _DEADLINE_NAMES]
    names = ", ".join([*(qn(f.column) for f in fields), qn("enqueued_at")])
    if guarded:  # typed: a VALUES list under a SELECT does not take its column types from the INSERT
        values = (f"SELECT * FROM (VALUES ({', '.join(f'CAST(%s AS {f.db_type(connection)})' for f in fields)}, "
                  f"CAST(NULL AS {TableDeadline._meta.get_field('enqueued_at').db_type(connection)}))) v "
                  f"WHERE EXISTS (SELECT 1 FROM u)")
    else:
        values = f"VALUES ({', '.join(['%s'] * len(fields))}, NULL)"
    update = ", ".join(f"{qn(name)} = EXCLUDED.{qn(name)}" for name in ("due_at", "version", "enqueued_at"))
    sql = (f"INSERT INTO {qn(TableDeadline._meta.db_table)} ({names}) {values} "
           f"ON CONFLICT ({qn('table_id')}) DO UPDATE SET {update}")
    return sql, [(field, _preparer(vendor, field)) for field in fields]


def _fetch(db, sql: str, params: list) -> list[tuple]:
    """The rows of one statement: prepared and in one round trip on PostgreSQL (with the BEGIN of a
    transaction that has not started), as the move path sends its own."""
    if db.vendor == "postgresql" and pg_pipeline.available():
        return _round_trip(db, pg_pipeline.Command(sql, params))
    if db.vendor == "postgresql":
        with db.wrap_database_errors, _server_cursor(db) as cursor:
            cursor.execute(sql, params, prepare=True)
            return cursor.fetchall()
    with db.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


Statement = tuple[str, list]  # SQL and its parameters


def log_statements(table: Table, moves: list[dict], events: list[tuple[int, dict]]) -> list[Statement]:
    """The inserts of a step's move-log rows and (seq, event) rows, for ``execute``."""
    statements: list[Statement] = []
    db = _db()
    if moves:
        statements.append(_insert(db, TableMove, ("table", "seq", "seat", "move", "now_ms"),
                                  [[table.pk, m["seq"], m["seat"], m["move"], m["now_ms"]] for m in moves]))
    if events:
        now = timezone.now()
        statements.append(_insert(db, TableEvent, ("table", "seq", "kind", "payload", "version", "created_at"),
                                  [[table.pk, seq, e.get("type", "event"), e, table.version, now]
                                   for seq, e in events]))
    return statements


def seat_timeout_statement(table: Table, number: int) -> Statement:
    """One more automatic move counted against a seat, seated or removed by this very timeout, for
    ``execute`` (with the step's other writes: an automatic move costs a socket move's round trips)."""
    return _seat_timeout_sql(), [table.pk, number, SeatStatus.SEATED, SeatStatus.REMOVED]


@cache
def _seat_timeout_sql() -> str:
    qn = connection.ops.quote_name
    count = qn(Seat._meta.get_field("consecutive_timeouts").column)
    return (f"UPDATE {qn(Seat._meta.db_table)} SET {count} = {count} + 1 WHERE {qn('table_id')} = %s "
            f"AND {qn(Seat._meta.get_field('number').column)} = %s AND {qn('status')} IN (%s, %s)")


def update_statement(table: Table, fields: list[str]) -> Statement:
    """The ``UPDATE`` of the given fields of the table row (the caller holds its lock), for ``execute``."""
    db = _db()
    sql, columns = _update_shape(db.vendor, tuple(fields))
    params = [prepare(db, field, getattr(table, field.attname)) for field, prepare in columns]
    params.append(table.pk)
    return sql, params


@cache
def _update_shape(vendor: str, names: tuple[str, ...]) -> tuple[str, list]:
    """The SQL of an update of these fields and each field with its preparer (built once per shape)."""
    qn = connection.ops.quote_name
    fields = [Table._meta.get_field(name) for name in names]
    assignments = ", ".join(f"{qn(field.column)} = %s" for field in fields)
    return (f"UPDATE {qn(Table._meta.db_table)} SET {assignments} WHERE {qn('id')} = %s",
            [(field, _preparer(vendor, field)) for field in fields])


def execute(statements: list[Statement], *, commit: bool = False) -> None:
    """Run the statements; on PostgreSQL as one prepared statement (all but the last become
    data-modifying ``WITH`` parts: they touch different rows, so their order does not matter).

    ``commit``: the caller's transaction ends here (nothing else is read or written in it), so on
    PostgreSQL its ``COMMIT`` goes in the same round trip. Only when that transaction is the
    outermost atomic block; Django's own commit at its end then finds nothing to do and runs the
    on-commit hooks as usual. A failed COMMIT raises here, inside the block, which rolls back.
    """
    if not statements:
        return
    db = _db()
    if db.vendor != "postgresql":
        with db.cursor() as cursor:
            for sql, params in statements:
                cursor.execute(sql, params)
        return
    parts = [f"w{i} AS ({sql})" for i, (sql, _) in enumerate(statements[:-1])]
    sql = (f"WITH {', '.join(parts)} " if parts else "") + statements[-1][0]
    params = [p for _, statement_params in statements for p in statement_params]
    if not pg_pipeline.available():
        with db.wrap_database_errors, _server_cursor(db) as cursor:
            cursor.execute(sql, params, prepare=True)
        return
    _round_trip(db, pg_pipeline.Command(sql, params), commit=commit)


def _round_trip(db, statement: pg_pipeline.Command, *, commit: bool = False) -> list[tuple]:
    """The statement's rows, in one round trip with the BEGIN psycopg would have sent before it (if
    the transaction has not started) and, when ``commit`` and the transaction is the outermost atomic
    block, the COMMIT after it. Django's wrapper turns psycopg's errors into Django's (a broken
    connection is then an OperationalError that the move pool and the tasks retry on)."""
    db.ensure_connection()
    raw = db.connection
    begin = pg_pipeline.begin_command(raw)
    commands = [*([begin] if begin else []), statement]
    if commit and _ends_outermost_transaction(db):
        commands.append(pg_pipeline.Command(b"COMMIT"))
    with db.wrap_database_errors:
        return pg_pipeline.round_trip(raw, commands)[1 if begin else 0]


def _ends_outermost_transaction(db) -> bool:
    """The current atomic block is the outermost one and will commit on exit."""
    return (db.in_atomic_block and len(db.atomic_blocks) == 1 and db.commit_on_exit
            and not db.needs_rollback and not db.get_autocommit())


def _insert(db, model, names: tuple[str, ...], rows: list[list]) -> Statement:
    sql, columns = _insert_shape(db.vendor, model, names, len(rows))
    params = [prepare(db, field, value) for row in rows for (field, prepare), value in zip(columns, row, strict=True)]
    return sql, params


@lru_cache(maxsize=256)  # one per number of rows a step appends
def _insert_shape(vendor: str, model, names: tuple[str, ...], count: int) -> tuple[str, list]:
    """The SQL of an insert of ``count`` rows of these fields and each field with its preparer."""
    qn = connection.ops.quote_name
    fields = [model._meta.get_field(name) for name in names]
    placeholders = "(" + ", ".join(["%s"] * len(fields)) + ")"
    sql = (f"INSERT INTO {qn(model._meta.db_table)} ({', '.join(qn(f.column) for f in fields)}) "
           f"VALUES {', '.join([placeholders] * count)}")
    return sql, [(field, _preparer(vendor, field)) for field in fields]


# ----- a step written without the row lock ------------------------------------------------------------

STEP_FIELDS = ("state", "version", "deadline_at", "deadline_seat", "last_event_seq", "seating")
# Not compared: the state moves only with the version.
_NOT_COMPARED = {"id", "state"}


def unlocked_writes() -> bool:
    """Whether ``write_step_if_unchanged`` can be used here: PostgreSQL with pipelines, outside a transaction."""
    db = _db()
    return db.vendor == "postgresql" and pg_pipeline.available() and not db.in_atomic_block


def write_step_if_unchanged(read: Table, table: Table, moves: list[dict], events: list[tuple[int, dict]], *,
                            actor_id: int | None) -> bool:
    """Write a step computed from ``read`` without locking the row: the table's update, the step's move
    and event rows and the timer's entry in ONE statement and one round trip (no BEGIN, no lock, no
    COMMIT; one statement is its own transaction), applied only if the table's row is still as read
    (every column but the state, which moves only with the version), its room's row too, and the acting account
    (``actor_id``) is active. The inserts take their rows from the update's, so when the row changed
    nothing at all is written. Returns whether the step was written; False leaves the caller to take the
    locked path. Only where ``unlocked_writes()``."""
    db = _db()
    sql, table_set, table_compared, room_compared, move_columns, event_columns, deadline_columns = _guarded_shape(
        len(moves), len(events), actor_id is not None)
    params = [prepare(db, field, getattr(table, field.attname)) for field, prepare in table_set]
    params.append(read.pk)
    params += [prepare(db, field, getattr(read, field.attname)) for field, prepare in table_compared]
    params.append(read.room_id)
    params += [prepare(db, field, getattr(read.room, field.attname)) for field, prepare in room_compared]
    if actor_id is not None:
        params.append(actor_id)
    for m in moves:
        params += [prepare(db, field, value) for (field, prepare), value in
                   zip(move_columns, (table.pk, m["seq"], m["seat"], m["move"], m["now_ms"]), strict=True)]
    if events:
        now = timezone.now()
        for seq, event in events:
            params += [prepare(db, field, value) for (field, prepare), value in
                       zip(event_columns, (table.pk, seq, event.get("type", "event"), event, table.version, now),
                           strict=True)]
    params += [prepare(db, field, value) for (field, prepare), value in
               zip(deadline_columns, (table.pk, table.deadline_at, table.version), strict=True)]
    try:
        found = _round_trip(db, pg_pipeline.Command(sql, params))
    except (IntegrityError, DataError):  # nothing was written (one statement): the locked path decides
        return False
    return bool(found and found[0][0])


_MOVE_NAMES = ("table", "seq", "seat", "move", "now_ms")
_EVENT_NAMES = ("table", "seq", "kind", "payload", "version", "created_at")


@lru_cache(maxsize=64)  # one per (moves, events, actor) count a step has
def _guarded_shape(move_count: int, event_count: int, actor: bool) -> tuple:
    vendor = "postgresql"
    qn = connection.ops.quote_name
    user = get_user_model()
    table_set = [Table._meta.get_field(name) for name in STEP_FIELDS]
    table_compared = [f for f in Table._meta.concrete_fields if f.attname not in _NOT_COMPARED]
    room_compared = [f for f in Room._meta.concrete_fields if f.attname != "id"]

    def same(alias: str, field) -> str:
        return f"{alias}.{qn(field.column)} IS NOT DISTINCT FROM %s"

    room_check = " AND ".join([f"r.{qn('id')} = %s", *(same("r", f) for f in room_compared)])
    conditions = [f"t.{qn('id')} = %s", *(same("t", f) for f in table_compared),
                  f"EXISTS (SELECT 1 FROM {qn(Room._meta.db_table)} r WHERE {room_check})"]
    if actor:
        conditions.append(f"EXISTS (SELECT 1 FROM {qn(user._meta.db_table)} a "
                          f"WHERE a.{qn('id')} = %s AND a.{qn('is_active')})")
    assignments = ", ".join(f"{qn(f.column)} = %s" for f in table_set)
    parts = [f"u AS (UPDATE {qn(Table._meta.db_table)} t SET {assignments} WHERE {' AND '.join(conditions)} "
             f"RETURNING t.{qn('id')})"]
    columns = {}
    for key, model, names, count in (("w0", TableMove, _MOVE_NAMES, move_count),
                                      ("w1", TableEvent, _EVENT_NAMES, event_count)):
        fields = [model._meta.get_field(name) for name in names]
        columns[key] = [(field, _preparer(vendor, field)) for field in fields]
        if not count:
            continue
        # Typed: a VALUES list under a SELECT does not take its column types from the INSERT.
        row = "(" + ", ".join(f"CAST(%s AS {field.db_type(connection)})" for field in fields) + ")"
        parts.append(f"{key} AS (INSERT INTO {qn(model._meta.db_table)} ({', '.join(qn(f.column) for f in fields)}) "
                     f"SELECT * FROM (VALUES {', '.join([row] * count)}) v WHERE EXISTS (SELECT 1 FROM u))")
    deadline_sql, deadline_columns = _deadline_shape(vendor, guarded=True)
    parts.append(f"d AS ({deadline_sql})")
    sql = f"WITH {', '.join(parts)} SELECT count(*) FROM u"
    return (sql, [(f, _preparer(vendor, f)) for f in table_set], [(f, _preparer(vendor, f)) for f in table_compared],
            [(f, _preparer(vendor, f)) for f in room_compared], columns["w0"], columns["w1"], deadline_columns)
