"""The tournament admin: money fields turn read-only once anyone registered (issue 23)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.urls import reverse

from tournaments import services
from tournaments.models import MONEY_FIELDS, Tournament

pytestmark = pytest.mark.usefixtures("quiet")


class _Form(HTMLParser):
    """The values a browser would submit from the admin change form."""

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, str] = {}
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "button"):
            if a.get("type") == "checkbox":
                if "checked" in a:
                    self.data[name] = "on"
            else:
                self.data[name] = a.get("value") or ""
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select and "selected" in a:
            self.data[self._select] = a.get("value") or ""
        elif tag == "textarea" and name:
            self._textarea = name
            self.data[name] = ""

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._textarea:
            self.data[self._textarea] += data


def _form(client, url) -> dict[str, str]:
    parser = _Form()
    parser.feed(client.get(url).content.decode())
    return parser.data


@pytest.fixture
def staff(client, django_user_model):
    user = django_user_model.objects.create_superuser(username="t-admin", password="pass-word-123")
    client.force_login(user)
    return user


def test_admin_shows_fee_currency_and_rake_read_only_once_anyone_registered(client, staff, make_tournament,
                                                                            make_user):
    t = make_tournament()
    url = reverse("admin:tournaments_tournament_change", args=[t.pk])
    stale = _form(client, url)
    assert all(field in stale for field in MONEY_FIELDS)  # nobody registered yet: editable
    services.register(tournament_id=t.pk, user=make_user())
    page = _form(client, url)
    assert not [field for field in MONEY_FIELDS if field in page] and "name" in page
    assert '<div class="readonly">20</div>' in client.get(url).content.decode()  # shown, not editable
    # A form opened before the registration and saved after it cannot change what is owed.
    stale.update({"entry_fee": "50", "rake_bps": "900", "currency": "KEL", "name": "Renamed"})
    response = client.post(url, stale)
    assert response.status_code == 302
    stored = Tournament.objects.get(pk=t.pk)
    assert (stored.name, stored.entry_fee, stored.rake_bps, stored.currency) == ("Renamed", 20, 0, "CHP")


def test_admin_still_edits_the_fee_before_anyone_registered(client, staff, make_tournament):
    t = make_tournament()
    url = reverse("admin:tournaments_tournament_change", args=[t.pk])
    data = _form(client, url)
    data["entry_fee"] = "35"
    assert client.post(url, data).status_code == 302
    assert Tournament.objects.get(pk=t.pk).entry_fee == 35
