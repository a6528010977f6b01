"""Account services: sign-up, bot accounts, language preference, login and sign-up throttling."""

from __future__ import annotations

import hashlib
import ipaddress
import math
import time

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction

from accounts import conf
from accounts.errors import AccountError
from accounts.models import User


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
        raise AccountError("username_taken", str(User._meta.get_field("username").error_messages["unique"]),
                           status=409) from None
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
        raise AccountError("signup_throttled", "Too many accounts were created from this address; try again later.",
                           status=429, retry_after=window)
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
            defaults={"display_name": display_name, "is_bot": True, "bot_style": style,
                      "bot_description": description},
        )
        if created:
            bot.set_unusable_password()
            bot.save(update_fields=["password"])
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
