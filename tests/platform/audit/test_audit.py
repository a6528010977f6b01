"""The audit log: every admin create, change, delete and action on money, rooms and accounts, with what changed."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.urls import reverse

from audit import services
from audit.models import AuditRecord
from audit.snapshots import HIDDEN, diff, snapshot
from rooms import services as rooms
from rooms.models import Room
from wallets.models import WalletSettings

pytestmark = pytest.mark.django_db


class _Form(HTMLParser):
    """The values a browser would submit from an admin form (inputs, checked boxes, selects, textareas)."""

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, object] = {}
        self._select: str | None = None
        self._textarea: str | None = None

    def _add(self, name: str, value: str) -> None:
        old = self.data.get(name)
        self.data[name] = value if old is None else [*([old] if isinstance(old, str) else old), value]

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "button"):
            if a.get("type") != "checkbox" or "checked" in a:
                self._add(name, "on" if a.get("type") == "checkbox" else a.get("value") or "")
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select and "selected" in a:
            self._add(self._select, a.get("value") or "")
        elif tag == "textarea" and name:
            self._textarea, self.data[name] = name, ""

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._textarea:
            self.data[self._textarea] += data


def form_of(client, url) -> dict[str, object]:
    parser = _Form()
    parser.feed(client.get(url).content.decode())
    return parser.data


@pytest.fixture
def boss(client, django_user_model):
    user = django_user_model.objects.create_superuser(username="boss", password="pass-word-123")
    client.force_login(user)
    return user


def room(**kw) -> Room:
    fields = {"name": "Pot", "slug": "pot", "game": "lembar", "seats": 4, "min_seats": 2, "stake_kind": "pot",
              "currency": "KEL", "stake": 10, "rake_bps": 500, **kw}
    return Room.objects.create(**fields)


def records(**kw) -> list[AuditRecord]:
    return list(AuditRecord.objects.filter(**kw).order_by("pk"))


# ----- rooms ---------------------------------------------------------------------------------------

def test_creating_changing_and_deleting_a_room_records_who_and_each_field(client, boss):
    add = reverse("admin:rooms_room_add")
    data = {"name": "Salon", "slug": "salon", "game": "lembar", "seats": "4", "min_seats": "2", "options": "{}",
            "turn_seconds": "20", "stake_kind": "pot", "currency": "KEL", "stake": "25", "rake_bps": "",
            "fill_delay_seconds": "30", "time_bank_seconds": "30", "position": "0", "is_open": "on"}
    assert client.post(add, data).status_code == 302
    salon = Room.objects.get(slug="salon")
    [created] = records(action="create")
    assert (created.actor, created.actor_name, created.model, created.object_id) == (
        boss, "boss", "rooms.room", str(salon.pk))
    assert created.changes["stake"] == [None, 25] and created.changes["rake_bps"] == [None, 500]

    url = reverse("admin:rooms_room_change", args=[salon.pk])
    edit = form_of(client, url)
    edit.update({"stake": "40", "rake_bps": "300", "name": "Salon"})
    assert client.post(url, edit).status_code == 302
    [changed] = records(action="change")
    assert changed.changes == {"stake": [25, 40], "rake_bps": [500, 300]}
    assert client.post(url, form_of(client, url)).status_code == 302  # saved unchanged: nothing to record
    assert len(records(action="change")) == 1

    assert client.post(reverse("admin:rooms_room_delete", args=[salon.pk]), {"post": "yes"}).status_code == 302
    [deleted] = records(action="delete")
    assert deleted.object_id == str(salon.pk) and deleted.changes["name"] == ["Salon", None]


def test_an_admin_action_records_each_object_and_what_it_changed(client, boss):
    a, b = room(slug="a"), room(slug="b", name="Other")
    response = client.post(reverse("admin:rooms_room_changelist"),
                           {"action": "close_rooms", "_selected_action": [a.pk, b.pk]})
    assert response.status_code == 302
    done = records(action="action")
    assert [(r.object_id, r.action_name, r.changes) for r in done] == [
        (str(a.pk), "close_rooms", {"is_open": [True, False]}), (str(b.pk), "close_rooms", {"is_open": [True, False]})]
    assert done[0].note.startswith("Close the selected rooms")


def test_a_staff_stop_of_a_table_is_recorded_without_its_seed_or_state(client, boss, django_user_model):
    host = django_user_model.objects.create_user(username="host", password="pass-word-123")
    table = rooms.table_open(room=room(stake_kind="casual", currency="", stake=0), host=host)
    client.post(reverse("admin:rooms_table_changelist"), {"action": "stop_tables", "_selected_action": [table.pk]})
    [stop] = records(action="action", model="rooms.table")
    assert stop.changes["status"] == ["open", "stopped"] and stop.changes["stop_reason"] == ["", "staff"]
    assert not {"seed_hex", "state"} & set(stop.changes)


# ----- money and accounts --------------------------------------------------------------------------

def test_wallet_settings_changes_are_recorded(client, boss):
    WalletSettings.load()
    url = reverse("admin:wallets_walletsettings_change", args=[1])
    data = form_of(client, url)
    data["bailout_to"] = "300"
    assert client.post(url, data).status_code == 302
    [changed] = records(model="wallets.walletsettings")
    assert changed.changes == {"bailout_to": [500, 300]} and changed.actor == boss


def test_user_privileges_passwords_and_throttle_clearing_are_recorded(client, boss, django_user_model):
    clerk = django_user_model.objects.create_user(username="clerk", password="pass-word-123")
    url = reverse("admin:accounts_user_change", args=[clerk.pk])
    data = form_of(client, url)
    data.update({"is_staff": "on"})
    assert client.post(url, data).status_code == 302
    [staffed] = records(model="accounts.user", action="change")
    assert staffed.changes == {"is_staff": [False, True]}

    password = reverse("admin:auth_user_password_change", args=[clerk.pk])
    response = client.post(password, {"password1": "An0ther-pass-word", "password2": "An0ther-pass-word",
                                       "usable_password": "true"})
    assert response.status_code == 302
    changed = records(model="accounts.user", action="change")[-1]
    assert changed.changes == {"password": [HIDDEN, HIDDEN]}
    assert "pbkdf2" not in str(changed.changes) and "argon2" not in str(changed.changes)

    client.post(reverse("admin:accounts_user_changelist"),
                {"action": "clear_login_throttle", "_selected_action": [clerk.pk]})
    [cleared] = records(action="action", action_name="clear_login_throttle")
    assert (cleared.object_id, cleared.changes) == (str(clerk.pk), {})  # nothing stored changed; still on record


# ----- the log itself ------------------------------------------------------------------------------

def test_nobody_edits_or_deletes_the_log_not_even_a_superuser(client, boss):
    record = services.record(actor=boss, action="change", obj=room(), changes={"stake": [1, 2]})
    assert client.get(reverse("admin:audit_auditrecord_changelist")).status_code == 200
    view = client.get(reverse("admin:audit_auditrecord_change", args=[record.pk]))
    assert view.status_code == 200 and "stake" in view.content.decode() and 'name="_save"' not in view.content.decode()
    assert client.get(reverse("admin:audit_auditrecord_add")).status_code == 403
    assert client.post(reverse("admin:audit_auditrecord_delete", args=[record.pk]), {"post": "yes"}).status_code == 403
    assert AuditRecord.objects.filter(pk=record.pk).exists()
    record.note = "forged"
    with pytest.raises(TypeError):
        record.save()
    with pytest.raises(TypeError):
        record.delete()
    with pytest.raises(TypeError):
        AuditRecord.objects.filter(pk=record.pk).update(note="forged")
    with pytest.raises(TypeError):
        AuditRecord.objects.all().delete()


def test_an_unknown_action_is_refused_with_a_code(boss):
    from audit.errors import AuditError

    with pytest.raises(AuditError) as exc:
        services.record(actor=boss, action="rewrite", obj=room())
    assert exc.value.code == "bad_audit_action" and not AuditRecord.objects.exists()


def test_snapshots_hide_secrets_and_diff_only_what_changed(django_user_model):
    user = django_user_model.objects.create_user(username="s", password="first-pass-word")
    before = snapshot(user)
    assert "first-pass-word" not in str(before) and user.password not in str(before)
    user.set_password("second-pass-word")
    user.first_name = "Ada"
    assert diff(before, snapshot(user)) == {"password": [HIDDEN, HIDDEN], "first_name": ["", "Ada"]}
    assert diff(before, before) == {}
