"""live.pg_pipeline: several statements in one round trip, on a real PostgreSQL connection."""

from __future__ import annotations

import psycopg
import pytest
from django.conf import settings
from django.db import connection
from psycopg import errors, pq

from live import pg_pipeline
from live.pg_pipeline import Command

pytestmark = pytest.mark.skipif(settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
                                reason="pipeline mode is PostgreSQL's")


@pytest.fixture
def conn(db):
    """A connection of its own (not Django's), to the test database, with a scratch table."""
    connection.ensure_connection()
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params) as raw:
        raw.execute("CREATE TEMP TABLE scratch (id int PRIMARY KEY, note text)")
        raw.commit()
        yield raw


def _in_other_session(sql: str) -> list[tuple]:
    connection.ensure_connection()
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as other:
        return other.execute(sql).fetchall()


def test_begin_and_a_select_then_writes_and_commit_take_two_round_trips(conn):
    begin = pg_pipeline.begin_command(conn)
    assert begin is not None  # psycopg would have sent one before the next statement
    rows = pg_pipeline.round_trip(conn, [begin, Command("SELECT %s::int + 1, %s::text", [41, "x"])])
    assert rows == [[], [(42, "x")]]
    assert conn.pgconn.transaction_status == pq.TransactionStatus.INTRANS
    assert pg_pipeline.begin_command(conn) is None  # the transaction is open now

    pg_pipeline.round_trip(conn, [Command("INSERT INTO scratch VALUES (%s, %s)", [1, "one"]), Command(b"COMMIT")])
    assert conn.pgconn.transaction_status == pq.TransactionStatus.IDLE
    # Committed: psycopg's own next statement starts a new transaction and sees the row.
    assert conn.execute("SELECT note FROM scratch WHERE id = 1").fetchone() == ("one",)
    conn.rollback()


def test_no_begin_in_autocommit(conn):
    conn.autocommit = True
    assert pg_pipeline.begin_command(conn) is None
    assert pg_pipeline.round_trip(conn, [Command("SELECT %s::int", [7])]) == [[(7,)]]


def test_statements_are_prepared_once_per_connection_and_by_parameter_types(conn):
    sql = "SELECT %s::bigint * 2"
    for value in (1, 2, 10**12):  # a small int and one that needs int8 are dumped as different types
        assert pg_pipeline.round_trip(conn, [Command(sql, [value])]) == [[(value * 2,)]]
    names = [row[0] for row in conn.execute(
        "SELECT name FROM pg_prepared_statements WHERE name LIKE 'cardroom_%%'").fetchall()]
    assert 1 <= len(names) <= 2
    assert pg_pipeline.round_trip(conn, [Command(sql, [3])]) == [[(6,)]]
    assert len(conn.execute("SELECT 1 FROM pg_prepared_statements WHERE name LIKE 'cardroom_%%'").fetchall()) == len(names)


def test_a_failing_statement_raises_its_error_and_skips_the_rest(conn):
    begin = pg_pipeline.begin_command(conn)
    with pytest.raises(errors.UniqueViolation):
        pg_pipeline.round_trip(conn, [begin, Command("INSERT INTO scratch VALUES (%s, %s)", [1, "a"]),
                                      Command("INSERT INTO scratch VALUES (%s, %s)", [1, "b"]),
                                      Command("INSERT INTO scratch VALUES (%s, %s)", [2, "c"]), Command(b"COMMIT")])
    # The transaction failed and nothing after the error ran, COMMIT included.
    assert conn.pgconn.transaction_status == pq.TransactionStatus.INERROR
    assert conn.pgconn.pipeline_status == pq.PipelineStatus.OFF
    conn.rollback()
    assert conn.execute("SELECT count(*) FROM scratch").fetchone() == (0,)
    # The connection is fine afterwards, prepared statements included.
    assert pg_pipeline.round_trip(conn, [Command("INSERT INTO scratch VALUES (%s, %s) RETURNING id", [3, "d"])]) == [[(3,)]]


def test_a_statement_that_cannot_be_prepared_raises_and_is_not_remembered(conn):
    with pytest.raises(errors.UndefinedTable):
        pg_pipeline.round_trip(conn, [Command("SELECT * FROM no_such_table WHERE id = %s", [1])])
    conn.rollback()
    conn.execute("CREATE TEMP TABLE no_such_table (id int)")
    conn.commit()
    assert pg_pipeline.round_trip(conn, [Command("SELECT * FROM no_such_table WHERE id = %s", [1])]) == [[]]


def test_a_broken_connection_raises_operational_error(conn):
    pid = conn.info.backend_pid
    assert _in_other_session(f"SELECT pg_terminate_backend({pid})") == [(True,)]
    with pytest.raises(psycopg.OperationalError):
        pg_pipeline.round_trip(conn, [Command("SELECT %s::int", [1])])
    assert conn.closed


