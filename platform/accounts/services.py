"""Account services: sign-up, bot accounts, profile, e-mail verification, password checks and reset
throttling, account deletion, login and sign-up throttling (docs/accounts.md)."""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import math
import time

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from accounts import conf, selectors, signals
from accounts.errors import AccountError
from accounts.models import DELETED_DISPLAY_NAME, DELETED_USERNAME_PREFIX, User
from core.cache import cache
from core.transactions import after_commit

log = logging.getLogger(__name__)


def user_create(*, username: str, password: str, display_name: str = "", preferred_language: str = "en",
                signup_address: str | None = None) -> User:
    """Create a player account; the economy hooks its welcome grant onto ``user_created``.

    A name taken meanwhile (a concurrent sign-up won the unique index) raises ``AccountError``
    ``username_taken`` (409), never the database's error.
    """
    try:
        with transaction.atomic():
            user = User.objects.create_user(
                username=username, password=password, display_name=display_name or username,
                preferred_language=preferred_language, signup_address=_ip_or_none(signup_address),
            )
            from accounts.signals import user_created

            user_created.send(sender=User, user=user)
    except IntegrityError:
        if not User.objects.filter(username=username).exists():
            raise
        raise AccountError("username_taken", str(User._meta.get_field("username").error_messages["unique"])) from None
    return user


def _ip_or_none(address: str | None) -> str | None:
    try:
        return str(ipaddress.ip_address(address)) if address else None
    except ValueError:
        return None


def user_signup(*, username: str, password: str, address: str, display_name: str = "",
                preferred_language: str = "en") -> User:
    """A sign-up from a client address: at most ``SIGNUP_THROTTLE_ATTEMPTS`` accounts per address within
    ``SIGNUP_THROTTLE_WINDOW_S`` (``signup_throttled``, 429), then ``user_create``. The address is
    stored on the account (the admin lists the accounts made from one address)."""
    key = f"signup:addr:{_digest(address)}"
    window = conf.get("SIGNUP_THROTTLE_WINDOW_S")
    # Counted before the account is made (atomically, in the shared cache), so a burst of concurrent
    # sign-ups cannot all pass the check; given back when no account came of it.
    if _count(key, window) > conf.get("SIGNUP_THROTTLE_ATTEMPTS"):
        _uncount(key)
        raise AccountError("signup_throttled", "Too many accounts were created from this address; try again later.", retry_after=window)
    try:
        return user_create(username=username, password=password, display_name=display_name,
                           preferred_language=preferred_language, signup_address=address)
    except BaseException:
        _uncount(key)
        raise


def bot_create(*, username: str, display_name: str, style: str, description: str) -> User:
    """A bot account: cannot log in (unusable password), public style and description."""
    with transaction.atomic():
        bot, created = User.objects.get_or_create(
            username=username,
            # Unusable from the start (make_password(None)): a second save to set it looked like a password
            # change, which closes the user's sockets through the Redis a management command may not have.
            defaults={"display_name": display_name, "is_bot": True, "bot_style": style,
                      "bot_description": description, "password": make_password(None)},
        )
        if created:
            from accounts.signals import user_created

            user_created.send(sender=User, user=bot)
    return bot


def user_set_language(*, user: User, language: str) -> None:
    if language not in dict(settings.LANGUAGES):
        raise ValueError(f"unsupported language {language!r}")
    if user.preferred_language != language:
        user.preferred_language = language
        user.save(update_fields=["preferred_language"])


def user_update_profile(*, user: User, display_name: str, preferred_language: str) -> User:
    user.display_name = display_name.strip()[:40] or user.username
    user_set_language(user=user, language=preferred_language)
    user.save(update_fields=["display_name"])
    return user



# ----- passwords -------------------------------------------------------------------

def password_check(*, user: User, password: str, address: str) -> None:
    """The account's own password, asked again before a change a stolen session must not make (a new
    password, deleting the account). Counted as a login is (the same counters and slow-down, so a
    session cannot be used to guess the password): ``login_throttled`` (429) while the name must wait at
    this address, ``wrong_password`` (400) for a wrong one."""
    retry_after = login_retry_after(username=user.username, address=address)
    if retry_after:
        raise AccountError("login_throttled", "Too many failed attempts; wait and try again.",
                           retry_after=retry_after)
    if not user.check_password(password or ""):
        login_failed(username=user.username, address=address)
        raise AccountError("wrong_password", "The password is wrong.")


