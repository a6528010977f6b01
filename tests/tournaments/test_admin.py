"""The tournament admin: money fields turn read-only once anyone registered (issue 23)."""

from __future__ import annotations

from datetime import timedelta
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


def test_the_form_shows_what_players_see_and_what_locks(client, staff, make_tournament, make_user):
    t = make_tournament(entry_fee=30, rake_bps=1000)
    url = reverse("admin:tournaments_tournament_change", args=[t.pk])
    page = client.get(url).content.decode()
    assert "Entry 30 Chip, back in full if they unregister before the start" in page
    assert "rake 10 % of the fees, off the prize pool" in page
    assert "from 1 entrant: 1st 100 %; from 4 entrants: 1st 70 %, 2nd 30 %" in page  # the default structure
    assert "can change until the first registration" in page
    services.register(tournament_id=t.pk, user=make_user())
    assert "Entry fee, currency, rake and payout structure are locked" in client.get(url).content.decode()


def test_changes_and_actions_are_in_the_audit_log(client, staff, make_tournament):
    from audit.models import AuditRecord

    t = make_tournament()
    url = reverse("admin:tournaments_tournament_change", args=[t.pk])
    data = _form(client, url)
    data["entry_fee"] = "35"
    assert client.post(url, data).status_code == 302
    response = client.post(reverse("admin:tournaments_tournament_changelist"),
                           {"action": "cancel", "_selected_action": [t.pk]})
    assert response.status_code == 302
    change, cancel = AuditRecord.objects.filter(model="tournaments.tournament").order_by("pk")
    assert (change.action, change.changes, change.actor) == ("change", {"entry_fee": [20, 35]}, staff)
    assert (cancel.action, cancel.action_name, cancel.changes["status"]) == ("action", "cancel",
                                                                             ["registering", "cancelled"])


# ----- issue 24: payout structures, recurrence and formats from the admin --------------------------------

def _rows(rows: list[tuple[str, str]]) -> dict[str, str]:
    data = {"rows-TOTAL_FORMS": str(len(rows)), "rows-INITIAL_FORMS": "0", "rows-MIN_NUM_FORMS": "0",
            "rows-MAX_NUM_FORMS": "1000"}
    for i, (n, percents) in enumerate(rows):
        data[f"rows-{i}-from_entrants"] = n
        data[f"rows-{i}-percents"] = percents
    return data


def test_payout_structures_are_edited_in_the_admin_and_checked(client, staff):
    from tournaments.models import PayoutStructure

    url = reverse("admin:tournaments_payoutstructure_add")
    refused = client.post(url, {"name": "Deep", **_rows([("4", "50, 30, 20"), ("8", "40,30,20,10")])})
    assert refused.status_code == 200 and "Add a row from 1 or 2 entrants" in refused.content.decode()
    refused = client.post(url, {"name": "Deep", **_rows([("1", "100"), ("4", "50, 30, 25")])})
    assert "add up to 105 %, not 100 %" in refused.content.decode()
    assert not PayoutStructure.objects.filter(name="Deep").exists()
    saved = client.post(url, {"name": "Deep", **_rows([("1", "100"), ("4", "50,30,20"), ("8", "40, 25.50, 20, 14.5")])})
    assert saved.status_code == 302
    deep = PayoutStructure.objects.get(name="Deep")
    assert [row.percents for row in deep.rows.all()] == ["100", "50, 30, 20", "40, 25.5, 20, 14.5"]  # normalised


def test_tournaments_are_scheduled_from_the_admin_recurring_and_with_formats(client, staff, make_tournament):
    t = make_tournament()
    url = reverse("admin:tournaments_tournament_change", args=[t.pk])
    data = _form(client, url)
    assert data["repeat"] == ""  # once
    data.update({"repeat": "hourly", "late_registration_level": "3", "max_entries": "2", "levels_by": "minutes",
                 "level_minutes": "8"})
    assert client.post(url, data).status_code == 302
    t.refresh_from_db()
    assert (t.repeat_every, t.late_registration_level, t.max_entries, t.levels_by, t.level_minutes) == (
        timedelta(hours=1), 3, 2, "minutes", 8)
    assert _form(client, url)["repeat"] == "hourly"
    data = _form(client, url)
    data.update({"repeat": "other", "repeat_every": "12:00:00", "max_entries": "2", "late_registration_level": ""})
    page = client.post(url, data).content.decode()
    assert "Re-entry is open while late registration is" in page  # refused, with the reason
    data["late_registration_level"] = "3"
    assert client.post(url, data).status_code == 302
    assert Tournament.objects.get(pk=t.pk).repeat_every == timedelta(hours=12)
    # a sit & go needs no start time, but its maximum
    add = _form(client, reverse("admin:tournaments_tournament_add"))
    add.update({"name": "S&G", "room": str(t.room_id), "sit_and_go": "on", "max_entrants": "6",
                "starts_at_0": "", "starts_at_1": ""})
    assert client.post(reverse("admin:tournaments_tournament_add"), add).status_code == 302
    sng = Tournament.objects.get(name="S&G")
    assert sng.sit_and_go and sng.starts_at is not None and sng.status == "announced"
