"""Account deletion (issue 26, Accounts): confirmed with the password; the account is anonymised, not
removed, so the ledger stays whole; refused while the player holds a seat at an open or running table or
an entry in a tournament that is not over; a quick-play queue place is given up."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import services
from accounts.errors import AccountError
from accounts.models import User
from core.api import http_status
from matchmaking import services as matchmaking
from matchmaking.models import EntryStatus as QueueStatus
from rooms import broadcast
from rooms import services as rooms
from rooms.models import Room, Table
from tournaments import services as tournaments
from wallets import services as wallets
from wallets.checks import ledger_problems
from wallets.models import Entry

pytestmark = pytest.mark.django_db

PASSWORD = "kartu-batik-77"


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def no_bot_turns(monkeypatch):
    from gameworkers import tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)


@pytest.fixture
def published(monkeypatch) -> list:
    sent: list = []
    monkeypatch.setattr(broadcast, "publish", lambda messages: sent.extend(messages))
    return sent


def _player(name: str = "siti") -> User:
    user = services.user_create(username=name, password=PASSWORD, display_name="Siti N.")
    User.objects.filter(pk=user.pk).update(email=f"{name}@example.com", email_verified_at=timezone.now(),
                                           first_name="Siti", last_name="Nur", signup_address="10.0.0.5")
    user.refresh_from_db()
    return user


def _logged_in(user: User) -> Client:
    client = Client()
    assert client.post(reverse("accounts:login"), {"username": user.username, "password": PASSWORD}).status_code == 302
    return client


def _delete(client: Client, password: str = PASSWORD, confirm: bool = True):
    return client.post(reverse("accounts:delete"), {"password": password, **({"confirm": "on"} if confirm else {})})


def _pot_room(slug: str = "pot") -> Room:
    room = Room(name="Pot room", slug=slug, game="lembar", seats=2, min_seats=2, turn_seconds=600,
                stake_kind="pot", currency="KEL", stake=10)
    room.full_clean()
    room.save()
    return room


def test_deleting_anonymises_the_account_and_keeps_the_ledger(published, django_capture_on_commit_callbacks):
    user = _player()
    other_session, client = _logged_in(user), _logged_in(user)
    balances = {c: wallets.balance_of(user=user, currency=c) for c in ("CHP", "MUT", "KEL")}
    entries = Entry.objects.filter(account__user=user).count()
    assert entries > 0
    with django_capture_on_commit_callbacks(execute=True):
        response = _delete(client)
    assert response.status_code == 302 and response["Location"] == reverse("accounts:login")
    assert "Your account was deleted." in client.get(response["Location"]).content.decode()

    user.refresh_from_db()
    assert user.username == f"deleted-{user.pk}" and user.display_name == "Deleted player"
    assert (user.email, user.first_name, user.last_name, user.pending_email) == ("", "", "", "")
    assert user.signup_address is None and user.email_verified_at is None and user.deleted_at is not None
    assert not user.is_active and not user.has_usable_password()
    assert (broadcast.user_group(user.pk), {"type": "user.logout"}) in published  # its sockets close
    assert client.get(reverse("accounts:profile")).status_code == 302
    assert other_session.get(reverse("accounts:profile")).status_code == 302
    assert Client().post(reverse("accounts:login"), {"username": "siti", "password": PASSWORD}).status_code == 200

    assert Entry.objects.filter(account__user=user).count() == entries  # nothing of the ledger goes
    assert {c: wallets.balance_of(user=user, currency=c) for c in balances} == balances
    assert ledger_problems() == []
    assert services.user_create(username="siti", password=PASSWORD).pk != user.pk  # the name is free again


def test_a_wrong_password_or_no_confirmation_deletes_nothing(settings):
    settings.LOGIN_THROTTLE_ATTEMPTS = 2
    user = _player()
    client = _logged_in(user)
    assert _delete(client, confirm=False).status_code == 200
    wrong = _delete(client, password="not-mine")
    assert wrong.status_code == 400 and "Your password is wrong." in wrong.content.decode()
    assert _delete(client, password="not-mine-either").status_code == 400
    throttled = _delete(client)  # counted as failed logins: even the right one waits now
    assert throttled.status_code == 429 and int(throttled["Retry-After"]) > 0
    user.refresh_from_db()
    assert user.is_active and user.username == "siti"


def test_refused_while_seated_at_an_open_or_running_table():
    user, other = _player(), _player("other")
    table = rooms.table_open(room=_pot_room(), host=other)
    rooms.table_sit(table_id=table.pk, user=user)
    client = _logged_in(user)
    page = client.get(reverse("accounts:delete")).content.decode()
    assert 'data-testid="deletion-blockers"' in page and reverse("frontend:table", args=[table.pk]) in page
    assert "your entry comes back" in page
    refused = _delete(client)
    assert refused.status_code == 409 and 'data-code="account_busy"' in refused.content.decode()

    rooms.table_sit(table_id=table.pk, user=other)  # full: it starts
    assert Table.objects.get(pk=table.pk).status == "running"
    with pytest.raises(AccountError) as exc:
        services.user_delete(user=user, password=PASSWORD, address="127.0.0.1")
    assert (exc.value.code, http_status(exc.value)) == ("account_busy", 409)
    assert "forfeits" in client.get(reverse("accounts:delete")).content.decode()
    user.refresh_from_db()
    assert user.is_active


def test_allowed_once_the_player_stood_up(django_capture_on_commit_callbacks):
    user, other = _player(), _player("other")
    table = rooms.table_open(room=_pot_room(), host=other)
    rooms.table_sit(table_id=table.pk, user=user)
    rooms.table_stand(table_id=table.pk, user=user)  # the entry came back
    with django_capture_on_commit_callbacks(execute=True):
        services.user_delete(user=user, password=PASSWORD, address="127.0.0.1")
    user.refresh_from_db()
    assert not user.is_active and wallets.balance_of(user=user, currency="KEL") == 100
    assert ledger_problems() == []


def test_refused_while_registered_in_a_tournament_not_over():
    user = _player()
    room = Room.objects.create(name="31", slug="t31", game="otuzbir", seats=7, min_seats=2, turn_seconds=20)
    tournament = tournaments.tournament_create(name="Freezeout", room=room,
                                               starts_at=timezone.now() + timedelta(hours=1))
    tournaments.register(tournament_id=tournament.pk, user=user)
    client = _logged_in(user)
    page = client.get(reverse("accounts:delete")).content.decode()
    assert "Freezeout" in page and "your entry fee comes back" in page
    assert _delete(client).status_code == 409
    tournaments.unregister(tournament_id=tournament.pk, user=user)
    assert _delete(client).status_code == 302


def test_a_quick_play_queue_place_is_given_up():
    user = _player()
    room = Room.objects.create(name="Quick", slug="quick", game="lembar", seats=2, min_seats=2, turn_seconds=20)
    entry = matchmaking.queue_join(room=room, user=user)
    services.user_delete(user=user, password=PASSWORD, address="127.0.0.1")
    entry.refresh_from_db()
    assert entry.status == QueueStatus.LEFT


def test_sign_up_refuses_the_names_deleted_accounts_take(client):
    response = client.post(reverse("accounts:signup"), {
        "username": "Deleted-7", "preferred_language": "en", "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 200 and "reserved" in response.content.decode()
    assert not User.objects.filter(username__iexact="deleted-7").exists()


def test_the_profile_links_password_e_mail_and_deletion():
    client = _logged_in(_player())
    page = client.get(reverse("accounts:profile")).content.decode()
    for name in ("accounts:password_change", "accounts:email", "accounts:delete"):
        assert f'href="{reverse(name)}"' in page