def password_reset_allowed(*, email: str, address: str) -> bool:
    """Count a password-reset request. Past ``PASSWORD_RESET_ADDRESS_ATTEMPTS`` from one client address
    within the window: ``password_reset_throttled`` (429). Past ``PASSWORD_RESET_ATTEMPTS`` for one
    e-mail address: False, and the caller sends nothing while answering exactly as ever (whether the
    address has an account is never told, and a mailbox cannot be flooded). Counted whether or not an
    account has the address."""
    window = conf.get("PASSWORD_RESET_WINDOW_S")
    place = f"reset:addr:{_digest(address)}"
    if _count(place, window) > conf.get("PASSWORD_RESET_ADDRESS_ATTEMPTS"):
        _uncount(place)
        raise AccountError("password_reset_throttled", "Too many password reset requests; try again later.", retry_after=window)
    mailbox = f"reset:email:{_digest(email.strip().lower())}"
    return _count(mailbox, window) <= conf.get("PASSWORD_RESET_ATTEMPTS")


# ----- e-mail address and its verification ---------------------------------------------
# The profile asks for an address; it waits in ``pending_email`` (``email`` keeps the old, verified
# one) until the player opens the signed, expiring link sent there. The link names the account and the
# address, so a newer request or a verification makes older links stale. An address already verified
# by another account gets a notice instead of a link: the requester learns nothing about other accounts.

EMAIL_TOKEN_SALT = "accounts.email-verify"


def email_token(*, user: User, email: str) -> str:
    return signing.dumps({"u": user.pk, "e": email}, salt=EMAIL_TOKEN_SALT)


def _normalise_email(email: str) -> str:
    email = User.objects.normalize_email((email or "").strip())
    try:
        validate_email(email)
    except ValidationError:
        raise AccountError("bad_email", "Enter a valid e-mail address.") from None
    return email


def _verified_elsewhere(email: str, user: User) -> bool:
    return (User.objects.filter(email__iexact=email, email_verified_at__isnull=False)
            .exclude(pk=user.pk).exists())


def email_change_request(*, user: User, email: str, site_url: str) -> str:
    """Ask to use ``email`` (``site_url``: scheme and host the link starts with, e.g. ``https://cards.example``).
    Stores it as pending and, after the commit, mails the verification link in the player's language.
    Refuses ``bad_email`` (400), ``email_unchanged`` (400: already the verified address) and
    ``email_throttled`` (429: ``EMAIL_VERIFY_ATTEMPTS`` per account within ``EMAIL_VERIFY_WINDOW_S``).
    Returns the normalised address."""
    email = _normalise_email(email)
    if user.email_verified and user.email.lower() == email.lower():
        raise AccountError("email_unchanged", "This is already your verified address.")
    window = conf.get("EMAIL_VERIFY_WINDOW_S")
    key = f"email-verify:user:{user.pk}"
    if _count(key, window) > conf.get("EMAIL_VERIFY_ATTEMPTS"):
        _uncount(key)
        raise AccountError("email_throttled", "Too many verification e-mails; try again later.",
                           retry_after=window)
    with transaction.atomic():
        user.pending_email = email
        user.save(update_fields=["pending_email"])
        site_url = site_url.rstrip("/")
        link = None if _verified_elsewhere(email, user) else (
            site_url + reverse("accounts:email-verify", args=[email_token(user=user, email=email)]))
        after_commit(_send_email_mail, user=user, email=email, link=link,
                     reset_url=site_url + reverse("accounts:password_reset"))
    return email


