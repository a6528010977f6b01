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
    assert level == {"hand": 0, "ante": 1, "next_ante": 2, "hands_to_next": 5}
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
