"""Tournament invariants in ``ledger_check`` (tournaments/checks.py, registered into wallets.checks)."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tournaments import services
from tournaments.models import Entry, Status, Tournament
from wallets.checks import ledger_problems
from wallets.models import Currency
from wallets.services import Leg, issuance, post_transaction, revenue, tournament_escrow

pytestmark = pytest.mark.usefixtures("quiet")


def _registered(make_tournament, make_user, count=2, **kw) -> Tournament:
    t = make_tournament(**kw)
    for _ in range(count):
        services.register(tournament_id=t.pk, user=make_user())
    return t


def test_ledger_check_reports_an_escrow_that_is_not_what_the_live_entries_paid(make_tournament, make_user, capsys):
    t = _registered(make_tournament, make_user)
    assert ledger_problems() == []
    escrow = tournament_escrow(tournament_id=t.pk, currency=Currency.CHIP)
    # A balanced posting: every ledger-only invariant still holds, only the tournament's does not.
    post_transaction(key="test:skim", legs=[Leg(escrow, -5), Leg(revenue(currency=Currency.CHIP), 5)])
    assert ledger_problems() == [f"tournament {t.pk} (registering): its escrow holds 35 CHP, its live entries paid 40"]
    with pytest.raises(CommandError) as exc:
        call_command("ledger_check")
    assert exc.value.returncode == 1 and f"tournament {t.pk} (registering)" in capsys.readouterr().err
    # Issue 23's own breach: an entry records 50 paid where the escrow received 20.
    post_transaction(key="test:skim:back", legs=[Leg(revenue(currency=Currency.CHIP), -5), Leg(escrow, 5)])
    entry = Entry.objects.filter(tournament=t).first()
    Entry.objects.filter(pk=entry.pk).update(paid=50)
    assert ledger_problems() == [f"tournament {t.pk} (registering): its escrow holds 40 CHP, its live entries paid 70"]


def test_ledger_check_reports_a_finished_tournament_that_never_paid_out(make_tournament, make_user):
    t = _registered(make_tournament, make_user)
    services.start(tournament_id=t.pk)
    assert ledger_problems() == []
    Tournament.objects.filter(pk=t.pk).update(status=Status.FINISHED)  # finished without its prizes posting
    assert ledger_problems() == [
        f"tournament {t.pk} (finished): its escrow holds 40 CHP, it should hold nothing",
        f"tournament {t.pk} finished without paying its prizes: no posting tournament:{t.pk}:prizes "
        f"for the 40 CHP its entrants paid",
    ]


def test_ledger_check_reports_a_recorded_payout_failure_and_a_cancelled_tournaments_escrow(make_tournament,
                                                                                        make_user):
    t = _registered(make_tournament, make_user)
    services.start(tournament_id=t.pk)
    Tournament.objects.filter(pk=t.pk).update(payout_error="pool_mismatch: Prizes 45 do not match the escrow 40.")
    assert ledger_problems() == [f"tournament {t.pk} (running) is stuck: its prize payout failed "
                                 f"(pool_mismatch: Prizes 45 do not match the escrow 40.)"]
    Tournament.objects.filter(pk=t.pk).update(payout_error="", status=Status.CANCELLED)  # with the money still in
    assert ledger_problems() == [f"tournament {t.pk} (cancelled): its escrow holds 40 CHP, it should hold nothing"]


def test_ledger_check_reports_tournament_escrows_in_another_currency_or_for_no_tournament(make_tournament):
    t = make_tournament()
    for owner, amount in [(t.pk, 7), (987654, 3)]:
        kel = tournament_escrow(tournament_id=owner, currency=Currency.KELERENG)
        post_transaction(key=f"test:stray:{owner}", legs=[Leg(issuance(currency=Currency.KELERENG), -amount),
                                                          Leg(kel, amount)])
    problems = ledger_problems()
    assert len(problems) == 2
    assert problems[0].endswith(f"holds 7 KEL, but tournament {t.pk} plays in CHP")
    assert problems[1].endswith("tournament:987654 KEL) holds 3 for no tournament")
