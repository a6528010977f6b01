"""The ledger core: post_transaction, validation, idempotency, grants, bots, bailouts."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction

from core.api import http_status
from wallets import selectors, services
from wallets.checks import ledger_problems
from wallets.errors import WalletError
from wallets.models import Account, AccountKind, Entry, LedgerTransaction, TxKind, WalletSettings
from wallets.services import Leg

pytestmark = pytest.mark.django_db


def _counts() -> tuple[int, int, list[int]]:
    return (LedgerTransaction.objects.count(), Entry.objects.count(),
            list(Account.objects.order_by("pk").values_list("balance", flat=True)))


def test_welcome_grant_defaults_and_ledger_is_sound(make_user):
    user = make_user()
    assert {b["currency"]: b["amount"] for b in selectors.balances(user=user)} == {"CHP": 1000, "MUT": 100, "KEL": 100}
    assert services.issuance(currency="CHP").balance == -1000
    tx = LedgerTransaction.objects.get(key=f"user:{user.pk}:welcome")
    assert tx.kind == TxKind.WELCOME and tx.entries.count() == 6
    assert ledger_problems() == []


def test_welcome_grant_is_admin_configurable_and_once(make_user):
    conf = WalletSettings.load()
    conf.welcome_chip, conf.welcome_mutiara, conf.welcome_kelereng = 250, 0, 7
    conf.save()
    user = make_user()
    assert [b["amount"] for b in selectors.balances(user=user)] == [250, 0, 7]
    services.grant_welcome(user=user)  # a repeat (e.g. a retried signal) posts nothing new
    assert services.balance_of(user=user, currency="CHP") == 250
    conf.welcome_chip = 999
    conf.save()
    services.grant_welcome(user=user)  # ... even after the amounts changed
    assert services.balance_of(user=user, currency="CHP") == 250


def test_bots_get_the_welcome_grant_too(make_bot):
    bot = make_bot()
    assert services.balance_of(user=bot, currency="KEL") == 100


def test_transfer_moves_and_repeated_key_returns_the_first_posting(make_user):
    a, b = make_user(), make_user()
    src, dst = services.wallet(user=a, currency="KEL"), services.wallet(user=b, currency="KEL")
    first = services.transfer(key="t:1", source=src, target=dst, amount=30)
    again = services.post_transaction(key="t:1", legs=[Leg(dst, 30), Leg(src, -30)])  # same legs, any order
    assert first.pk == again.pk
    # The same key with other legs is a mistake, not a retry: refused, nothing posted (it was silent).
    for legs in ([Leg(src, -99), Leg(dst, 99)], [Leg(dst, -30), Leg(src, 30)]):
        with pytest.raises(WalletError) as exc:
            services.post_transaction(key="t:1", legs=legs)
        assert (exc.value.code, http_status(exc.value)) == ("key_reused", 409)
    assert services.balance_of(user=a, currency="KEL") == 70
    assert services.balance_of(user=b, currency="KEL") == 130
    assert ledger_problems() == []


@pytest.mark.parametrize("amount", [-5, 1.5, "10", True, False, None, 10**16])
def test_bad_amounts_are_refused_and_change_nothing(make_user, amount):
    a, b = make_user(), make_user()
    src, dst = services.wallet(user=a, currency="KEL"), services.wallet(user=b, currency="KEL")
    before = _counts()
    if not (type(amount) is int and amount < 0):  # a negative leg is a debit: only transfers refuse it
        with pytest.raises(WalletError) as err:
            services.post_transaction(key="bad", legs=[Leg(src, amount), Leg(dst, 5)])
        assert err.value.code in {"bad_amount", "unbalanced"}
    with pytest.raises(WalletError) as err:
        services.transfer(key="bad2", source=src, target=dst, amount=amount)
    assert err.value.code == "bad_amount"
    assert _counts() == before


def test_zero_leg_unbalanced_legs_and_empty_legs_are_refused(make_user):
    a, b = make_user(), make_user()
    src, dst = services.wallet(user=a, currency="KEL"), services.wallet(user=b, currency="KEL")
    before = _counts()
    cases = [([Leg(src, 0), Leg(dst, 0)], "bad_amount"), ([Leg(src, -5), Leg(dst, 4)], "unbalanced"),
             ([], "bad_legs"), ([(src, -1), (dst, 1)], "bad_legs")]
    for legs, code in cases:
        with pytest.raises(WalletError) as err:
            services.post_transaction(key="x", legs=legs)
        assert err.value.code == code
    # Two currencies each balancing is fine; crossing currencies is not.
    chp = services.wallet(user=b, currency="CHP")
    with pytest.raises(WalletError) as err:
        services.post_transaction(key="x", legs=[Leg(src, -5), Leg(chp, 5)])
    assert err.value.code == "unbalanced"
    assert _counts() == before


def test_unknown_currency_bad_key_and_bad_rake_are_refused(make_user):
    user = make_user()
    for currency in ("USD", "", None, "chp"):
        with pytest.raises(WalletError) as err:
            services.wallet(user=user, currency=currency)
        assert err.value.code == "bad_currency"
    with pytest.raises(WalletError) as err:
        services.transfer(key="", source=services.wallet(user=user, currency="KEL"),
                          target=services.revenue(currency="KEL"), amount=1)
    assert err.value.code == "bad_key"
    for bps in (-1, 10_001, 5.0, True):
        with pytest.raises(WalletError) as err:
            services.rake_of(pot=100, rake_bps=bps)
        assert err.value.code == "bad_rake"


def test_insufficient_funds_is_refused_and_changes_nothing(make_user):
    a, b = make_user(), make_user()
    before = _counts()
    with pytest.raises(WalletError) as err:
        services.transfer(key="big", source=services.wallet(user=a, currency="MUT"),
                          target=services.wallet(user=b, currency="MUT"), amount=101)
    assert err.value.code == "insufficient_funds"
    assert _counts() == before
    assert not LedgerTransaction.objects.filter(key="big").exists()  # the key is free for a later retry


def test_every_wallet_refusal_is_a_service_error_with_a_4xx_status(make_user):
    # The code decides the status (core.api.http_status): a refused posting is never a 500.
    from core.errors import ServiceError

    a, b = make_user(), make_user()
    with pytest.raises(WalletError) as err:
        services.transfer(key="big", source=services.wallet(user=a, currency="MUT"),
                          target=services.wallet(user=b, currency="MUT"), amount=101)
    assert isinstance(err.value, ServiceError) and (err.value.code, http_status(err.value)) == ("insufficient_funds", 402)
    assert err.value.as_dict() == {"code": "insufficient_funds", "message": err.value.message}
    with pytest.raises(WalletError) as err:
        services.transfer(key="mixed", source=services.wallet(user=a, currency="MUT"),
                          target=services.wallet(user=b, currency="KEL"), amount=1)
    assert (err.value.code, http_status(err.value)) == ("currency_mismatch", 409)
    with pytest.raises(WalletError) as err:
        services.post_transaction(key="x", legs=[])
    assert (err.value.code, http_status(err.value)) == ("bad_legs", 400)
    assert http_status(WalletError("escrow_short", "Short.")) == 409


def test_database_refuses_negative_balances_except_issuance_and_chip_wallets(make_user):
    user = make_user()
    kel = services.wallet(user=user, currency="KEL")
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.filter(pk=kel.pk).update(balance=-1)
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.filter(pk=services.revenue(currency="CHP").pk).update(balance=-1)
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.filter(pk=services.table_escrow(table_id=1, currency="KEL").pk).update(balance=-1)
    chp = services.wallet(user=user, currency="CHP")
    with transaction.atomic():
        Account.objects.filter(pk=chp.pk).update(balance=-1)  # allowed by the constraint (31 hands)
        transaction.set_rollback(True)


def test_chip_may_go_negative_only_when_the_posting_allows_it(make_user):
    user = make_user()
    chp, rev = services.wallet(user=user, currency="CHP"), services.revenue(currency="CHP")
    with pytest.raises(WalletError):
        services.post_transaction(key="neg", legs=[Leg(chp, -1500), Leg(rev, 1500)])
    services.post_transaction(key="neg", legs=[Leg(chp, -1500), Leg(rev, 1500)], allow_negative_chip=True)
    assert services.balance_of(user=user, currency="CHP") == -500


def test_ledger_rows_are_immutable(make_user):
    user = make_user()
    tx = LedgerTransaction.objects.get(key=f"user:{user.pk}:welcome")
    with pytest.raises(TypeError):
        tx.save()
    with pytest.raises(TypeError):
        tx.delete()
    with pytest.raises(TypeError):
        Entry.objects.filter(transaction=tx).update(amount=1)
    with pytest.raises(TypeError):
        LedgerTransaction.objects.all().delete()


@pytest.mark.parametrize(("bps", "rake"), [(0, 0), (1, 0), (19, 1), (20, 2), (500, 50), (10_000, 1000)])
def test_rake_is_floored_basis_points(bps, rake):
    assert services.rake_of(pot=1000, rake_bps=bps) == rake


def test_split_evenly_gives_the_remainder_to_the_smallest_seat():
    assert services.split_evenly(amount=100, seats=[3, 1, 2]) == {1: 34, 2: 33, 3: 33}
    assert services.split_evenly(amount=101, seats=[5, 2, 4]) == {2: 35, 4: 33, 5: 33}
    assert services.split_evenly(amount=2, seats=[0, 1, 2]) == {0: 2, 1: 0, 2: 0}


def test_bot_funding_tops_up_only_the_shortfall(make_bot, make_user):
    bot = make_bot()
    assert services.fund_bot(user=bot, currency="KEL", needed=50, key="f1") is None  # has 100
    services.fund_bot(user=bot, currency="KEL", needed=250, key="f2")
    assert services.balance_of(user=bot, currency="KEL") == 250
    with pytest.raises(WalletError) as err:
        services.fund_bot(user=make_user(), currency="KEL", needed=250, key="f3")
    assert err.value.code == "not_a_bot"


def test_bailout_brings_a_balance_at_or_below_zero_back_to_500(make_user):
    user = make_user()
    chp, rev = services.wallet(user=user, currency="CHP"), services.revenue(currency="CHP")
    services.post_transaction(key="loss", legs=[Leg(chp, -1300), Leg(rev, 1300)], allow_negative_chip=True)
    tx = services.bailout(user=user, key="b1")
    assert tx.kind == TxKind.BAILOUT and tx.entries.get(account=chp).amount == 800
    assert services.balance_of(user=user, currency="CHP") == 500
    assert services.bailout(user=user, key="b2") is None  # 500 > 0: no bailout
    assert selectors.bailout_count(user=user) == 1
    services.post_transaction(key="loss2", legs=[Leg(chp, -500), Leg(rev, 500)])
    services.bailout(user=user, key="b3")  # exactly 0 is bailed out too
    assert services.balance_of(user=user, currency="CHP") == 500 and selectors.bailout_count(user=user) == 2
    assert ledger_problems() == []


def test_ledger_check_command_reports_each_breach(make_user, capsys):
    user = make_user()
    call_command("ledger_check")
    assert "all invariants hold" in capsys.readouterr().out
    kel = services.wallet(user=user, currency="KEL")
    Account.objects.filter(pk=kel.pk).update(balance=90)  # a cache drift (bypassing the services)
    with pytest.raises(CommandError) as exc:  # manage.py turns this into exit status 1
        call_command("ledger_check")
    assert exc.value.returncode == 1
    err = capsys.readouterr().err
    assert "caches 90, its entries sum to 100" in err and "balances in KEL sum to -10" in err


def test_ledger_check_runs_the_escrow_checks_apps_register(make_user, monkeypatch, capsys):
    from wallets import checks

    monkeypatch.setattr(checks, "_app_checks", [])
    checks.register_check(lambda: [])
    assert ledger_problems() == []
    breach = lambda: ["an app's escrow is off"]  # noqa: E731
    checks.register_check(breach)
    checks.register_check(breach)  # once
    assert ledger_problems() == ["an app's escrow is off"]
    with pytest.raises(CommandError):
        call_command("ledger_check")
    assert "an app's escrow is off" in capsys.readouterr().err


def test_ledger_check_finds_an_unbalanced_transaction_and_an_open_escrow(make_user, make_room):
    from rooms import services as rooms

    user = make_user()
    room = make_room("lembar", stake_kind="pot", currency="KEL", stake=10)
    table = rooms.table_open(room=room, host=user)
    rooms.table_sit(table_id=table.pk, user=user)
    from rooms.models import Table

    Table.objects.filter(pk=table.pk).update(status="stopped")  # ended without the money hook
    tx = LedgerTransaction.objects.create(key="forged", kind=TxKind.ADJUSTMENT)
    Entry.objects.create(transaction=tx, account=services.revenue(currency="MUT"), amount=5)
    problems = ledger_problems()
    assert any("forged" in p and "off by 5 MUT" in p for p in problems)
    assert any(f"table {table.pk} has ended but its escrow" in p and "10 KEL" in p for p in problems)
    assert AccountKind.TABLE_ESCROW == "table"
