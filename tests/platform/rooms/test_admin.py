"""The room admin: the default rake, what players see beside each money field, what locks once play started."""

from __future__ import annotations

from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse
from django.utils import timezone

from rooms import services
from rooms.admin import bps_percent, players_see
from rooms.models import Room, StopReason

pytestmark = pytest.mark.django_db


class _Form(HTMLParser):
    """The values a browser would submit from an admin form (inputs, checked boxes, selects, textareas)."""

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, str] = {}
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "button"):
            if a.get("type") != "checkbox" or "checked" in a:
                self.data[name] = "on" if a.get("type") == "checkbox" else a.get("value") or ""
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select and "selected" in a:
            self.data[self._select] = a.get("value") or ""
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


def form_of(client, url) -> dict[str, str]:
    parser = _Form()
    parser.feed(client.get(url).content.decode())
    return parser.data


@pytest.fixture
def staff(client, django_user_model):
    user = django_user_model.objects.create_superuser(username="room-admin", password="pass-word-123")
    client.force_login(user)
    return user


def change_url(room: Room) -> str:
    return reverse("admin:rooms_room_change", args=[room.pk])


def pot_room(**kw) -> Room:
    fields = {"name": "Pot", "slug": "pot", "game": "lembar", "seats": 4, "min_seats": 2, "stake_kind": "pot",
              "currency": "MUT", "stake": 10, **kw}
    return Room.objects.create(**fields)


# ----- the default rake ---------------------------------------------------------------------------

def test_a_new_pot_room_takes_the_default_rake_and_others_none():
    assert pot_room().rake_bps == 500
    assert Room.objects.create(name="31", slug="a", game="otuzbir", seats=7, stake_kind="ante", currency="CHP",
                               stake=1).rake_bps == 0  # 31: economy.md "default 0"
    assert Room.objects.create(name="Free", slug="f", game="lembar", seats=4).rake_bps == 0
    assert pot_room(slug="typed", rake_bps=0).rake_bps == 0  # the operator's 0 stands
    room = pot_room(slug="kept", rake_bps=250)
    room.stake = 20
    room.save()
    assert Room.objects.get(pk=room.pk).rake_bps == 250


def test_the_admin_add_form_gives_a_pot_room_the_default_rake_unless_typed(client, staff):
    url = reverse("admin:rooms_room_add")
    assert "Shown once the room is saved." in client.get(url).content.decode()
    base = {"name": "New pot", "game": "lembar", "seats": "4", "min_seats": "2", "options": "{}",
            "turn_seconds": "20", "stake_kind": "pot", "currency": "KEL", "stake": "25", "fill_delay_seconds": "30", "time_bank_seconds": "30",
            "position": "0", "is_open": "on"}
    assert client.post(url, {**base, "slug": "new-pot", "rake_bps": ""}).status_code == 302
    assert client.post(url, {**base, "slug": "new-free-rake", "rake_bps": "0"}).status_code == 302
    assert Room.objects.get(slug="new-pot").rake_bps == 500
    assert Room.objects.get(slug="new-free-rake").rake_bps == 0


@pytest.mark.django_db(transaction=True)
def test_the_migration_leaves_existing_rooms_rake_as_it_was():
    def migrate(targets):
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(targets)
        executor.loader.build_graph()
        return executor.loader.project_state(targets).apps

    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        apps = migrate([("rooms", "0008_table_state_lz4")])
        Old = apps.get_model("rooms", "Room")
        Old.objects.create(name="Old pot", slug="old-pot", game="lembar", seats=4, min_seats=2, stake_kind="pot",
                           currency="KEL", stake=10, options={})  # the old default: 0
        apps = migrate([("rooms", "0009_room_rake_default")])
        assert apps.get_model("rooms", "Room").objects.get(slug="old-pot").rake_bps == 0
    finally:
        migrate(latest)


# ----- what players see ---------------------------------------------------------------------------

def test_players_see_the_stake_the_rules_around_it_and_the_rake():
    assert players_see(pot_room()) == "Entry 10 Mutiara · prize paid in Kelereng · rake 5 %"
    ante = Room.objects.create(name="Kahvehane", slug="k", game="otuzbir", seats=7, stake_kind="ante",
                               currency="CHP", stake=1, rake_bps=500)
    assert players_see(ante) == "Ante 1 Chip · pot-limit raises · rake 5 %"
    cherki = Room.objects.create(name="C", slug="c", game="cherki", seats=3, min_seats=3, stake_kind="per_point",
                                 currency="CHP", stake=2)
    assert players_see(cherki) == "2 Chip per point · sitting needs 200 Chip"
    assert [bps_percent(b) for b in (0, 1, 250, 500, 510, 10_000)] == ["0", "0.01", "2.5", "5", "5.1", "100"]


def test_the_change_form_shows_what_players_see_beside_each_money_field(client, staff):
    page = client.get(change_url(pot_room(rake_bps=250))).content.decode()
    assert "Entry 10 Mutiara · prize paid in Kelereng · rake 2.5 %" in page
    assert "entries in Mutiara; the prize is paid in Kelereng, 1 per Mutiara" in page
    assert "rake 2.5 % of the pot, at the finish" in page
    assert "they lock while the room has an open or running table" in page
    assert page.count("Players see:") == 5  # the summary, then one beside each of the four money fields


# ----- what locks ---------------------------------------------------------------------------------

MONEY = ("stake_kind", "currency", "stake", "rake_bps")


def test_money_fields_lock_while_a_table_is_open_and_a_stale_form_changes_nothing(client, staff, django_user_model):
    room = pot_room()
    url = change_url(room)
    stale = form_of(client, url)
    assert all(field in stale for field in (*MONEY, "game"))  # no table yet: everything editable
    host = django_user_model.objects.create_user(username="host", password="pass-word-123")
    table = services.table_open(room=room, host=host)
    now = form_of(client, url)
    assert not [f for f in (*MONEY, "game") if f in now] and "name" in now and "turn_seconds" in now
    assert "Stake, currency and rake are locked" in client.get(url).content.decode()
    stale.update({"stake": "500", "rake_bps": "0", "currency": "KEL", "game": "baloot", "name": "Renamed"})
    assert client.post(url, stale).status_code == 302
    stored = Room.objects.get(pk=room.pk)
    assert (stored.name, stored.stake, stored.rake_bps, stored.currency, stored.game) == (
        "Renamed", 10, 500, "MUT", "lembar")
    # Once its tables ended, the money is editable again; the game never is (proofs read it).
    services.table_stop(table_id=table.pk, reason=StopReason.STAFF, by=staff)
    again = form_of(client, url)
    assert all(field in again for field in MONEY) and "game" not in again
    again.update({"stake": "20", "rake_bps": "300"})
    assert client.post(url, again).status_code == 302
    assert Room.objects.filter(pk=room.pk, stake=20, rake_bps=300).exists()


def test_an_unfinished_tournament_locks_its_rooms_money(client, staff):
    from tournaments import services as tournaments

    room = Room.objects.create(name="31 cups", slug="cups", game="otuzbir", seats=7, min_seats=2)
    url = change_url(room)
    assert "stake_kind" in form_of(client, url)
    cup = tournaments.tournament_create(name="Cup", room=room, starts_at=timezone.now() + timedelta(hours=1))
    assert "stake_kind" not in form_of(client, url)  # a pot stake would charge every tournament hand
    tournaments.cancel(tournament_id=cup.pk)
    assert "stake_kind" in form_of(client, url)
