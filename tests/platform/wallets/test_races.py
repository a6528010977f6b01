"""Concurrency on PostgreSQL: threads released together by a barrier, each on its own connection."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.conf import settings
from django.db import close_old_connections, connection

from accounts.services import user_create
from gameworkers.engines import get_engine
from rooms import seeds
from rooms import services as rooms
from rooms.errors import TableError
from rooms.models import Room, StopReason, Table, TableStatus
from wallets import services
from wallets.checks import ledger_problems
from wallets.errors import WalletError
from wallets.models import Entry, LedgerTransaction
from wallets.services import Leg

pytestmark = [
    pytest.mark.skipif(not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
                       reason="race tests need PostgreSQL row locks (SQLite serialises every writer); "
                              "run with DATABASE_URL=postgres://..."),
    pytest.mark.django_db(transaction=True),
]


def run_together(workers: list[Callable[[], object]]) -> list[object]:
    """Start every worker at once (barrier); return each result or the exception it raised."""
    barrier = threading.Barrier(len(workers))
    results: list[object] = [None] * len(workers)

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[i] = workers[i]()
        except Exception as exc:  # noqa: BLE001 - the test inspects it
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(workers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    close_old_connections()
    return results


def _users(n: int, prefix: str):
    return [user_create(username=f"{prefix}{i}", password="pass-word-123") for i in range(n)]


def test_fifty_concurrent_sits_for_the_last_seat_debit_exactly_one(make_room):
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=40, seats=3, min_seats=2)
    first, second = _users(2, "early")
    table = rooms.table_open(room=room, host=first)
    rooms.table_sit(table_id=table.pk, user=first)
    rooms.table_sit(table_id=table.pk, user=second)
    racers = _users(50, "racer")

    def sit(user) -> Callable[[], object]:
        return lambda: rooms.table_sit(table_id=table.pk, user=user)

    results = run_together([sit(u) for u in racers])
    won = [r for r in results if not isinstance(r, Exception)]
    lost = [r for r in results if isinstance(r, Exception)]
    assert len(won) == 1, results
    assert all(isinstance(e, TableError) and e.code in {"table_not_open", "table_full", "seat_taken"} for e in lost)
    debits = Entry.objects.filter(account__user__in=racers, account__currency="KEL", amount__lt=0)
    assert debits.count() == 1 and debits.get().amount == -40
    assert sorted(services.balance_of(user=u, currency="KEL") for u in racers) == [60] + [100] * 49
    assert Table.objects.get(pk=table.pk).status == TableStatus.RUNNING
    assert ledger_problems() == []


def test_the_same_key_posted_a_hundred_times_concurrently_is_one_transaction(make_user):
    a, b = make_user(), make_user()
    src, dst = services.wallet(user=a, currency="CHP"), services.wallet(user=b, currency="CHP")

    def post() -> object:
        return services.post_transaction(key="race:one", legs=[Leg(src, -7), Leg(dst, 7)]).pk

    results = run_together([post] * 100)
    assert not [r for r in results if isinstance(r, Exception)], [r for r in results if isinstance(r, Exception)][:3]
    assert len(set(results)) == 1
    assert LedgerTransaction.objects.filter(key="race:one").count() == 1
    assert services.balance_of(user=a, currency="CHP") == 993
    assert services.balance_of(user=b, currency="CHP") == 1007
    assert ledger_problems() == []


def test_concurrent_debits_never_overdraw(make_user):
    """Fifty different postings of 30 from one wallet of 100: the row lock lets exactly three through."""
    a, b = make_user(), make_user()
    src, dst = services.wallet(user=a, currency="KEL"), services.wallet(user=b, currency="KEL")

    def post(i: int) -> Callable[[], object]:
        return lambda: services.transfer(key=f"race:debit:{i}", source=src, target=dst, amount=30)

    results = run_together([post(i) for i in range(50)])
    assert sum(not isinstance(r, Exception) for r in results) == 3
    assert all(isinstance(r, WalletError) and r.code == "insufficient_funds"
               for r in results if isinstance(r, Exception))
    assert services.balance_of(user=a, currency="KEL") == 10
    assert ledger_problems() == []


def _to_the_last_move(table: Table) -> tuple[int, dict]:
    """Play first-legal moves until some legal move would end the game; return that (seat, move)."""
    engine = get_engine(table.room.game)
    for _ in range(5000):
        table.refresh_from_db()
        for seat in engine.to_act(table.state):
            for move in engine.legal_moves(table.state, seat):
                state, _events = engine.apply(seeds.playable(table), seat, move, now_ms=rooms.now_ms())
                if engine.is_over(state):
                    return seat, move
        seat = engine.to_act(table.state)[0]
        move = engine.legal_moves(table.state, seat)[0]
        rooms.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=table.version)
    raise AssertionError("no finishing move found")


@pytest.mark.parametrize("attempt", range(3))
def test_concurrent_settle_and_stop_exactly_one_takes_effect(make_room, make_user, attempt):
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=50, rake_bps=500, seats=2)
    a, b = make_user(), make_user()
    staff = make_user()
    staff.is_staff = True
    staff.save()
    table = rooms.table_open(room=room, host=a)
    rooms.table_sit(table_id=table.pk, user=a)
    rooms.table_sit(table_id=table.pk, user=b)
    seat, move = _to_the_last_move(Table.objects.select_related("room").get(pk=table.pk))
    version = Table.objects.get(pk=table.pk).version

    results = run_together([
        lambda: rooms.table_play(table_id=table.pk, seat_number=seat, move=move, expected_version=version),
        lambda: rooms.table_stop(table_id=table.pk, reason=StopReason.STAFF, by=staff),
    ])
    table.refresh_from_db()
    settled = LedgerTransaction.objects.filter(key=f"table:{table.pk}:settle").exists()
    stopped = LedgerTransaction.objects.filter(key=f"table:{table.pk}:stop").exists()
    assert settled != stopped, (results, table.status)
    assert table.status == (TableStatus.FINISHED if settled else TableStatus.STOPPED)
    loser = results[1] if settled else results[0]
    assert isinstance(loser, TableError) and loser.code in {"table_ended", "table_not_running"}
    total = services.balance_of(user=a, currency="KEL") + services.balance_of(user=b, currency="KEL")
    assert total == (195 if settled else 200)  # rake 5 of the 100 pot, or both entries back
    assert ledger_problems() == []


@pytest.fixture
def make_room(transactional_db):
    counter = {"n": 0}

    def make(game: str, **kw) -> Room:
        counter["n"] += 1
        fields = {"name": f"race {counter['n']}", "slug": f"race-{counter['n']}", "game": game, "seats": 3,
                  "min_seats": 2, "turn_seconds": 20, **kw}
        room = Room(**fields)
        room.full_clean()
        room.save()
        return room

    return make