def test_the_pipeline_refuses_a_connection_already_in_pipeline_mode(conn):
    with conn.pipeline():
        with pytest.raises(psycopg.ProgrammingError):
            pg_pipeline.round_trip(conn, [Command("SELECT 1")])


def test_a_connection_lost_inside_the_transaction_raises_operational_error(conn):
    begin = pg_pipeline.begin_command(conn)
    pg_pipeline.round_trip(conn, [begin, Command("INSERT INTO scratch VALUES (%s, %s)", [5, "e"])])
    _in_other_session(f"SELECT pg_terminate_backend({conn.info.backend_pid})")
    with pytest.raises(psycopg.OperationalError):
        pg_pipeline.round_trip(conn, [Command("SELECT %s::int", [1]), Command(b"COMMIT")])
    assert conn.closed


def test_statements_deallocated_behind_its_back_are_prepared_again(conn):
    sql = "SELECT %s::int + 100"
    assert pg_pipeline.round_trip(conn, [Command(sql, [1])]) == [[(101,)]]
    conn.execute("DEALLOCATE ALL")  # as psycopg does after a rollback when its own cache holds one
    with pytest.raises(errors.InvalidSqlStatementName):
        pg_pipeline.round_trip(conn, [Command(sql, [2])])
    conn.rollback()
    assert pg_pipeline.round_trip(conn, [Command(sql, [3])]) == [[(103,)]]  # and only that one failure


def test_a_value_that_cannot_be_adapted_leaves_the_connection_usable(conn):
    with pytest.raises(psycopg.ProgrammingError):
        pg_pipeline.round_trip(conn, [Command("SELECT %s", [object()])])
    assert not conn.closed and conn.pgconn.pipeline_status == pq.PipelineStatus.OFF
    assert pg_pipeline.round_trip(conn, [Command("SELECT %s::int", [4])]) == [[(4,)]]


def test_one_statement_twice_in_a_batch_is_prepared_once(conn):
    sql = "SELECT %s::int * 3"
    assert pg_pipeline.round_trip(conn, [Command(sql, [1]), Command(sql, [2])]) == [[(3,)], [(6,)]]
    assert conn.execute("SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'cardroom_%%'").fetchone() == (1,)


def test_a_long_statement_with_many_parameters_round_trips_every_value(conn):
    """Past psycopg's own conversion cache (4 KB, 50 parameters), as a step's guarded statement is: the
    placeholders are numbered here, and every value comes back as a psycopg cursor gives it."""
    import datetime

    from psycopg.types.json import Jsonb

    values = [7, "text", None, True, 10**12, datetime.datetime(2026, 12, 3, 12, 0, tzinfo=datetime.UTC),
              Jsonb({"hand": ["P1", "W"], "n": 3}), -1.5] * 9
    casts = ["int", "text", "text", "bool", "bigint", "timestamptz", "jsonb", "float8"] * 9
    padding = " " * 4200  # over 4 KB of statement text
    sql = "SELECT " + ", ".join(f"%s::{cast}" for cast in casts) + padding
    expected = conn.execute(sql, values).fetchall()
    conn.rollback()
    assert pg_pipeline.round_trip(conn, [Command(sql, values)]) == [expected]
    assert pg_pipeline.round_trip(conn, [Command(sql, values)]) == [expected]  # prepared, the second time


def test_a_literal_percent_and_a_wrong_parameter_count_are_psycopg_s_to_handle(conn):
    assert pg_pipeline.round_trip(conn, [Command("SELECT %s::text || '%%'", ["50"])]) == [[("50%",)]]
    with pytest.raises(psycopg.ProgrammingError):
        pg_pipeline.round_trip(conn, [Command("SELECT %s::int, %s::int", [1])])
    assert pg_pipeline.round_trip(conn, [Command("SELECT %s::int", [4])]) == [[(4,)]]


def test_the_sync_refuses_a_closed_connection_instead_of_handing_libpq_a_null_one(conn):
    pgconn = conn.pgconn
    conn.close()
    with pytest.raises(psycopg.OperationalError):
        pg_pipeline._sync(pgconn)


def test_parameters_that_are_not_a_list_are_refused_as_psycopg_refuses_them(conn):
    sql = "SELECT %s::text, %s::text"
    with pytest.raises(Exception) as from_psycopg:
        conn.execute(sql, {"a": 1, "b": 2})
    conn.rollback()
    with pytest.raises(type(from_psycopg.value)):
        pg_pipeline.round_trip(conn, [Command(sql, {"a": 1, "b": 2})])
    assert pg_pipeline.round_trip(conn, [Command(sql, ("a", "b"))]) == [[("a", "b")]]
