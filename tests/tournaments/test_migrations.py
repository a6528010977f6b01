"""Migration 0002 backfills ``Entry.paid`` from the ledger, not from today's (possibly edited) fee."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("tournaments", "0001_initial")]
AFTER = [("tournaments", "0002_entry_paid_payout_error")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    executor.loader.build_graph()
    apps = {app for app, _ in targets}
    others = [node for node in executor.loader.graph.leaf_nodes() if node[0] not in apps]
    return executor.loader.project_state(others + list(targets)).apps


@pytest.mark.django_db(transaction=True)
def test_backfill_takes_each_entrys_payment_from_its_ledger_posting():
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    apps = _migrate(BEFORE)
    try:
        User = apps.get_model("accounts", "User")
        Room = apps.get_model("rooms", "Room")
        Tournament = apps.get_model("tournaments", "Tournament")
        Entry = apps.get_model("tournaments", "Entry")
        Account = apps.get_model("wallets", "Account")
        Tx = apps.get_model("wallets", "LedgerTransaction")
        Leg = apps.get_model("wallets", "Entry")
        room = Room.objects.create(name="31", slug="t-mig-31", game="otuzbir", seats=7, min_seats=2, rake_bps=0)
        from django.utils import timezone

        t = Tournament.objects.create(name="Edited", room=room, starts_at=timezone.now(), entry_fee=50,
                                      status="registering")  # the fee was 20 when a and b registered
        a, b, c = (User.objects.create(username=f"t-mig-{n}") for n in "abc")
        escrow = Account.objects.create(kind="tournament", owner_key=f"tournament:{t.pk}", currency="CHP")
        for user, n, amount in [(a, 1, 20), (b, 1, 20), (b, 2, 50)]:
            wallet = Account.objects.get_or_create(kind="player", owner_key=f"user:{user.pk}", currency="CHP",
                                                   user=user)[0]
            tx = Tx.objects.create(key=f"tournament:{t.pk}:entry:{user.pk}:{n}", kind="entry")
            Leg.objects.create(transaction=tx, account=wallet, amount=-amount)
            Leg.objects.create(transaction=tx, account=escrow, amount=amount)
        Entry.objects.create(tournament=t, user=a, registrations=1)
        Entry.objects.create(tournament=t, user=b, registrations=2)  # registered, left, came back at 50
        Entry.objects.create(tournament=t, user=c, registrations=1)  # registered while the fee was 0

        apps = _migrate(AFTER)
        paid = dict(apps.get_model("tournaments", "Entry").objects.values_list("user__username", "paid"))
        assert paid == {"t-mig-a": 20, "t-mig-b": 50, "t-mig-c": 0}
    finally:
        _migrate(latest)
