"""E-mail address and verification (issue 26, Accounts): a new address waits until the player opens a
signed, expiring link sent there; an address belongs to at most one verified account; the real-value
welcome grant waits for a verified address (WELCOME_REQUIRES_VERIFIED_EMAIL) on top of the first
finished game or the delay."""

from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest
from django.core import mail, signing
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import get_language

from accounts import services
from accounts.errors import AccountError
from accounts.models import User
from rooms import services as rooms
from rooms.models import Room, Table, TableStatus
from wallets import services as wallets
from wallets import table_money
from wallets.checks import ledger_problems

pytestmark = pytest.mark.django_db

PASSWORD = "kartu-batik-77"
LINK = re.compile(r"https?://testserver(/accounts/email/verify/[^/\s]+/)")


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def no_bot_turns(monkeypatch):
    from gameworkers import tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)


@pytest.fixture
def mails(django_capture_on_commit_callbacks):
    """Run the after-commit hooks (the mail is sent after the commit) of whatever the test does in it."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def _player(name: str = "siti", **kw) -> User:
    return services.user_create(username=name, password=PASSWORD, **kw)


def _client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _ask(client: Client, email: str):
    return client.post(reverse("accounts:email"), {"email": email})


def _link(message) -> str:
    return LINK.search(message.body).group(1)


def _balances(user) -> tuple[int, int, int]:
    return tuple(wallets.balance_of(user=user, currency=c) for c in ("CHP", "MUT", "KEL"))


def test_a_new_address_waits_for_its_link_then_becomes_the_verified_one(mails):
    user = _player()
    client = _client(user)
    with mails():
        response = _ask(client, "Siti@Example.COM")
    assert response.status_code == 302
    user.refresh_from_db()
    assert (user.email, user.pending_email, user.email_verified) == ("", "Siti@example.com", False)
    (message,) = mail.outbox
    assert message.to == ["Siti@example.com"] and "siti" in message.body
    page = client.get(reverse("accounts:email")).content.decode()
    assert "We sent a verification link to Siti@example.com" in page and 'data-testid="pending-email"' in page

    link = _link(message)
    opened = Client().get(link)  # from the mail program: no session needed, and a GET changes nothing
    assert opened.status_code == 200 and "Siti@example.com" in opened.content.decode()
    user.refresh_from_db()
    assert not user.email_verified
    confirmed = Client().post(link)
    assert confirmed.status_code == 302 and confirmed["Location"] == reverse("accounts:login")
    user.refresh_from_db()
    assert (user.email, user.pending_email, user.email_verified) == ("Siti@example.com", "", True)
    assert Client().post(link).status_code == 302  # opened twice: harmless
    profile = client.get(reverse("accounts:profile")).content.decode()
    assert 'data-testid="email-verified"' in profile and "Siti@example.com" in profile


def test_changing_a_verified_address_keeps_the_old_one_until_the_new_one_is_verified(mails):
    user = _player()
    user.email, user.email_verified_at = "old@example.com", timezone.now()
    user.save()
    client = _client(user)
    assert _ask(client, "old@example.com").status_code == 400  # email_unchanged
    with mails():
        _ask(client, "new@example.com")
    user.refresh_from_db()
    assert (user.email, user.pending_email, user.email_verified) == ("old@example.com", "new@example.com", True)
    services.email_verify(token=_link(mail.outbox[0]).split("/")[-2])
    user.refresh_from_db()
    assert (user.email, user.pending_email) == ("new@example.com", "")


def test_a_newer_request_or_a_cancel_makes_older_links_stale(mails):
    user = _player()
    client = _client(user)
    with mails():
        _ask(client, "first@example.com")
        _ask(client, "second@example.com")
    first, second = (_link(m) for m in mail.outbox)
    stale = Client().post(first)
    assert stale.status_code == 400 and b'data-code="email_link_stale"' in stale.content
    client.post(reverse("accounts:email"), {"action": "cancel"})
    assert Client().post(second).status_code == 400
    user.refresh_from_db()
    assert (user.email, user.pending_email) == ("", "")


def test_a_tampered_or_expired_link_is_refused(mails, monkeypatch):
    user = _player()
    with mails():
        _ask(_client(user), "siti@example.com")
    token = _link(mail.outbox[0]).split("/")[-2]
    with pytest.raises(AccountError) as bad:
        services.email_verify(token=token[:-2] + ("AA" if not token.endswith("AA") else "BB"))
    assert bad.value.code == "email_link_invalid"
    forged = signing.dumps({"u": user.pk, "e": "siti@example.com"}, salt="another-salt")
    assert Client().get(reverse("accounts:email-verify", args=[forged])).status_code == 400
    signed_long_ago = int(time.time()) - 3 * 24 * 3600 - 5
    monkeypatch.setattr(signing.TimestampSigner, "timestamp", lambda self: signing.b62_encode(signed_long_ago))
    old = services.email_token(user=user, email="siti@example.com")
    monkeypatch.undo()
    with pytest.raises(AccountError) as expired:
        services.email_verify(token=old)
    assert expired.value.code == "email_link_expired"
    expired_page = Client().get(reverse("accounts:email-verify", args=[old]))
    assert expired_page.status_code == 400 and b'data-code="email_link_expired"' in expired_page.content
    user.refresh_from_db()
    assert not user.email_verified


def test_an_address_verified_by_another_account_gets_a_notice_not_a_link(mails, monkeypatch):
    languages: list[str] = []
    send = mail.EmailMessage.send
    monkeypatch.setattr(mail.EmailMessage, "send", lambda self, *a, **k: (languages.append(get_language()),
                                                                          send(self, *a, **k))[1])
    owner = _player("owner", preferred_language="tr")
    owner.email, owner.email_verified_at = "shared@example.com", timezone.now()
    owner.save()
    client = _client(_player("requester9"))
    with mails():
        response = _ask(client, "SHARED@example.com")
    assert response.status_code == 302  # the requester is told the same as for any address
    (notice,) = mail.outbox
    assert notice.to == ["SHARED@example.com"]
    with translation.override("tr"):  # the notice, in its owner's language
        said = translation.gettext("Someone asked to use this e-mail address for a Cardroom account, but another "
                                   "account has already verified it. An address can belong to one account only, "
                                   "so nothing was changed.")
    assert not said.startswith("Someone asked") and said in notice.body and not LINK.search(notice.body)
    assert "requester9" not in notice.body  # nothing about the requester either
    assert "/accounts/password-reset/" in notice.body
    assert languages == ["tr"]  # in the language of the address's owner


def test_of_two_accounts_waiting_for_one_address_only_the_first_to_verify_gets_it(mails):
    first, second = _player("first"), _player("second")
    with mails():
        _ask(_client(first), "both@example.com")
        _ask(_client(second), "BOTH@example.com")
    link_first, link_second = (_link(m) for m in mail.outbox)
    assert Client().post(link_second).status_code == 302
    refused = Client().post(link_first)
    assert refused.status_code == 409 and b'data-code="email_taken"' in refused.content
    first.refresh_from_db()
    assert not first.email_verified and first.pending_email == "both@example.com"


def test_the_database_refuses_one_address_verified_twice():
    first, second = _player("first"), _player("second")
    User.objects.filter(pk=first.pk).update(email="dup@example.com", email_verified_at=timezone.now())
    User.objects.filter(pk=second.pk).update(email="DUP@example.com")  # unverified: allowed
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.filter(pk=second.pk).update(email_verified_at=timezone.now())


def test_verification_mails_are_throttled_per_account(settings, mails):
    settings.EMAIL_VERIFY_ATTEMPTS = 2
    client = _client(_player())
    with mails():
        for i in range(2):
            assert _ask(client, f"a{i}@example.com").status_code == 302
        blocked = _ask(client, "a9@example.com")
    assert blocked.status_code == 429 and int(blocked["Retry-After"]) > 0
    assert "Too many verification e-mails" in blocked.content.decode()
    assert len(mail.outbox) == 2


def test_a_bad_address_is_a_form_error():
    client = _client(_player())
    response = _ask(client, "not-an-address")
    assert response.status_code == 200 and 'class="error"' in response.content.decode()
    with pytest.raises(AccountError) as exc:
        services.email_change_request(user=_player("x"), email="nope@", site_url="http://testserver")
    assert exc.value.code == "bad_email"


# ----- the real-value welcome grant waits for a verified address ---------------------------------

@pytest.fixture
def verified_required(settings):
    settings.WELCOME_REQUIRES_VERIFIED_EMAIL = True


def _verify(user: User, mails) -> None:
    with mails():
        services.email_change_request(user=user, email=f"{user.username}@example.com", site_url="http://testserver")
    services.email_verify(token=_link(mail.outbox[-1]).split("/")[-2])
    user.refresh_from_db()


def _finish_a_free_game(players: list[User]) -> None:
    room = Room.objects.create(name="Free", slug=f"free-{players[0].pk}", game="lembar", seats=2, min_seats=2,
                               turn_seconds=20)
    table = rooms.table_open(room=room, host=players[0], seat_count=2)
    for user in players:
        rooms.table_sit(table_id=table.pk, user=user)
    with transaction.atomic():  # finished as rooms.services.ending._finish_locked does
        locked = Table.objects.select_for_update().select_related("room").get(pk=table.pk)
        locked.status = TableStatus.FINISHED
        locked.save()
        table_money.on_finish(table=locked, result={"ranks": [1, 2], "winners": [0]})


def test_without_a_verified_address_no_real_value_welcome_even_with_no_delay(verified_required, mails):
    user, other = _player(), _player("other")  # the suite's delay is 0: due at once but for the e-mail
    assert _balances(user) == (1000, 0, 0)
    _finish_a_free_game([user, other])
    wallets.release_welcome_if_due(user=user)
    assert _balances(user) == (1000, 0, 0)
    page = _client(user).get(reverse("accounts:profile")).content.decode()
    assert 'data-state="needs-email"' in page and "once your e-mail address is verified" in page
    _verify(user, mails)
    assert _balances(user) == (1000, 100, 100)  # released by the verification
    assert 'data-state="granted"' in _client(user).get(reverse("accounts:profile")).content.decode()
    assert ledger_problems() == []


def test_a_game_finished_before_the_verification_counts(verified_required, settings, mails):
    settings.WELCOME_REAL_VALUE_DELAY_H = 24
    user, other = _player(), _player("other")
    _finish_a_free_game([user, other])
    assert _balances(user) == (1000, 0, 0)
    _verify(user, mails)
    assert _balances(user) == (1000, 100, 100)


def test_a_verified_newcomer_still_waits_for_a_game_or_the_delay(verified_required, settings, mails):
    settings.WELCOME_REAL_VALUE_DELAY_H = 24
    user, other = _player(), _player("other")
    _verify(user, mails)
    assert _balances(user) == (1000, 0, 0)
    page = _client(user).get(reverse("accounts:profile")).content.decode()
    assert 'data-state="needs-play"' in page
    _finish_a_free_game([user, other])
    assert _balances(user) == (1000, 100, 100)
    assert _balances(other) == (1000, 0, 0)  # played, not verified
    User.objects.filter(pk=other.pk).update(date_joined=timezone.now() - timedelta(hours=25))
    other.refresh_from_db()
    _verify(other, mails)  # the delay is over too
    assert _balances(other) == (1000, 100, 100)
    assert ledger_problems() == []


def test_bots_never_need_an_address(verified_required):
    bot = services.bot_create(username="vbot", display_name="V", style="random", description="x")
    assert _balances(bot) == (1000, 100, 100)
