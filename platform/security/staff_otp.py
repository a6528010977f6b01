"""TOTP two-factor for staff (issue 23 #2), on django-otp's TOTP devices.

- **Enrolment** (``views.enrol``, ``/<ADMIN_PATH>two-factor/``): a staff member gets one unconfirmed
  device, whose secret the page shows (QR code and text), and confirms it with a code from the app.
- **The admin** then asks for a code after the password (``views.verify``: a verified-login step;
  ``admin_site.StaffAdminSite.has_permission`` refuses a session no code has verified). Staff without a
  device still use the admin, with a banner recommending enrolment, unless ``STAFF_REQUIRE_TOTP`` is on
  (then the admin sends them to enrolment first).
- **A lost device** is deleted by another staff member in the admin (django-otp's device admin); its
  owner then logs in with the password alone and enrols again.

Guessing codes is slowed down twice over. A wrong code counts as a failed login in the site's login
throttle (``accounts.services``: per (username, address) and per address; a throttled attempt is refused
before the code is looked at). And django-otp's own throttle on the device makes each attempt after a
wrong code wait 1, 2, 4, 8 ... s, from any address, until a right code: a right *password* resets the
(username, address) count, so the device's throttle is the one a password holder cannot reset.
"""

from __future__ import annotations

import base64
import io
import math
from enum import StrEnum

import qrcode
import qrcode.image.svg
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts import services as accounts_services
from core.errors import ServiceError

DEVICE_NAME = "Authenticator app"


class SecondFactorError(ServiceError):
    def __init__(self, code: str, message: str, *, retry_after: int = 0) -> None:
        super().__init__(code, message)
        self.retry_after = retry_after  # seconds, for a throttle's Retry-After


class AdminAccess(StrEnum):
    """Where a signed-in staff member stands with the second factor."""

    VERIFIED = "verified"  # a code from a confirmed device verified this session
    CODE_NEEDED = "code_needed"  # a confirmed device, but no code yet in this session
    ENROLMENT_NEEDED = "enrolment_needed"  # no device, and STAFF_REQUIRE_TOTP is on
    NOT_ENROLLED = "not_enrolled"  # no device; the admin is open, with a banner recommending one


# ----- selectors ------------------------------------------------------------------

def totp_confirmed_device(*, user) -> TOTPDevice | None:
    return TOTPDevice.objects.devices_for_user(user, confirmed=True).order_by("pk").first()


def admin_access(*, user) -> AdminAccess:
    """The user's second-factor standing (``user.is_verified`` comes from django-otp's OTPMiddleware;
    without it nobody counts as verified, so a device then always asks for a code)."""
    is_verified = getattr(user, "is_verified", None)
    if is_verified is not None and is_verified():
        return AdminAccess.VERIFIED
    if totp_confirmed_device(user=user) is not None:
        return AdminAccess.CODE_NEEDED
    if settings.STAFF_REQUIRE_TOTP:
        return AdminAccess.ENROLMENT_NEEDED
    return AdminAccess.NOT_ENROLLED


def admin_allows(*, access: AdminAccess) -> bool:
    return access in (AdminAccess.VERIFIED, AdminAccess.NOT_ENROLLED)


def superusers_without_totp() -> list[str]:
    """Usernames of active superusers with no confirmed TOTP device (``check --deploy``: cardroom.W004)."""
    confirmed = TOTPDevice.objects.filter(confirmed=True).values("user_id")
    return list(get_user_model().objects.filter(is_superuser=True, is_active=True)
                .exclude(pk__in=confirmed).order_by("username").values_list("username", flat=True))


def totp_secret_text(*, device: TOTPDevice) -> str:
    """The secret as an authenticator app takes it typed in: base32, in groups of four."""
    secret = base64.b32encode(device.bin_key).decode().rstrip("=")
    return " ".join(secret[i:i + 4] for i in range(0, len(secret), 4))


