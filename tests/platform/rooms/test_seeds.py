"""Seeds at rest (issue 23 #9): a running table's row holds no plaintext seed, in any column, and the
game still plays, deals again and reveals the seed at its end."""

from __future__ import annotations

import json

import pytest
from django.db import connection

from gameworkers.engines import fairness, get_engine
from rooms import seeds, selectors, services
from rooms.models import Table


def _raw_row(table_id: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {Table._meta.db_table} WHERE id = %s", [table_id])
        return json.dumps([str(v) for v in cursor.fetchone()])


def test_the_row_of_a_running_table_holds_no_plaintext_seed(lembar_room, started_table):
    table = started_table(lembar_room)
    seed_hex = table.seed.hex()
    assert fairness.commitment(table.seed) == table.commitment
    assert seed_hex not in _raw_row(table.pk) and "seed" not in table.state
    engine = get_engine("lembar")
    for _ in range(6):  # moves go on, each with the seed opened for the engine only
        table.refresh_from_db()
        seat = engine.to_act(table.state)[0]
        move = engine.legal_moves(table.state, seat)[0]
        user_id = next(e["user_id"] for e in table.seating if e["seat"] == seat)
        services.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=table.version,
                            user_id=user_id)
        assert seed_hex not in _raw_row(table.pk)


def test_the_seed_is_revealed_when_the_table_ends(lembar_room, started_table):
    from rooms.models import StopReason

    table = started_table(lembar_room)
    seed_hex = table.seed.hex()
    assert selectors.proof_document(table=table).get("seed") is None
    services.table_stop(table_id=table.pk, reason=StopReason.HOST, by=table.host)
    table.refresh_from_db()
    assert selectors.proof_document(table=table)["seed"] == seed_hex


def test_a_seed_sealed_with_other_keys_does_not_open(settings):
    sealed = seeds.seal(bytes(range(32)))
    assert seeds.unseal(sealed) == bytes(range(32)) and bytes(range(32)).hex() not in sealed
    settings.SEED_KEYS = ["another deployment's key"]
    seeds._sealer.cache_clear()
    with pytest.raises(ValueError):
        seeds.unseal(sealed)
    settings.SEED_KEYS = ["new key", "another deployment's key"]  # rotation: the old key still opens
    seeds._sealer.cache_clear()
    assert seeds.unseal(seeds.seal(b"x" * 32)) == b"x" * 32
