"""REST balances/history, the profile section, and the read-only ledger admin."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import User
from wallets import services
from wallets.models import Account, LedgerTransaction, WalletSettings

pytestmark = pytest.mark.django_db


def test_api_balances_and_bailouts_need_login(client, make_user):
    assert client.get("/api/wallet/").status_code == 403
    user = make_user()
    client.force_login(user)
    body = client.get("/api/wallet/").json()
    assert body == {"balances": [{"currency": "CHP", "label": "Chip", "amount": 1000},
                                 {"currency": "MUT", "label": "Mutiara", "amount": 100},
                                 {"currency": "KEL", "label": "Kelereng", "amount": 100}],
                    "bailout_count": 0}


def test_api_history_is_the_callers_own_and_paginated(client, make_user):
    a, b = make_user(), make_user()
    for i in range(3):
        services.transfer(key=f"gift:{i}", source=services.wallet(user=a, currency="KEL"),
                          target=services.wallet(user=b, currency="KEL"), amount=i + 1)
    client.force_login(a)
    body = client.get("/api/wallet/history/?page_size=2").json()
    assert body["count"] == 6  # three welcome legs and three gifts
    assert [r["amount"] for r in body["results"]] == [-3, -2]
    assert body["results"][0]["key"] == "gift:2" and body["results"][0]["currency"] == "KEL"
    page2 = client.get(body["next"]).json()
    assert [r["amount"] for r in page2["results"]] == [-1, 100]
    client.force_login(b)
    assert all(r["amount"] > 0 for r in client.get("/api/wallet/history/").json()["results"])


def test_profile_shows_balances_and_bailout_count(client, make_user):
    user = make_user()
    client.force_login(user)
    html = client.get(reverse("accounts:profile")).content.decode()
    assert 'data-currency="CHP">1000<' in html and 'data-testid="bailouts">0<' in html


@pytest.fixture
def staff(client, db):
    admin_user = User.objects.create_superuser(username="boss", password="pass-word-123", email="b@x.org")
    client.force_login(admin_user)
    return admin_user


def test_admin_ledger_is_view_only(client, staff, make_user):
    user = make_user()
    account = services.wallet(user=user, currency="CHP")
    tx = LedgerTransaction.objects.get(key=f"user:{user.pk}:welcome")
    page = client.get(reverse("admin:wallets_account_change", args=[account.pk]))
    assert page.status_code == 200 and f"user:{user.pk}:welcome" in page.content.decode()
    assert client.get(reverse("admin:wallets_ledgertransaction_change", args=[tx.pk])).status_code == 200
    assert client.get(reverse("admin:wallets_account_add")).status_code == 403
    assert client.get(reverse("admin:wallets_account_delete", args=[account.pk])).status_code == 403
    client.post(reverse("admin:wallets_account_change", args=[account.pk]), {"balance": 99999})
    account.refresh_from_db()
    assert account.balance == 1000
    assert client.get(reverse("admin:wallets_ledgertransaction_add")).status_code == 403


def test_admin_edits_wallet_settings(client, staff):
    WalletSettings.load()
    response = client.post(reverse("admin:wallets_walletsettings_change", args=[1]), {
        "welcome_chip": 2000, "welcome_mutiara": 5, "welcome_kelereng": 0, "bailout_to": 500, "bot_float": 0})
    assert response.status_code == 302
    assert WalletSettings.load().welcome_chip == 2000
    assert Account.objects.filter(kind="player").count() == 0  # the superuser got no welcome grant (not a signup)