def totp_qr_data_url(*, device: TOTPDevice) -> str:
    """The device's otpauth:// URL as an SVG QR code in a data: URL (the CSP allows data: images, and
    the secret never travels in a URL of its own). One path on white: a quarter of the size of
    django-otp's ``write_qrcode_image`` (a rectangle per module)."""
    out = io.BytesIO()
    qrcode.make(device.config_url, image_factory=qrcode.image.svg.SvgPathFillImage).save(out)
    return "data:image/svg+xml;base64," + base64.b64encode(out.getvalue()).decode()


# ----- services -------------------------------------------------------------------

def _device_wait(device: TOTPDevice) -> int:
    """Seconds django-otp's throttle still holds this device (0: it may verify now)."""
    allowed, info = device.verify_is_allowed()
    if allowed:
        return 0
    locked_until = (info or {}).get("locked_until")
    if locked_until is None:
        return 1
    return max(1, math.ceil((locked_until - timezone.now()).total_seconds()))


def _device_throttled(wait: int) -> SecondFactorError:
    return SecondFactorError("otp_throttled", _("Too many wrong codes. Please wait a little and try again."), retry_after=wait)


def totp_enrolment_start(*, user) -> TOTPDevice:
    """The user's unconfirmed device, made on the first call: the same secret until it is confirmed."""
    if totp_confirmed_device(user=user) is not None:
        raise SecondFactorError("otp_already_enrolled", _("Two-factor authentication is already on."))
    device = TOTPDevice.objects.filter(user=user, confirmed=False).order_by("pk").first()
    if device is None:
        device = TOTPDevice.objects.create(user=user, name=DEVICE_NAME, confirmed=False)
    return device


def totp_enrolment_confirm(*, user, token: str) -> TOTPDevice:
    """Confirm the unconfirmed device with a code from the app; the user's other unconfirmed ones go."""
    wait = 0
    with transaction.atomic():
        if TOTPDevice.objects.devices_for_user(user, confirmed=True).exists():
            raise SecondFactorError("otp_already_enrolled", _("Two-factor authentication is already on."))
        device = (TOTPDevice.objects.select_for_update().filter(user=user, confirmed=False)
                  .order_by("pk").first())
        if device is None:
            raise SecondFactorError("otp_no_enrolment", _("Start again: there is no enrolment to confirm."))
        wait = _device_wait(device)
        verified = not wait and device.verify_token(token)
        if verified:
            device.confirmed = True
            device.save(update_fields=["confirmed"])
            TOTPDevice.objects.filter(user=user, confirmed=False).delete()
    # Refusals are raised here, after the block: the device's failure count must be committed.
    if wait:
        raise _device_throttled(wait)
    if not verified:
        raise SecondFactorError("otp_invalid", _("That code is not right. Check the app and the phone's clock."))
    return device


def totp_verify(*, user, token: str, address: str) -> TOTPDevice:
    """The admin's second step: a code from the user's confirmed device. A throttled (username, address)
    or address is refused before the code is checked (``login_throttled``, 429), as at the password
    step; a wrong code counts as a failed login there, and on the device."""
    username = user.get_username()
    retry_after = accounts_services.login_retry_after(username=username, address=address)
    if retry_after:
        raise SecondFactorError("login_throttled", _("Too many failed attempts. Please wait a few minutes and try again."), retry_after=retry_after)
    with transaction.atomic():
        device = (TOTPDevice.objects.select_for_update().filter(user=user, confirmed=True)
                  .order_by("pk").first())
        if device is None:
            raise SecondFactorError("otp_not_enrolled", _("Two-factor authentication is not on for this account."))
        wait = _device_wait(device)
        verified = not wait and device.verify_token(token)
    if wait:
        raise _device_throttled(wait)
    if not verified:
        accounts_services.login_failed(username=username, address=address)
        raise SecondFactorError("otp_invalid", _("That code is not right. Check the app and the phone's clock."))
    accounts_services.login_succeeded(username=username, address=address)
    return device
