"""A move computed from a fresh unlocked read (``table_play(read=...)``, the batch of bot turns) is written
in one statement and one round trip when nothing changed since the read, and otherwise writes nothing and
leaves the answer to the locked path: a newer version, an event or seat change that kept the version, a
room's new timer, a deactivated account, a step that settles money or seats. PostgreSQL only (the
pipeline); elsewhere every move takes the locked path."""

from __future__ import annotations

import pytest
from django.db import connection

from gameworkers.engines import get_engine
from live import pg_pipeline, rows
from rooms import services
from rooms.errors import TableError
from rooms.models import Table, TableDeadline, TableEvent, TableMove
from rooms.services.base import _record

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("the one-statement path is PostgreSQL's")


@pytest.fixture
def round_trips(monkeypatch):
    """The statements of every round trip the move path sends."""
    sent: list[list[str]] = []
    real = pg_pipeline.round_trip

    def counting(conn, commands):
        sent.append([bytes(c.sql).decode() if isinstance(c.sql, bytes) else str(c.sql) for c in commands])
        return real(conn, commands)

    monkeypatch.setattr(pg_pipeline, "round_trip", counting)
    return sent


def _read(table: Table) -> Table:
    """The table as a batch reads it: unlocked, with its room and its host's name."""
    return rows.load_tables([table.pk])[table.pk]


def _turn(table: Table) -> tuple[int, dict, int]:
    engine = get_engine(table.game)
    seat = engine.to_act(table.state)[0]
    user_id = next(e["user_id"] for e in table.seating if e["seat"] == seat)
    return seat, engine.legal_moves(table.state, seat)[0], user_id


def _play(table: Table, *, read: Table | None, expected: int | None = None) -> int:
    seat, move, user_id = _turn(table)
    return services.table_play(table_id=table.pk, seat_number=seat, move=move, user_id=user_id,
                               expected_version=table.version if expected is None else expected, read=read)


def test_a_move_from_a_fresh_read_is_one_statement_in_one_round_trip(lembar_room, round_trips, started_table):
    table = _read(started_table(lembar_room))
    moves_before = TableMove.objects.filter(table=table).count()
    round_trips.clear()
    assert _play(table, read=table) == table.version + 1
    assert len(round_trips) == 1 and len(round_trips[0]) == 1  # no BEGIN, no lock, no COMMIT
    assert round_trips[0][0].startswith("WITH u AS (UPDATE")
    fresh = Table.objects.get(pk=table.pk)
    assert fresh.version == table.version + 1
    # the timer's entry went with it: the new deadline, for the new version, not handed out
    due = TableDeadline.objects.get(table=table)
    assert (due.due_at, due.version, due.enqueued_at) == (fresh.deadline_at, fresh.version, None)
    assert TableMove.objects.filter(table=table).count() == moves_before + 1
    # the locked path takes two (BEGIN + lock, then the writes + COMMIT)
    again = rows.load_tables([table.pk])[table.pk]
    round_trips.clear()
    _play(again, read=None)
    assert len(round_trips) == 2


def test_a_read_overtaken_by_another_move_writes_nothing_and_is_refused_as_stale(lembar_room, started_table):
    table = _read(started_table(lembar_room))
    _play(table, read=None)  # someone else's move since the read
    counts = (TableMove.objects.filter(table=table).count(), TableEvent.objects.filter(table=table).count())
    with pytest.raises(TableError) as refused:
        _play(table, read=table)
    assert refused.value.code == "stale_version" and refused.value.version == table.version + 1
    assert (TableMove.objects.filter(table=table).count(), TableEvent.objects.filter(table=table).count()) == counts


def test_an_event_recorded_without_a_new_version_sends_the_move_down_the_locked_path(
        lembar_room, monkeypatch, started_table):
    table = _read(started_table(lembar_room))
    locked = Table.objects.get(pk=table.pk)
    _record(locked, "note", {"why": "a moderator's note"})  # last_event_seq moves, the version does not
    writes = []
    real = rows.write_step_if_unchanged
    monkeypatch.setattr(rows, "write_step_if_unchanged", lambda *a, **k: writes.append(real(*a, **k)) or writes[-1])
    assert _play(table, read=table) == table.version + 1  # applied, by the locked path
    assert writes == [False]
    seqs = list(TableEvent.objects.filter(table=table).order_by("seq").values_list("seq", flat=True))
    assert seqs == sorted(set(seqs)) and seqs[-1] > locked.last_event_seq  # numbered after the note


def test_a_room_timer_changed_since_the_read_is_the_one_the_deadline_uses(lembar_room, started_table):
    table, reference = _read(started_table(lembar_room)), _read(started_table(lembar_room))
    # The same game at both tables (the reference takes the first's deal and seats' users).
    Table.objects.filter(pk=reference.pk).update(state=table.state, seed_sealed=table.seed_sealed,
                                                 version=table.version, seating=table.seating,
                                                 last_event_seq=table.last_event_seq)
    lembar_room.turn_seconds += 40
    lembar_room.save(update_fields=["turn_seconds"])
    seat, move, user_id = _turn(table)
    at = int(table.state["last_move_ms"] or 0) + 1000
    services.table_play(table_id=table.pk, seat_number=seat, move=move, user_id=user_id, at_ms=at,
                        expected_version=table.version, read=table)  # its room still has the old timer
    services.table_play(table_id=reference.pk, seat_number=seat, move=move, user_id=user_id, at_ms=at,
                        expected_version=table.version)
    got, expected = Table.objects.get(pk=table.pk), Table.objects.get(pk=reference.pk)
    assert got.version == expected.version == table.version + 1
    assert got.deadline_at == expected.deadline_at  # the new timer's


def test_a_seat_change_that_kept_the_version_sends_the_move_down_the_locked_path(lembar_room,
                                                                                  monkeypatch, started_table):
    table = _read(started_table(lembar_room))
    seating = [dict(e) for e in table.seating]
    seating[0]["bank_ms"] = seating[0].get("bank_ms", 0) + 1  # e.g. a grace given: seating, same version
    Table.objects.filter(pk=table.pk).update(seating=seating)
    writes = []
    real = rows.write_step_if_unchanged
    monkeypatch.setattr(rows, "write_step_if_unchanged", lambda *a, **k: writes.append(real(*a, **k)) or writes[-1])
    assert _play(table, read=table) == table.version + 1
    assert writes == [False]


def test_a_deactivated_account_is_refused(lembar_room, started_table):
    table = _read(started_table(lembar_room))
    seat, move, user_id = _turn(table)
    from accounts.models import User

    User.objects.filter(pk=user_id).update(is_active=False)
    with pytest.raises(TableError) as refused:
        services.table_play(table_id=table.pk, seat_number=seat, move=move, user_id=user_id,
                            expected_version=table.version, read=table)
    assert refused.value.code == "account_inactive"
    assert Table.objects.get(pk=table.pk).version == table.version


def test_a_timed_out_seat_and_a_seat_change_take_the_locked_path(lembar_room, monkeypatch, started_table):
    table = _read(started_table(lembar_room))
    writes = []
    monkeypatch.setattr(rows, "write_step_if_unchanged", lambda *a, **k: writes.append(1))
    seating = [dict(e) for e in table.seating]
    seat, _, _ = _turn(table)
    for entry in seating:
        if entry["seat"] == seat:
            entry["timeouts"] = 1  # its timeouts are cleared by its own move: a Seat row write, locked
    Table.objects.filter(pk=table.pk).update(seating=seating)
    read = rows.load_tables([table.pk])[table.pk]
    assert _play(read, read=read) == read.version + 1
    assert writes == []  # never tried
