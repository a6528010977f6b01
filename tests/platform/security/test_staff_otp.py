"""Staff TOTP two-factor (issue 23 #2): enrolment, the admin's code step, its throttles, STAFF_REQUIRE_TOTP,
removing a lost device, and the deploy check (cardroom.W004)."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import Client
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts import services as accounts_services
from security import checks, staff_otp

pytestmark = pytest.mark.django_db
User = get_user_model()
PASSWORD = "pass-word-123"
HOME, AWAY = "10.0.0.7", "10.0.0.66"


@pytest.fixture
def admin_url(settings) -> str:
    return "/" + settings.ADMIN_PATH


@pytest.fixture
def boss():
    return User.objects.create_superuser(username="boss", password=PASSWORD, email="boss@example.org")


def _code(device: TOTPDevice, steps_ahead: int = 0) -> str:
    """The code the staff member's app shows (``steps_ahead`` 30 s steps from now)."""
    device.refresh_from_db()
    return f"{totp(device.bin_key, device.step, device.t0, device.digits, steps_ahead):0{device.digits}d}"


def _wrong(device: TOTPDevice) -> str:
    right = {_code(device, step) for step in (-1, 0, 1, 2)}
    return next(code for code in ("000000", "111111", "222222", "333333", "444444") if code not in right)


def _enrolled(user) -> TOTPDevice:
    """A confirmed device, enrolled as the page does it (the code of the current step is then used up)."""
    device = staff_otp.totp_enrolment_start(user=user)
    return staff_otp.totp_enrolment_confirm(user=user, token=_code(device))


def _password_login(admin_url: str, address: str = HOME) -> Client:
    """A client past the admin's password step only."""
    client = Client(REMOTE_ADDR=address)
    response = client.post(admin_url + "login/", {"username": "boss", "password": PASSWORD, "next": admin_url})
    assert response.status_code == 302 and "_auth_user_id" in client.session
    return client


def _verify(client: Client, admin_url: str, code: str):
    return client.post(admin_url + "two-factor/verify/", {"code": code, "next": admin_url})


def test_enrolment_shows_the_secret_and_turns_on_with_a_code_from_it(client, boss, admin_url):
    client.force_login(boss)
    page = client.get(admin_url + "two-factor/")
    assert page.status_code == 200
    device = TOTPDevice.objects.get(user=boss)
    assert not device.confirmed
    html = page.content.decode()
    assert 'src="data:image/svg+xml;base64,' in html
    assert staff_otp.totp_secret_text(device=device) in html  # the key, to type in by hand
    assert client.get(admin_url + "two-factor/").status_code == 200
    assert TOTPDevice.objects.filter(user=boss).count() == 1  # a reload shows the same secret

    wrong = client.post(admin_url + "two-factor/", {"code": _wrong(device)})
    assert wrong.status_code == 200 and 'data-code="otp_invalid"' in wrong.content.decode()
    device.refresh_from_db()
    assert not device.confirmed
    TOTPDevice.objects.filter(pk=device.pk).update(throttling_failure_timestamp=None)  # past the device's wait

    done = client.post(admin_url + "two-factor/", {"code": _code(device, 1), "next": admin_url})
    assert done.status_code == 302 and done["Location"] == admin_url
    device.refresh_from_db()
    assert device.confirmed
    index = client.get(admin_url)  # this session gave the code: the admin is open, without the banner
    assert index.status_code == 200 and "two_factor_recommended" not in index.content.decode()
    assert "Two-factor authentication is on" in client.get(admin_url + "two-factor/").content.decode()


def test_once_enrolled_the_admin_refuses_the_password_alone_and_a_wrong_code(boss, admin_url):
    device = _enrolled(boss)
    client = _password_login(admin_url)
    step = client.get(admin_url, follow=True)  # index -> login -> the code step
    assert step.redirect_chain[-1][0].startswith(admin_url + "two-factor/verify/")
    assert 'name="code"' in step.content.decode()
    for page in (admin_url, admin_url + "accounts/user/", admin_url + "otp_totp/totpdevice/"):
        assert client.get(page).status_code == 302
    # Nor can the password alone enrol another device (or see the secret of one).
    assert client.get(admin_url + "two-factor/")["Location"].startswith(admin_url + "two-factor/verify/")

    wrong = _verify(client, admin_url, _wrong(device))
    assert wrong.status_code == 200 and 'data-code="otp_invalid"' in wrong.content.decode()
    assert client.get(admin_url).status_code == 302
    malformed = _verify(client, admin_url, "12ab56")  # not a code, so not a guess either
    assert malformed.status_code == 200 and "6-digit code" in malformed.content.decode()

    TOTPDevice.objects.filter(pk=device.pk).update(throttling_failure_timestamp=None)  # past the device's wait
    session_before = client.session.session_key
    right = _verify(client, admin_url, _code(device, 1))
    assert right.status_code == 302 and right["Location"] == admin_url
    assert client.session.session_key != session_before  # a new session key with the new privilege
    assert client.get(admin_url).status_code == 200
    assert client.get(admin_url + "accounts/user/").status_code == 200


