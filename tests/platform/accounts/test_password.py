"""Password change and reset (issue 26, Accounts): the old password is required and checked as a login is;
a change ends the user's other sessions and closes their sockets; a reset works end to end with the
console e-mail backend, never tells whether an address has an account, and is throttled."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language

from accounts import services
from rooms import broadcast

pytestmark = pytest.mark.django_db

OLD, NEW = "kartu-batik-77", "otuz-bir-yeni-31"
LINK = re.compile(r"https?://testserver(/accounts/reset/[^/\s]+/[^/\s]+/)")


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def published(monkeypatch) -> list:
    """What the channel layer was asked to send (a socket-closing ``user.logout`` among it)."""
    sent: list = []
    monkeypatch.setattr(broadcast, "publish", lambda messages: sent.extend(messages))
    return sent


def _player(name: str = "siti", email: str = "siti@example.com", language: str = "en"):
    user = services.user_create(username=name, password=OLD, preferred_language=language)
    user.email, user.email_verified_at = email, timezone.now()
    user.save(update_fields=["email", "email_verified_at"])
    return user


def _logged_in(user) -> Client:
    client = Client()
    assert client.post(reverse("accounts:login"), {"username": user.username, "password": OLD}).status_code == 302
    return client


def _change(client: Client, old: str, new: str = NEW, **extra):
    return client.post(reverse("accounts:password_change"),
                       {"old_password": old, "new_password1": new, "new_password2": new}, **extra)


def test_changing_the_password_keeps_this_session_ends_the_others_and_closes_the_sockets(
        published, django_capture_on_commit_callbacks):
    user = _player()
    here, elsewhere = _logged_in(user), _logged_in(user)
    with django_capture_on_commit_callbacks(execute=True):
        response = _change(here, OLD)
    assert response.status_code == 302 and response["Location"] == reverse("accounts:profile")
    user.refresh_from_db()
    assert user.check_password(NEW)
    assert (broadcast.user_group(user.pk), {"type": "user.logout"}) in published
    page = here.get(reverse("accounts:profile"))
    assert page.status_code == 200 and "Your password was changed" in page.content.decode()
    assert elsewhere.get(reverse("accounts:profile")).status_code == 302  # logged out: to the login page
    assert _logged_in_with(user.username, NEW)


def _logged_in_with(username: str, password: str) -> bool:
    return Client().post(reverse("accounts:login"), {"username": username, "password": password}).status_code == 302


def test_a_wrong_old_password_changes_nothing_and_is_counted_as_a_failed_login(settings, published):
    settings.LOGIN_THROTTLE_ATTEMPTS = 3
    user = _player()
    client = _logged_in(user)
    for _ in range(3):
        response = _change(client, "not-my-password")
        assert response.status_code == 200
        assert "Your password is wrong." in response.content.decode()
    user.refresh_from_db()
    assert user.check_password(OLD) and published == []
    throttled = _change(client, OLD)  # even the right one waits now, as a login would
    assert throttled.status_code == 429 and int(throttled["Retry-After"]) > 0
    user.refresh_from_db()
    assert user.check_password(OLD)


def test_the_password_change_page_needs_a_login(client):
    response = client.get(reverse("accounts:password_change"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("accounts:login"))


def test_a_new_password_must_pass_the_validators(client):
    user = _player()
    client = _logged_in(user)
    response = _change(client, OLD, new="12345678")
    assert response.status_code == 200 and "too common" in response.content.decode()
    user.refresh_from_db()
    assert user.check_password(OLD)


def test_reset_end_to_end_with_the_console_backend(settings, capsys, published, django_capture_on_commit_callbacks):
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    user = _player()
    old_session = _logged_in(user)
    client = Client()
    login_page = client.get(reverse("accounts:login")).content.decode()
    assert reverse("accounts:password_reset") in login_page and "Forgot your password?" in login_page

    response = client.post(reverse("accounts:password_reset"), {"email": "SITI@example.com"})
    assert response.status_code == 302 and response["Location"] == reverse("accounts:password_reset_done")
    printed = capsys.readouterr().out
    assert "To: siti@example.com" in printed and "Reset your Cardroom password" in printed
    path = LINK.search(printed).group(1)

    form = client.get(path)  # Django swaps the token for a session key and shows the form
    assert form.status_code == 302
    set_password = form["Location"]
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(set_password, {"new_password1": NEW, "new_password2": NEW})
    assert done.status_code == 302 and done["Location"] == reverse("accounts:password_reset_complete")
    assert "You can log in with it now" in client.get(done["Location"]).content.decode()

    assert _logged_in_with("siti", NEW) and not _logged_in_with("siti", OLD)
    assert old_session.get(reverse("accounts:profile")).status_code == 302  # every session ended
    assert (broadcast.user_group(user.pk), {"type": "user.logout"}) in published
    again = client.get(path, follow=True)  # the link works once
    assert "This link is not valid" in again.content.decode()


def test_a_reset_request_never_tells_whether_the_address_has_an_account(client):
    _player()
    known = client.post(reverse("accounts:password_reset"), {"email": "siti@example.com"}, follow=True)
    unknown = client.post(reverse("accounts:password_reset"), {"email": "nobody@example.com"}, follow=True)
    assert known.status_code == unknown.status_code == 200
    assert known.redirect_chain == unknown.redirect_chain
    assert _without_csrf(known.content) == _without_csrf(unknown.content)
    assert [m.to for m in mail.outbox] == [["siti@example.com"]]


def _without_csrf(content: bytes) -> bytes:
    return re.sub(rb'name="csrfmiddlewaretoken" value="[^"]*"', b"", content)


def test_no_reset_for_unverified_pending_addresses_bots_and_deleted_accounts(client):
    user = services.user_create(username="ali", password=OLD)
    user.pending_email = "ali@example.com"  # asked for, never verified: not the account's address
    user.save(update_fields=["pending_email"])
    bot = services.bot_create(username="rbot", display_name="R", style="random", description="x")
    bot.email = "bot@example.com"
    bot.save(update_fields=["email"])
    for address in ("ali@example.com", "bot@example.com"):
        assert client.post(reverse("accounts:password_reset"), {"email": address}).status_code == 302
    assert mail.outbox == []


def test_reset_requests_are_throttled_per_mailbox_silently_and_per_client_address_openly(client, settings):
    settings.PASSWORD_RESET_ATTEMPTS = 2
    settings.PASSWORD_RESET_ADDRESS_ATTEMPTS = 4
    _player()
    for _ in range(3):  # the third is answered as ever, and sends nothing
        response = client.post(reverse("accounts:password_reset"), {"email": "siti@example.com"})
        assert response.status_code == 302
    assert len(mail.outbox) == 2
    other = client.post(reverse("accounts:password_reset"), {"email": "other@example.com"})
    assert other.status_code == 302  # the 4th from this client address
    blocked = client.post(reverse("accounts:password_reset"), {"email": "other@example.com"})
    assert blocked.status_code == 429 and int(blocked["Retry-After"]) > 0
    assert b"password_reset_throttled" in blocked.content
    elsewhere = Client(REMOTE_ADDR="10.1.2.3").post(reverse("accounts:password_reset"), {"email": "x@example.com"})
    assert elsewhere.status_code == 302


def test_the_reset_mail_is_written_in_the_accounts_language(client, monkeypatch):
    languages: list[str] = []
    send = mail.EmailMessage.send
    monkeypatch.setattr(mail.EmailMessage, "send", lambda self, *a, **k: (languages.append(get_language()),
                                                                          send(self, *a, **k))[1])
    _player(name="kemal", email="kemal@example.com", language="tr")
    client.post(reverse("accounts:password_reset"), {"email": "kemal@example.com"}, HTTP_ACCEPT_LANGUAGE="en")
    (message,) = mail.outbox
    assert languages == ["tr"] and LINK.search(message.body) and "kemal" in message.body


def test_a_reset_lifts_the_login_slow_down_on_the_name(client, settings):
    settings.LOGIN_THROTTLE_ATTEMPTS = 2
    _player()
    for _ in range(2):
        client.post(reverse("accounts:login"), {"username": "siti", "password": "wrong"})
    assert services.login_throttled(username="siti", address="127.0.0.1")
    client.post(reverse("accounts:password_reset"), {"email": "siti@example.com"})
    path = LINK.search(mail.outbox[0].body).group(1)
    set_password = client.get(path)["Location"]
    client.post(set_password, {"new_password1": NEW, "new_password2": NEW})
    assert not services.login_throttled(username="siti", address="127.0.0.1")
    assert _logged_in_with("siti", NEW)
