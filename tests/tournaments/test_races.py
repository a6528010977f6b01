"""Concurrency on PostgreSQL (threads released together, each on its own connection)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError

from tests.platform.wallets.test_races import run_together
from tournaments import services
from tournaments.models import Tournament
from wallets.checks import ledger_problems

pytestmark = [
    pytest.mark.skipif(not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
                       reason="race tests need PostgreSQL row locks; run with DATABASE_URL=postgres://..."),
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("quiet"),
]


def test_a_fee_edit_racing_registrations_never_leaves_an_entry_paying_another_fee(make_tournament, make_user):
    # The edit re-reads the row under the lock registration takes: it either lands before every
    # registration (all pay 50) or is refused (all paid 20); never "paid 20, fee now 50".
    t = make_tournament()
    users = [make_user() for _ in range(12)]

    def edit() -> object:
        tournament = Tournament.objects.get(pk=t.pk)
        tournament.entry_fee = 50
        tournament.save()
        return "edited"

    def register(user):
        return lambda: services.register(tournament_id=t.pk, user=user)

    workers = [register(u) for u in users[:6]] + [edit] + [register(u) for u in users[6:]]
    results = run_together(workers)
    assert all(not isinstance(r, Exception) for i, r in enumerate(results) if i != 6), results
    assert results[6] == "edited" or isinstance(results[6], ValidationError), results[6]
    fee = Tournament.objects.get(pk=t.pk).entry_fee
    assert set(t.entries.values_list("paid", flat=True)) == {fee}
    assert ledger_problems() == []
