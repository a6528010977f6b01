"""The websocket's user comes from the session cookie, by Django's rules, once; sends pass through."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import AnonymousUser
from django.test import Client

from accounts.services import user_create
from accounts.websocket_auth import SessionAuthMiddleware, session_key_of

pytestmark = pytest.mark.django_db(transaction=True)


class Inner:
    """An app that records what it was called with."""

    def __init__(self) -> None:
        self.calls: list[tuple[dict, object, object]] = []

    async def __call__(self, scope, receive, send):
        self.calls.append((scope, receive, send))


async def _run(headers: list[tuple[bytes, bytes]], kind: str = "websocket") -> tuple[dict, object, object]:
    inner = Inner()

    async def receive():  # pragma: no cover - never called
        return {}

    async def send(message):  # pragma: no cover - never called
        return None

    await SessionAuthMiddleware(inner)({"type": kind, "headers": headers}, receive, send)
    scope, got_receive, got_send = inner.calls[0]
    assert got_receive is receive and got_send is send  # nothing wraps the socket's messages
    return scope, receive, send


def _login(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


async def test_the_session_cookie_gives_its_user_itself_not_a_lazy_wrapper():
    user = await sync_to_async(user_create)(username="wsa", password="pass-word-123")
    key = await sync_to_async(_login)(user)
    scope, _, _ = await _run([(b"origin", b"http://127.0.0.1"), (b"cookie", f"theme=dark; sessionid={key}".encode())])
    assert type(scope["user"]) is type(user) and scope["user"].pk == user.pk
    assert scope["session"].session_key == key


async def test_no_cookie_an_unknown_session_or_a_second_cookie_header():
    user = await sync_to_async(user_create)(username="wsb", password="pass-word-123")
    key = await sync_to_async(_login)(user)
    for headers in ([], [(b"cookie", b"theme=dark")], [(b"cookie", b"sessionid=not-a-session")]):
        scope, _, _ = await _run(headers)
        assert isinstance(scope["user"], AnonymousUser), headers
    # Cookies split over two headers (HTTP/2 proxies do this) still count.
    scope, _, _ = await _run([(b"cookie", b"theme=dark"), (b"cookie", f"sessionid={key}".encode())])
    assert scope["user"].pk == user.pk


async def test_a_changed_password_or_a_deactivated_user_ends_the_session():
    user = await sync_to_async(user_create)(username="wsc", password="pass-word-123")
    key = await sync_to_async(_login)(user)

    def change_password():
        user.set_password("another-pass-456")
        user.save()

    await sync_to_async(change_password)()
    scope, _, _ = await _run([(b"cookie", f"sessionid={key}".encode())])
    assert isinstance(scope["user"], AnonymousUser)

    other = await sync_to_async(user_create)(username="wsd", password="pass-word-123")
    key = await sync_to_async(_login)(other)
    other.is_active = False
    await sync_to_async(other.save)()
    scope, _, _ = await _run([(b"cookie", f"sessionid={key}".encode())])
    assert isinstance(scope["user"], AnonymousUser)


async def test_http_scopes_are_left_alone():
    scope, _, _ = await _run([(b"cookie", b"sessionid=x")], kind="http")
    assert "user" not in scope and "session" not in scope


def test_session_key_of_reads_only_the_session_cookie():
    assert session_key_of({"headers": [(b"cookie", b"a=1; sessionid=abc; b=2")]}) == "abc"
    assert session_key_of({"headers": [(b"cookie", b"sessionid=")]}) is None
    assert session_key_of({"headers": []}) is None
    assert session_key_of({}) is None
