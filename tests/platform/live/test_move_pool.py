"""live.move_pool: a socket's move applied on the pool's kept connection, surviving a broken one."""

from __future__ import annotations

import pytest
from django.db import connection

from accounts.services import user_create
from gameworkers.engines import get_engine
from live import move_pool
from rooms import services
from rooms.errors import TableError
from rooms.models import Room, Table

pytestmark = pytest.mark.django_db(transaction=True)


def _running_table():
    room = Room.objects.create(name="Pool", slug="pool", game="lembar", seats=2, min_seats=2, turn_seconds=600)
    users = [user_create(username=f"pool{i}", password="pass-word-123") for i in range(2)]
    table = services.table_open(room=room, host=users[0])
    for user in users:
        services.table_sit(table_id=table.pk, user=user)
    table = Table.objects.get(pk=table.pk)
    seat = get_engine("lembar").to_act(table.state)[0]
    return table, seat, users[seat]


def _first_legal(table: Table, seat: int) -> dict:
    return get_engine("lembar").legal_moves(table.state, seat)[0]


def test_a_broken_connection_is_replaced_and_the_move_applied_once(monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("kept connections that break are a PostgreSQL matter (a server restart, a killed backend)")
    monkeypatch.setattr("gameworkers.tasks.schedule_bot_turn", lambda *a, **k: None)
    table, seat, user = _running_table()
    connection.ensure_connection()
    import psycopg

    # The server ends this connection (as a database restart or pg_terminate_backend does): the next
    # statement fails on the server side, in the move's first (raw, prepared) statement.
    pid = connection.connection.info.backend_pid
    with psycopg.connect(connection.connection.info.dsn, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])
    start = table.version
    version = move_pool.play(table_id=table.pk, seat_number=seat, move=_first_legal(table, seat),
                             expected_version=start, user_id=user.pk)
    assert version == start + 1
    table.refresh_from_db()
    assert table.version == start + 1 and table.moves.count() == 1


def test_a_refused_move_changes_nothing_and_carries_the_tables_version():
    table, seat, user = _running_table()
    other = 1 - seat
    start = table.version
    with pytest.raises(TableError) as refused:
        move_pool.play(table_id=table.pk, seat_number=other, move=_first_legal(table, seat),
                       expected_version=start, user_id=user.pk)  # not this user's seat
    assert (refused.value.code, refused.value.version) == ("not_seated", start)
    with pytest.raises(TableError) as stale:
        move_pool.play(table_id=table.pk, seat_number=seat, move=_first_legal(table, seat),
                       expected_version=start + 5, user_id=user.pk)
    assert (stale.value.code, stale.value.version) == ("stale_version", start)
    table.refresh_from_db()
    assert table.version == start and table.moves.count() == 0


def test_a_move_whose_commit_went_through_before_the_connection_broke_is_announced(monkeypatch):
    """The reply to COMMIT is lost: the retry is refused as stale (never applied twice), and the table
    is broadcast and its bots queued again, since the first attempt's after-commit hooks were dropped."""
    from django.db import OperationalError

    monkeypatch.setattr("gameworkers.tasks.schedule_bot_turn", lambda *a, **k: None)
    table, seat, user = _running_table()
    real_play = services.table_play
    calls = []

    def commit_then_break(**kwargs):
        calls.append(kwargs["expected_version"])
        if len(calls) == 1:
            real_play(**kwargs)
            raise OperationalError("server closed the connection unexpectedly")
        return real_play(**kwargs)

    announced = []
    monkeypatch.setattr(services, "table_play", commit_then_break)
    monkeypatch.setattr("rooms.broadcast.table_changed", lambda table, **kwargs: announced.append(table.version))
    start = table.version
    with pytest.raises(TableError) as stale:
        move_pool.play(table_id=table.pk, seat_number=seat, move=_first_legal(table, seat),
                       expected_version=start, user_id=user.pk)
    assert (stale.value.code, stale.value.version) == ("stale_version", start + 1)
    # the first commit's own broadcast, then the announcement
    assert calls == [start, start] and announced == [start + 1, start + 1]
    table.refresh_from_db()
    assert table.version == start + 1 and table.moves.count() == 1


def test_a_pool_thread_hands_its_broadcast_to_the_broadcaster_thread(monkeypatch):
    """The move's thread returns once committed; the frames go out from the process's broadcaster."""
    import asyncio
    import threading

    from rooms import broadcast

    monkeypatch.setattr("gameworkers.tasks.schedule_bot_turn", lambda *a, **k: None)
    table, seat, user = _running_table()
    sent: list[tuple[str, int]] = []
    done = threading.Event()

    def record(messages):
        sent.extend((threading.current_thread().name, m["version"]) for _g, m in messages if "version" in m)
        done.set()

    monkeypatch.setattr(broadcast, "publish", record)
    start = table.version
    version = asyncio.run(move_pool.play_async(table_id=table.pk, seat_number=seat, move=_first_legal(table, seat),
                                               expected_version=start, user_id=user.pk))
    assert version == start + 1
    assert done.wait(10)
    assert [(name.split("_")[0], v) for name, v in sent] == [("broadcast", start + 1)]
    assert getattr(broadcast._handoff, "submit", None) is None  # this (test) thread still sends inline


def _play_turn(table_id: int) -> int:
    table = Table.objects.get(pk=table_id)
    engine = get_engine("lembar")
    seat = engine.to_act(table.state)[0]
    user_id = next(e["user_id"] for e in table.seating if e["seat"] == seat)
    return move_pool.play(table_id=table_id, seat_number=seat, move=engine.legal_moves(table.state, seat)[0],
                          expected_version=table.version, user_id=user_id)


def test_the_next_move_here_starts_from_the_row_this_process_wrote(monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("the one-statement write is PostgreSQL's")
    from live import pg_pipeline

    trips: list[int] = []
    real = pg_pipeline.round_trip
    monkeypatch.setattr(pg_pipeline, "round_trip", lambda conn, commands: trips.append(len(commands)) or real(
        conn, commands))
    monkeypatch.setattr(move_pool, "last_written", move_pool.LastWritten(size=4))
    table, _, _ = _running_table()
    before = Table.objects.get(pk=table.pk)  # (a read of the test's own, outside the count)
    trips.clear()
    version = _play_turn(table.pk)
    assert trips == [2, 2]  # nothing kept yet: BEGIN + lock, then the writes + COMMIT
    assert move_pool.last_written.get(table.pk, version).version == version == before.version + 1
    trips.clear()
    version = _play_turn(table.pk)
    assert trips == [1]  # from the row kept: one statement, one round trip
    # A move elsewhere (another process, the timer): the kept row is behind, the move takes the lock.
    engine = get_engine("lembar")
    fresh = Table.objects.get(pk=table.pk)
    seat = engine.to_act(fresh.state)[0]
    services.table_play(table_id=table.pk, seat_number=seat, move=engine.legal_moves(fresh.state, seat)[0],
                        expected_version=fresh.version)
    assert move_pool.last_written.get(table.pk, version + 1) is None
    trips.clear()
    _play_turn(table.pk)
    assert trips == [2, 2]


def test_the_kept_rows_are_bounded():
    kept = move_pool.LastWritten(size=2)
    tables = [Table(pk=n, version=1) for n in range(3)]
    for table in tables:
        kept.put(table)
    assert kept.get(0, 1) is None and kept.get(1, 1) is tables[1] and kept.get(2, 1) is tables[2]
    assert kept.get(2, 2) is None  # another version: not this row
