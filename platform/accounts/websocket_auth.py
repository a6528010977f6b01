"""Who a websocket belongs to: the session cookie's user, read once when the socket connects.

Channels' ``AuthMiddlewareStack`` finds the same user, but its session layer also wraps every message
the socket sends for the rest of its life in a save-the-session check (two lazy-object lookups and an
emptiness test per frame, for a session a socket never changes) and leaves ``scope["user"]`` a lazy
object that each access unwraps again. A table socket sends two frames per move, so this ran on the
event loop about eight times per move. Here the lookup happens once, ``scope["user"]`` is the user
itself (or ``AnonymousUser``), and the server's ``send`` reaches the consumer untouched.

The rules are Django's own (``django.contrib.auth.get_user``): an expired or unknown session, a user
who no longer exists or is inactive, or a session whose password hash no longer matches (the password
changed) all give ``AnonymousUser``.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib import auth
from django.contrib.auth.models import AnonymousUser
from django.http.cookie import parse_cookie
from django.utils.module_loading import import_string


def session_key_of(scope: dict[str, Any]) -> str | None:
    """The session cookie's value from the handshake's headers (every Cookie header, as browsers may
    split them), or None."""
    raw = "; ".join(value.decode("latin-1") for name, value in scope.get("headers", ()) if name == b"cookie")
    if not raw:
        return None
    return parse_cookie(raw).get(settings.SESSION_COOKIE_NAME) or None


@database_sync_to_async
def _user_and_session(session_store, session_key: str | None):
    session = session_store(session_key)
    if session_key is None:
        return AnonymousUser(), session
    return auth.get_user(SimpleNamespace(session=session)), session


class SessionAuthMiddleware:
    """Sets ``scope["user"]`` (and ``scope["session"]``) for websockets; other scopes pass through."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.session_store = import_string(f"{settings.SESSION_ENGINE}.SessionStore")  # as Django's SessionMiddleware

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket":
            user, session = await _user_and_session(self.session_store, session_key_of(scope))
            scope = {**scope, "user": user, "session": session}
        return await self.inner(scope, receive, send)
