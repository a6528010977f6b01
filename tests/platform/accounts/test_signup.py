"""Sign-up (issue 23 #7): one name taken by concurrent sign-ups is a form error, never a server error;
sign-ups are throttled per address; the address is stored and the admin lists accounts made from it."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.urls import reverse

from accounts import services
from accounts.errors import AccountError
from core.api import http_status

User = get_user_model()
TAKEN = "A user with that username already exists."


def _signup(client: Client, username: str, address: str):
    return client.post(reverse("accounts:signup"), {
        "username": username, "preferred_language": "en",
        "password1": "kartu-batik-77", "password2": "kartu-batik-77",
    }, REMOTE_ADDR=address)


@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_signups_with_one_name_make_one_account_and_nineteen_form_errors():
    if connection.vendor != "postgresql":
        pytest.skip("a race on the unique index needs concurrent writers: PostgreSQL")
    count = 20
    barrier = threading.Barrier(count)
    statuses: list[int] = []
    bodies: list[str] = []
    lock = threading.Lock()

    def sign_up(i: int) -> None:
        try:
            client = Client(raise_request_exception=False)
            client.get(reverse("accounts:signup"))
            barrier.wait(timeout=30)
            response = _signup(client, "same-name", f"10.20.0.{i + 1}")  # own addresses: the throttle stays out
            with lock:
                statuses.append(response.status_code)
                bodies.append(response.content.decode())
        finally:
            connection.close()

    threads = [threading.Thread(target=sign_up, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(statuses) == [200] * 19 + [302], statuses
    assert all(TAKEN in body for body, status in zip(bodies, statuses, strict=True) if status == 200)
    assert User.objects.filter(username="same-name").count() == 1


@pytest.mark.django_db
def test_a_name_taken_between_the_forms_check_and_the_insert_is_a_coded_error():
    services.user_create(username="once", password="pass-word-123")
    with pytest.raises(AccountError) as taken:
        services.user_create(username="once", password="pass-word-123")
    assert (taken.value.code, http_status(taken.value)) == ("username_taken", 409)
    assert User.objects.filter(username="once").count() == 1


@pytest.mark.django_db
def test_signups_are_throttled_per_address(settings):
    settings.SIGNUP_THROTTLE_ATTEMPTS = 2
    client = Client()
    mismatched = client.post(reverse("accounts:signup"), {
        "username": "nope", "preferred_language": "en", "password1": "kartu-batik-77", "password2": "other-88"},
        REMOTE_ADDR="10.1.1.1")
    assert mismatched.status_code == 200  # a form error uses up nothing
    assert _signup(Client(), "first", "10.1.1.1").status_code == 302
    assert _signup(Client(), "first", "10.1.1.1").status_code == 200  # name taken: nothing used up either
    assert _signup(Client(), "second", "10.1.1.1").status_code == 302
    refused = _signup(Client(), "third", "10.1.1.1")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert b'data-code="signup_throttled"' in refused.content
    assert not User.objects.filter(username="third").exists()
    assert _signup(Client(), "third", "10.1.1.2").status_code == 302  # another address


@pytest.mark.django_db
def test_the_signup_address_is_stored_and_the_admin_lists_the_accounts_made_from_it(client):
    for name, address in (("puppet1", "10.2.2.2"), ("puppet2", "10.2.2.2"), ("elsewhere", "10.3.3.3")):
        assert _signup(Client(), name, address).status_code == 302
    assert User.objects.get(username="puppet1").signup_address == "10.2.2.2"
    staff = User.objects.create_superuser(username="boss", password="pass-word-123", email="b@x.org")
    client.force_login(staff)
    changelist = reverse("admin:accounts_user_changelist")
    page = client.get(changelist).content.decode()
    assert f'<a href="{changelist}?signup_address=10.2.2.2">2</a>' in page
    same = client.get(changelist, {"signup_address": "10.2.2.2"}).content.decode()
    assert "puppet1" in same and "puppet2" in same and "elsewhere" not in same