def _send_email_mail(*, user: User, email: str, link: str | None, reset_url: str) -> None:
    """The verification link, or (address verified by another account) a notice saying so."""
    template = "accounts/emails/verify_email" if link else "accounts/emails/email_in_use"
    context = {"user": user, "email": email, "link": link, "reset_url": reset_url,
               "max_age_h": conf.get("EMAIL_VERIFY_MAX_AGE_S") // 3600}
    language = user.preferred_language
    if link is None:  # the notice goes to the other account's owner: in their language
        owner = User.objects.filter(email__iexact=email, email_verified_at__isnull=False).first()
        language = owner.preferred_language if owner is not None else language
    with translation.override(language):
        subject = "".join(render_to_string(f"{template}_subject.txt", context).splitlines())
        body = render_to_string(f"{template}.txt", context)
        try:
            send_mail(subject, body, None, [email])
        except Exception:  # a mail server down: logged, the player may ask again (the address stays pending)
            log.exception("could not send the e-mail verification mail of user %s", user.pk)


def email_cancel_pending(*, user: User) -> None:
    """Forget an address awaiting verification (its links go stale)."""
    if user.pending_email:
        user.pending_email = ""
        user.save(update_fields=["pending_email"])


def email_token_read(*, token: str) -> tuple[int, str]:
    """The (user id, address) a verification link names, if its signature holds and it has not expired:
    ``email_link_expired`` / ``email_link_invalid`` (400) otherwise. Changes nothing."""
    try:
        data = signing.loads(token, salt=EMAIL_TOKEN_SALT, max_age=conf.get("EMAIL_VERIFY_MAX_AGE_S"))
    except signing.SignatureExpired:
        raise AccountError("email_link_expired", "This verification link has expired; ask for a new one.") from None
    except signing.BadSignature:
        raise AccountError("email_link_invalid", "This verification link is not valid.") from None
    if not (isinstance(data, dict) and isinstance(data.get("u"), int) and isinstance(data.get("e"), str)):
        raise AccountError("email_link_invalid", "This verification link is not valid.")
    return data["u"], data["e"]


def email_verify(*, token: str) -> User:
    """Open a verification link: the pending address becomes the account's verified ``email``, and the
    real-value welcome grant is released in the same transaction when it is otherwise due (first
    finished game or the delay: the ``email_verified`` signal, received by rooms). Opening it again is
    harmless. Refuses ``email_link_invalid`` and ``email_link_expired`` (400), ``email_link_stale``
    (400: a newer address was asked for, or none is pending), ``email_taken`` (409: another account
    verified the address first)."""
    user_id, email = email_token_read(token=token)
    with transaction.atomic():
        user = User.objects.select_for_update().filter(pk=user_id, is_active=True, is_bot=False).first()
        if user is None:
            raise AccountError("email_link_invalid", "This verification link is not valid.")
        if user.email_verified and user.email.lower() == email.lower():
            return user  # opened twice
        if user.pending_email.lower() != email.lower():
            raise AccountError("email_link_stale", "This link is no longer valid: a newer address was asked for.")
        if _verified_elsewhere(email, user):
            raise AccountError("email_taken", "Another account has already verified this address.")
        user.email, user.email_verified_at, user.pending_email = user.pending_email, timezone.now(), ""
        try:
            with transaction.atomic():
                user.save(update_fields=["email", "email_verified_at", "pending_email"])
        except IntegrityError:  # verified by another account at the same moment (the unique index)
            raise AccountError("email_taken", "Another account has already verified this address.") from None
        signals.email_verified.send(sender=User, user=user)
    return user


# ----- account deletion ------------------------------------------------------------

def user_delete(*, user: User, password: str, address: str) -> User:
    """The player deletes their account, confirming with their password (``password_check``).

    Refused with ``account_busy`` (409) while they hold a seat at a table that is open or running or an
    entry in a tournament that is not over (``selectors.deletion_blockers``: they leave those first,
    with the usual money rules). A place in a quick-play queue is given up. The account is anonymised,
    not deleted: its ledger entries and balances stay, as do past tables and results, now under
    ``deleted-<id>`` / "Deleted player"; names, e-mail addresses and the sign-up address are cleared,
    the password is made unusable and the account inactive, so every session ends and its sockets
    close after the commit (``accounts.receivers``)."""
    password_check(user=user, password=password, address=address)
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        blockers = selectors.deletion_blockers(user=locked)
        if blockers:
            raise AccountError("account_busy", "Leave your tables and tournaments before deleting your account.")
        signals.user_deleting.send(sender=User, user=locked)  # e.g. a quick-play queue place is given up
        locked.username = _deleted_username(locked)
        locked.display_name = DELETED_DISPLAY_NAME
        locked.first_name = locked.last_name = locked.email = locked.pending_email = ""
        locked.email_verified_at = None
        locked.signup_address = None
        locked.is_active = locked.is_staff = locked.is_superuser = False
        locked.set_unusable_password()
        locked.deleted_at = timezone.now()
        locked.save()
        locked.groups.clear()
        locked.user_permissions.clear()
    return locked


def _deleted_username(user: User) -> str:
    name = f"{DELETED_USERNAME_PREFIX}{user.pk}"
    if User.objects.filter(username=name).exclude(pk=user.pk).exists():  # made before sign-up refused the prefix
        name = f"{name}-{time.time_ns()}"
    return name


def user_deactivate(*, user: User) -> User:
    """Ban an account: it can no longer log in, its sockets are closed once this commits
    (``accounts.receivers``), and the move path refuses it (``account_inactive``)."""
    if user.is_active:
        user.is_active = False
        user.save(update_fields=["is_active"])
    return user


# ----- login throttling -----------------------------------------------------------
# Failed logins are counted in the shared cache (Redis, so every ASGI process sees the same counts)
# per (username, address) and per address, the latter with a higher bound (one address trying many
# names). Past a bound an attempt is not locked out for the whole window: it may be made again after a
# delay that doubles with each further failure (LOGIN_THROTTLE_DELAY_S, 2x, 4x ... up to the window).
# Counting per (username, address) means a stranger's wrong guesses never slow the name's owner down
# elsewhere, nor the other players who share the stranger's address. Staff clear a name's counts in
# the admin (``login_throttle_clear``); a successful login clears its own (username, address) count.

def _now() -> float:
    return time.time()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _name(username: str) -> str:
    return _digest(username.strip().lower())


def _count(key: str, window: int) -> int:
    """Add one to a counter that lives ``window`` seconds from its first count; the new count."""
    if cache.add(key, 1, timeout=window):
        return 1
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=window)
        return 1


