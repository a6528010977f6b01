"""REST, pages and the websocket snapshot of a tournament."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tournaments import selectors, services
from tournaments.models import EntryStatus

pytestmark = pytest.mark.usefixtures("quiet")


def test_rest_register_and_unregister_with_codes(client, make_tournament, make_user):
    t = make_tournament()
    user = make_user()
    url = f"/api/tournaments/{t.pk}/register/"
    assert client.post(url, {}, content_type="application/json").status_code in (401, 403)
    client.force_login(user)
    response = client.post(url, {}, content_type="application/json")
    assert response.status_code == 201 and response.json()["status"] == EntryStatus.REGISTERED
    again = client.post(url, {}, content_type="application/json")
    assert again.status_code == 409 and again.json()["code"] == "already_registered"
    bad = client.post(url, {"partner": "nobody-here"}, content_type="application/json")
    assert bad.status_code == 409 and bad.json()["code"] == "no_such_partner"
    missing = client.post("/api/tournaments/999999/register/", {}, content_type="application/json")
    assert missing.status_code == 404 and missing.json()["code"] == "no_such_tournament"
    listing = client.get("/api/tournaments/").json()
    assert [row["id"] for row in listing] == [t.pk]
    detail = client.get(f"/api/tournaments/{t.pk}/").json()
    assert detail["status"] == "registering" and detail["standings"][0]["status"] == "registered"
    out = client.post(f"/api/tournaments/{t.pk}/unregister/")
    assert out.status_code == 200 and out.json()["status"] == EntryStatus.UNREGISTERED
    assert client.post(f"/api/tournaments/{t.pk}/unregister/").json()["code"] == "not_registered"


def test_rest_wallet_errors_on_register_and_unregister_are_4xx_with_a_code(client, make_tournament, make_user):
    # Issue 23: an unregister whose refund the ledger refused answered HTTP 500 and left the player
    # registered. Now every wallet refusal is {code, message} with a 4xx status (wallets.errors).
    from wallets.checks import ledger_problems
    from wallets.models import Currency
    from wallets.services import Leg, balance_of, post_transaction, revenue, tournament_escrow

    client.raise_request_exception = False  # see the status a browser would get
    t = make_tournament()
    user = make_user()
    client.force_login(user)
    assert client.post(f"/api/tournaments/{t.pk}/register/", {}, content_type="application/json").status_code == 201
    before = balance_of(user=user, currency=Currency.CHIP)
    # The escrow no longer holds the entry (drained outside the tournament's own postings).
    escrow = tournament_escrow(tournament_id=t.pk, currency=Currency.CHIP)
    post_transaction(key="test:drain", legs=[Leg(escrow, -20), Leg(revenue(currency=Currency.CHIP), 20)])
    out = client.post(f"/api/tournaments/{t.pk}/unregister/")
    assert out.status_code == 409 and set(out.json()) == {"code", "message"}
    assert out.json()["code"] == "escrow_short"
    assert t.entries.get(user=user).status == EntryStatus.REGISTERED  # nothing moved, nothing half-done
    assert balance_of(user=user, currency=Currency.CHIP) == before
    assert ledger_problems()  # and ledger_check says why (tests/tournaments/test_checks.py)
    poor = make_tournament(entry_fee=10**6)
    refused = client.post(f"/api/tournaments/{poor.pk}/register/", {}, content_type="application/json")
    assert refused.status_code == 402 and refused.json()["code"] == "insufficient_funds"


def test_pages_show_level_next_ante_and_bracket(client, make_tournament, make_bots):
    t = make_tournament(min_entrants=9, fill_with_bots=True)
    make_bots(9)
    services.start(tournament_id=t.pk)
    assert client.get(reverse("tournaments:list")).status_code == 200
    page = client.get(reverse("tournaments:detail", args=[t.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Next ante" in text and t.name in text
    level = selectors.level_of(tournament=t)
    assert level == {"by": "hands", "hand": 0, "level": 1, "ante": 1, "next_ante": 2, "hands_to_next": 5}
    snapshot = selectors.live_snapshot(tournament_id=t.pk)
    assert len(snapshot["tables"]) == 2 and sum(tb["players"] for tb in snapshot["tables"]) == 9
    assert client.get(reverse("tournaments:bracket", args=[t.pk])).status_code == 200
    assert client.get(reverse("tournaments:detail", args=[999999])).status_code == 404


def test_page_register_form(client, make_tournament, make_user):
    t = make_tournament()
    user = make_user()
    client.force_login(user)
    client.post(reverse("tournaments:register", args=[t.pk]))
    assert t.entries.get(user=user).status == EntryStatus.REGISTERED
    client.post(reverse("tournaments:unregister", args=[t.pk]))
    assert t.entries.get(user=user).status == EntryStatus.UNREGISTERED
