"""The accounts app's own knobs: each from Django settings when set there, else from the environment
(README.md's configuration table), else the default here. Read at use, so tests may override them
with the ``settings`` fixture."""

from __future__ import annotations

import environ
from django.conf import settings

_env = environ.Env()

DEFAULTS: dict[str, int] = {
    # Failed logins per (username, address), then per address (many usernames: a higher bound), within
    # the window; past a bound each further attempt waits DELAY_S, doubling per failure up to the window.
    "LOGIN_THROTTLE_ATTEMPTS": 5,
    "LOGIN_THROTTLE_ADDRESS_ATTEMPTS": 50,
    "LOGIN_THROTTLE_WINDOW_S": 900,
    "LOGIN_THROTTLE_DELAY_S": 30,
    # Accounts created per address within the window.
    "SIGNUP_THROTTLE_ATTEMPTS": 5,
    "SIGNUP_THROTTLE_WINDOW_S": 3600,
    # Password-reset requests within the window: per e-mail address (past it nothing more is sent, and
    # the page says the same as ever), and per client address (past it HTTP 429).
    "PASSWORD_RESET_ATTEMPTS": 3,
    "PASSWORD_RESET_ADDRESS_ATTEMPTS": 20,
    "PASSWORD_RESET_WINDOW_S": 3600,
    # Verification e-mails one account may ask for within the window, and how long a link stays valid.
    "EMAIL_VERIFY_ATTEMPTS": 5,
    "EMAIL_VERIFY_WINDOW_S": 3600,
    "EMAIL_VERIFY_MAX_AGE_S": 3 * 24 * 3600,
}


def get(name: str) -> int:
    configured = getattr(settings, name, None)
    if configured is not None:
        return int(configured)
    return _env.int(name, default=DEFAULTS[name])