def _uncount(key: str) -> None:
    try:
        cache.decr(key)
    except ValueError:  # expired meanwhile
        pass


def _login_keys(username: str, address: str) -> list[tuple[str, int]]:
    """(key prefix, bound) per counter: the (username, address) pair's, then the address's. The pair's
    key carries the name's generation, which ``login_throttle_clear`` renews (every address at once)."""
    name = _name(username)
    generation = cache.get(f"login-gen:{name}", "0")
    place = _digest(address)
    return [(f"login-fail:pair:{name}:{generation}:{place}", conf.get("LOGIN_THROTTLE_ATTEMPTS")),
            (f"login-fail:addr:{place}", conf.get("LOGIN_THROTTLE_ADDRESS_ATTEMPTS"))]


def login_retry_after(*, username: str, address: str) -> int:
    """Seconds before this username may try again from this address (0: now)."""
    keys = [f"{prefix}:until" for prefix, _ in _login_keys(username, address)]
    until = max(cache.get_many(keys).values(), default=0)
    wait = until - _now()
    return math.ceil(wait) if wait > 0 else 0


def login_throttled(*, username: str, address: str) -> bool:
    return login_retry_after(username=username, address=address) > 0


def login_failed(*, username: str, address: str) -> int:
    """Count a failed login; the seconds the next attempt must now wait (0: none)."""
    window = conf.get("LOGIN_THROTTLE_WINDOW_S")
    delay = conf.get("LOGIN_THROTTLE_DELAY_S")
    longest = 0.0
    for prefix, bound in _login_keys(username, address):
        failures = _count(f"{prefix}:n", window)
        if failures < bound:
            continue
        wait = min(delay * 2 ** min(failures - bound, 30), window)
        cache.set(f"{prefix}:until", _now() + wait, timeout=math.ceil(wait) + 1)
        longest = max(longest, wait)
    return math.ceil(longest)


def login_succeeded(*, username: str, address: str) -> None:
    """The right password from this address: its (username, address) count starts again. The address's
    count stays (a stranger logging into an account of their own must not reset it)."""
    prefix = _login_keys(username, address)[0][0]
    cache.delete_many([f"{prefix}:n", f"{prefix}:until"])


def login_throttle_clear(*, username: str) -> None:
    """Staff lift a name's slow-down from every address (the admin's action on users)."""
    cache.set(f"login-gen:{_name(username)}", str(time.time_ns()),
              timeout=2 * conf.get("LOGIN_THROTTLE_WINDOW_S"))
