"""Account services: sign-up, bot accounts, language preference, login throttling."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

from accounts.models import User


def user_create(*, username: str, password: str, display_name: str = "", preferred_language: str = "en") -> User:
    """Create a player account; the economy hooks its welcome grant onto ``user_created``."""
    with transaction.atomic():
        user = User.objects.create_user(
            username=username, password=password, display_name=display_name or username,
            preferred_language=preferred_language,
        )
        from accounts.signals import user_created

        user_created.send(sender=User, user=user)
    return user


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


# ----- login throttling -----------------------------------------------------------
# Failed attempts are counted per username and per client address in the shared cache
# (Redis), so every ASGI process sees the same counts.

def _keys(username: str, address: str) -> list[str]:
    name = hashlib.sha256(username.strip().lower().encode()).hexdigest()[:32]
    return [f"login-fail:user:{name}", f"login-fail:addr:{address}"]


def login_throttled(*, username: str, address: str) -> bool:
    limit = settings.LOGIN_THROTTLE_ATTEMPTS
    counts = cache.get_many(_keys(username, address))
    return any(int(v) >= limit for v in counts.values())


def login_failed(*, username: str, address: str) -> None:
    window = settings.LOGIN_THROTTLE_WINDOW_S
    for key in _keys(username, address):
        if cache.add(key, 1, timeout=window):
            continue
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, timeout=window)


def login_succeeded(*, username: str, address: str) -> None:
    cache.delete(_keys(username, address)[0])
