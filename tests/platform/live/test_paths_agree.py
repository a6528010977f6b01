"""The pipelined PostgreSQL path, the plain one and the unlocked one (a move computed from a fresh read and
written in one statement if nothing changed) agree: the same seeded game, played move for move at the same
clock through each, leaves the same rows and sends the same frames (issue 21: the reference path stays the
check on the tuned ones). PostgreSQL only: elsewhere there is one path."""

from __future__ import annotations

import pytest
from django.db import connection

from gameworkers.engines import get_engine
from live import pg_pipeline, rows
from rooms import selectors, services
from rooms.models import Table, TableEvent, TableMove

pytestmark = pytest.mark.django_db(transaction=True)

T0 = 1_900_000_000_000  # a fixed clock: both games' steps carry the same times


def _started(room, players) -> Table:
    table = services.table_open(room=room, host=players[0])
    for user in players:
        services.table_sit(table_id=table.pk, user=user)
    services.table_start(table_id=table.pk, by=players[0])
    return Table.objects.get(pk=table.pk)


def _play(table_id: int, *, steps: int, unlocked: bool = False) -> None:
    engine = get_engine("lembar")
    for step in range(steps):
        table = rows.load_tables([table_id])[table_id]
        if table.status != "running":
            return
        seat = engine.to_act(table.state)[0]
        move = engine.legal_moves(table.state, seat)[0]
        services.table_play(table_id=table_id, seat_number=seat, move=move, expected_version=table.version,
                            at_ms=T0 + 1000 * (step + 1), read=table if unlocked else None)


def _rows(table_id: int, since_version: int) -> dict:
    table = Table.objects.get(pk=table_id)
    frames = selectors.table_frames(table=table, seat_numbers=[*range(table.seat_count), None])
    for frame in frames:
        frame.pop("table"), frame.pop("deadline", None), frame.pop("server_time", None)
    return {
        "table": {name: getattr(table, name) for name in (
            "state", "version", "status", "last_event_seq", "deadline_seat", "seating", "result")},
        "moves": list(TableMove.objects.filter(table_id=table_id).order_by("seq").values_list("seq", "seat", "move",
                                                                                           "now_ms")),
        "events": list(TableEvent.objects.filter(table_id=table_id, version__gte=since_version).order_by("seq")
                       .values_list("seq", "kind", "payload", "version")),
        "frames": frames,
    }


def test_the_same_game_through_both_paths_leaves_the_same_rows_and_frames(lembar_room, make_user, monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("one path only: the pipeline is PostgreSQL's")
    assert pg_pipeline.available()
    players = [make_user("ana"), make_user("budi")]
    tuned, plain, unlocked = (_started(lembar_room, players) for _ in range(3))
    # The same deal: the other tables take the tuned one's dealt state and sealed seed.
    Table.objects.filter(pk__in=[plain.pk, unlocked.pk]).update(
        state=tuned.state, seed_sealed=tuned.seed_sealed, commitment=tuned.commitment, version=tuned.version,
        last_event_seq=tuned.last_event_seq)
    start = tuned.version

    _play(tuned.pk, steps=60)
    with monkeypatch.context() as patch:
        patch.setattr(pg_pipeline, "available", lambda: False)  # each statement on its own, as psycopg sends it
        _play(plain.pk, steps=60)
    writes = []
    real = rows.write_step_if_unchanged
    monkeypatch.setattr(rows, "write_step_if_unchanged", lambda *a, **k: writes.append(real(*a, **k)) or writes[-1])
    _play(unlocked.pk, steps=60, unlocked=True)

    a, b, c = _rows(tuned.pk, start), _rows(plain.pk, start), _rows(unlocked.pk, start)
    seating = [{k: v for k, v in e.items() if k != "user_id"} for e in a["table"]["seating"]]
    # A real stretch of a game (60 steps, or a deal that ended sooner: its last move settles, locked).
    assert (len(a["moves"]) >= 60 or a["table"]["status"] == "finished") and len(a["moves"]) >= 10 and seating
    assert a == b
    assert a == c
    assert len(writes) >= len(c["moves"]) - 1 and all(writes)  # every move but a game's last: one statement
