"""Login throttling (issue 23 #2, #5): per (username, address) and per address, slowing down rather than
locking, cleared by staff, and the admin's login counted the same way."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts import services

pytestmark = pytest.mark.django_db
User = get_user_model()

ATTACKER, OWNER, NEIGHBOUR = "10.0.0.66", "10.0.0.7", "10.0.0.66"


def _login(client, username: str, password: str, address: str):
    return client.post(reverse("accounts:login"), {"username": username, "password": password},
                       REMOTE_ADDR=address)


def _fail(client, username: str, address: str, times: int) -> None:
    for _ in range(times):
        assert _login(client, username, "wrong-guess", address).status_code == 200


@pytest.fixture
def clock(monkeypatch):
    """The throttle's clock, moved by hand."""
    now = [1_000_000.0]
    monkeypatch.setattr(services, "_now", lambda: now[0])
    return now


def test_a_strangers_wrong_guesses_slow_down_only_the_stranger(client, settings):
    settings.LOGIN_THROTTLE_ATTEMPTS = 5
    services.user_create(username="budi", password="correct-horse-9")
    _fail(client, "budi", ATTACKER, 5)
    blocked = _login(client, "budi", "wrong-guess", ATTACKER)
    assert blocked.status_code == 429 and b"login_throttled" in blocked.content
    assert int(blocked["Retry-After"]) > 0
    # The owner, from their own address, logs in at once.
    owner = _login(client.__class__(), "budi", "correct-horse-9", OWNER)
    assert owner.status_code == 302


def test_other_players_behind_the_strangers_address_still_log_in(settings):
    from django.test import Client

    settings.LOGIN_THROTTLE_ATTEMPTS = 5
    services.user_create(username="budi", password="correct-horse-9")
    services.user_create(username="siti", password="batik-kartu-77")
    stranger = Client()
    _fail(stranger, "budi", ATTACKER, 5)
    assert _login(stranger, "budi", "wrong-guess", ATTACKER).status_code == 429
    neighbour = Client()
    assert _login(neighbour, "siti", "batik-kartu-77", NEIGHBOUR).status_code == 302
    assert "_auth_user_id" in neighbour.session


def test_one_address_trying_many_names_meets_the_higher_address_bound(client, settings):
    settings.LOGIN_THROTTLE_ATTEMPTS = 5
    settings.LOGIN_THROTTLE_ADDRESS_ATTEMPTS = 8
    services.user_create(username="mei", password="right-pass-123")
    for i in range(8):
        _fail(client, f"name{i}", ATTACKER, 1)  # never 5 for any one name
    assert _login(client, "mei", "right-pass-123", ATTACKER).status_code == 429
    assert _login(client, "mei", "right-pass-123", OWNER).status_code == 302


def test_past_the_bound_each_attempt_waits_a_doubling_delay_not_the_whole_window(client, settings, clock):
    settings.LOGIN_THROTTLE_ATTEMPTS = 3
    settings.LOGIN_THROTTLE_DELAY_S = 30
    settings.LOGIN_THROTTLE_WINDOW_S = 900
    services.user_create(username="ayse", password="otuz-bir-31!")
    _fail(client, "ayse", OWNER, 3)
    assert _login(client, "ayse", "otuz-bir-31!", OWNER).status_code == 429
    clock[0] += 31
    _fail(client, "ayse", OWNER, 1)  # one more try allowed, and wrong: the next wait doubles
    assert services.login_retry_after(username="ayse", address=OWNER) == 60
    clock[0] += 61
    assert _login(client, "ayse", "otuz-bir-31!", OWNER).status_code == 302
    assert services.login_retry_after(username="ayse", address=OWNER) == 0


def test_staff_clear_a_users_throttle_with_an_admin_action(client, settings):
    settings.LOGIN_THROTTLE_ATTEMPTS = 2
    budi = services.user_create(username="budi", password="correct-horse-9")
    _fail(client, "budi", ATTACKER, 2)
    _fail(client, "budi", OWNER, 2)
    assert services.login_throttled(username="budi", address=OWNER)
    staff = User.objects.create_superuser(username="boss", password="pass-word-123", email="b@x.org")
    admin = client.__class__()
    admin.force_login(staff)
    response = admin.post(reverse("admin:accounts_user_changelist"),
                          {"action": "clear_login_throttle", "_selected_action": [budi.pk]}, follow=True)
    assert response.status_code == 200 and "Login throttling cleared for 1 user." in response.content.decode()
    for address in (ATTACKER, OWNER):  # every address at once
        assert not services.login_throttled(username="budi", address=address)
    assert _login(client, "budi", "correct-horse-9", OWNER).status_code == 302


def test_the_admin_login_is_throttled_like_the_sites(client, settings):
    """Issue 23 #2: 25 wrong passwords at the admin's login, then the right one, logged in."""
    settings.LOGIN_THROTTLE_ATTEMPTS = 5
    User.objects.create_superuser(username="boss", password="pass-word-123", email="b@x.org")
    login_url = "/" + settings.ADMIN_PATH + "login/"
    for _ in range(25):
        client.post(login_url, {"username": "boss", "password": "wrong-guess"}, REMOTE_ADDR=ATTACKER)
    page = client.post(login_url, {"username": "boss", "password": "pass-word-123"}, REMOTE_ADDR=ATTACKER)
    assert "_auth_user_id" not in client.session
    assert "Too many failed attempts" in page.content.decode()
    # The same counters as the site's login: that is throttled for this name and address too ...
    assert _login(client.__class__(), "boss", "pass-word-123", ATTACKER).status_code == 429
    # ... and, as there, not for the staff member at their own address.
    own = client.__class__()
    response = own.post(login_url, {"username": "boss", "password": "pass-word-123", "next": "/" + settings.ADMIN_PATH},
                        REMOTE_ADDR=OWNER)
    assert response.status_code == 302 and "_auth_user_id" in own.session