def test_wrong_codes_count_as_failed_logins_in_the_login_throttle(boss, admin_url, settings):
    settings.LOGIN_THROTTLE_ATTEMPTS = 3
    settings.OTP_TOTP_THROTTLE_FACTOR = 0  # the device's own throttle off: this is the login throttle's test
    device = _enrolled(boss)
    client = _password_login(admin_url)
    for _ in range(3):
        assert _verify(client, admin_url, _wrong(device)).status_code == 200
    refused = _verify(client, admin_url, _code(device, 1))  # even the right code waits now
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert 'data-code="login_throttled"' in refused.content.decode()
    assert client.get(admin_url).status_code == 302
    # The same counters as the password step's (and the site's login) ...
    assert accounts_services.login_throttled(username="boss", address=HOME)
    # ... and, as there, per (username, address): the staff member at another address is not slowed.
    elsewhere = _password_login(admin_url, address=AWAY)
    assert _verify(elsewhere, admin_url, _code(device, 1)).status_code == 302
    assert elsewhere.get(admin_url).status_code == 200


def test_the_devices_own_throttle_holds_whatever_the_address(boss, admin_url, settings):
    """A right password resets the (username, address) count; the device's doubling wait it cannot."""
    settings.OTP_TOTP_THROTTLE_FACTOR = 60  # waits of 60, 120 ... s instead of 1, 2 ...: no race with the clock
    device = _enrolled(boss)
    client = _password_login(admin_url)
    assert _verify(client, admin_url, _wrong(device)).status_code == 200
    other = _password_login(admin_url, address=AWAY)
    refused = _verify(other, admin_url, _code(device, 1))
    assert refused.status_code == 429 and 'data-code="otp_throttled"' in refused.content.decode()
    assert 1 < int(refused["Retry-After"]) <= 60
    TOTPDevice.objects.filter(pk=device.pk).update(
        throttling_failure_timestamp=datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC))  # the wait is over
    assert _verify(other, admin_url, _code(device, 1)).status_code == 302


def test_staff_without_a_device_get_a_banner_or_with_STAFF_REQUIRE_TOTP_are_sent_to_enrol(boss, admin_url, settings):
    settings.STAFF_REQUIRE_TOTP = False
    client = _password_login(admin_url)
    index = client.get(admin_url)
    assert index.status_code == 200 and 'data-code="two_factor_recommended"' in index.content.decode()
    assert admin_url + "two-factor/" in index.content.decode()

    settings.STAFF_REQUIRE_TOTP = True
    assert client.get(admin_url + "accounts/user/").status_code == 302
    page = client.get(admin_url, follow=True)
    assert page.redirect_chain[-1][0].startswith(admin_url + "two-factor/")
    assert "requires two-factor authentication" in page.content.decode()
    device = TOTPDevice.objects.get(user=boss)
    done = client.post(admin_url + "two-factor/", {"code": _code(device), "next": admin_url})
    assert done.status_code == 302 and client.get(admin_url).status_code == 200


def test_the_two_factor_pages_are_for_staff_only(admin_url):
    player = User.objects.create_user(username="budi", password=PASSWORD)
    client = Client()
    client.force_login(player)
    for page in ("two-factor/", "two-factor/verify/"):
        response = client.get(admin_url + page)
        assert response.status_code == 302 and response["Location"].startswith(admin_url + "login/")
    assert not TOTPDevice.objects.exists()


def test_a_staff_member_removes_a_lost_device_of_another(boss, admin_url):
    budi = User.objects.create_superuser(username="budi", password=PASSWORD, email="budi@example.org")
    lost = _enrolled(budi)
    boss_client = Client()
    boss_client.force_login(boss)
    changelist = admin_url + "otp_totp/totpdevice/"
    assert boss_client.get(changelist + "add/").status_code == 403  # only the owner enrols, on their page
    view = boss_client.get(f"{changelist}{lost.pk}/change/")
    assert view.status_code == 200 and lost.key not in view.content.decode()  # the secret stays hidden
    response = boss_client.post(f"{changelist}{lost.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302 and not TOTPDevice.objects.filter(pk=lost.pk).exists()
    # Budi logs in with the password alone again (and is asked to enrol anew).
    budi_client = Client()
    budi_client.post(admin_url + "login/", {"username": "budi", "password": PASSWORD, "next": admin_url})
    index = budi_client.get(admin_url)
    assert index.status_code == 200 and 'data-code="two_factor_recommended"' in index.content.decode()


def test_check_deploy_warns_about_superusers_without_a_confirmed_device(boss):
    User.objects.create_superuser(username="gone", password=PASSWORD, email="g@example.org", is_active=False)
    User.objects.create_user(username="budi", password=PASSWORD, is_staff=True)  # staff, not superuser
    found = checks.check_superuser_totp()
    assert [w.id for w in found] == ["cardroom.W004"] and "boss" in found[0].msg
    assert "gone" not in found[0].msg and "budi" not in found[0].msg
    with pytest.raises(SystemCheckError, match=r"cardroom\.W004"):  # the real command, as an operator runs it
        call_command("check", deploy=True, fail_level="WARNING")
    staff_otp.totp_enrolment_start(user=boss)  # started, not confirmed: still a warning
    assert [w.id for w in checks.check_superuser_totp()] == ["cardroom.W004"]
    _enrolled(boss)
    assert checks.check_superuser_totp() == []


def test_the_totp_check_is_a_deploy_check_only():
    from django.core.checks import registry

    assert checks.check_superuser_totp in registry.registry.get_checks(include_deployment_checks=True)
    assert checks.check_superuser_totp not in registry.registry.get_checks(include_deployment_checks=False)
