"""The chat's knobs: each from Django settings when set there, else from the environment, else the
default here. Read at use, so tests may override them with the ``settings`` fixture."""

from __future__ import annotations

import environ
from django.conf import settings

_env = environ.Env()

DEFAULTS: dict[str, int] = {
    "CHAT_MAX_LENGTH": 200,  # characters per message, after trimming
    "CHAT_RATE_MESSAGES": 5,  # messages per user (every table and socket together) ...
    "CHAT_RATE_WINDOW_S": 10,  # ... within this many seconds
    "CHAT_HISTORY": 50,  # messages a socket gets on connecting
    "CHAT_REPORT_RATE": 5,  # reports per user ...
    "CHAT_REPORT_WINDOW_S": 600,  # ... within this many seconds
    "CHAT_BOT_REPLY_DELAY_MS": 1500,  # a bot answers after about this long (0: at once)
}


def get(name: str) -> int:
    configured = getattr(settings, name, None)
    if configured is not None:
        return int(configured)
    return _env.int(name, default=DEFAULTS[name])
