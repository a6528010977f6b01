"""What every websocket of the platform shares (table, queue and tournament sockets).

``ClientSocket`` checks each client frame the same way on every socket: a size limit, JSON parsed with
deep nesting refused (``RecursionError`` is an error frame, not a crash), an object with a string
``type``, a short ``id``, a token-bucket rate limit, ``ping`` answered here and ``resync`` handed to the
socket. A client that keeps flooding past the limit is closed with ``CLOSE_ABUSE`` and refused for
``ABUSE_BACKOFF_S`` (per user, or per address for a visitor who is not logged in). Protocol:
docs/protocol.md.
"""

from __future__ import annotations

import json
import logging
import time
from collections import deque
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer

from core.cache import cache

log = logging.getLogger(__name__)

CLOSE_UNAUTHENTICATED = 4401
CLOSE_NO_SUCH = 4404
CLOSE_ABUSE = 4429  # sustained flooding; the client should wait before reconnecting

ABUSE_REFUSALS = 40  # frames refused by the rate limit within ABUSE_WINDOW_S before the socket is closed
ABUSE_WINDOW_S = 10.0
ABUSE_BACKOFF_S = 60


async def refuse(consumer, code: int) -> None:
    """Accept, then close at once with ``code`` (docs/protocol.md: 4401 no session, 4404 no such
    table or tournament or websocket path, 4429 backing off after abuse). Closed before the accept, the server answers
    the handshake with HTTP 403 and a browser sees only 1006, so a page could not tell "log in again"
    from a network error and kept reconnecting. A wrong Origin is still refused at the handshake
    (HTTP 403), before any consumer."""
    await consumer.accept()
    await consumer.close(code=code)


def parse_client_frame(raw: str, *, max_bytes: int) -> tuple[dict | None, Any, tuple[str, str] | None]:
    """``(message, client_id, None)`` for a well-formed frame, else ``(None, client_id, (code, text))``.
    The one parser of client frames: size, JSON (deep nesting included), an object, a short ``id``."""
    if len(raw) > max_bytes or len(raw.encode("utf-8")) > max_bytes:
        return None, None, ("too_large", f"Messages are limited to {max_bytes} bytes.")
    try:
        message = json.loads(raw)
    except (ValueError, RecursionError):  # deeply nested input exhausts the decoder's recursion
        return None, None, ("malformed", "Messages must be JSON objects.")
    if not isinstance(message, dict):
        return None, None, ("malformed", "Messages must be JSON objects.")
    client_id = message.get("id")
    if client_id is not None and (not isinstance(client_id, (str, int)) or isinstance(client_id, bool)
                                  or len(str(client_id)) > 64):
        return None, None, ("malformed", "'id' must be a short string or number.")
    if not isinstance(message.get("type"), str):
        return None, client_id, ("malformed", "Messages need a 'type'.")
    return message, client_id, None


class ClientSocket(AsyncWebsocketConsumer):
    """Base of the platform's sockets. Subclasses call ``await self.admit()`` in ``connect`` before
    accepting (False: already refused), implement ``resync`` and, for other frame types, ``handle``."""

    max_message_bytes = 1024
    rate_capacity = 8  # burst
    rate_per_second = 4.0  # sustained frames per second per connection

    # ----- connecting ----------------------------------------------------------------
    def abuse_key(self) -> str:
        user = self.scope.get("user")
        if user is not None and getattr(user, "is_authenticated", False):
            return f"ws-abuse:user:{user.pk}"
        client = self.scope.get("client") or ("?", 0)
        return f"ws-abuse:addr:{client[0]}"

    async def admit(self) -> bool:
        """Start the rate limiter; refuse (4429) a client still backing off after abuse."""
        self.tokens = float(self.rate_capacity)
        self.last_refill = time.monotonic()
        self.refusals: deque[float] = deque()
        self.limited = False
        try:
            backing_off = await cache.aget(self.abuse_key())
        except Exception:  # the cache is down: let the client in rather than lock everyone out
            log.warning("websocket back-off check failed", exc_info=True)
            backing_off = None
        if backing_off:
            await refuse(self, CLOSE_ABUSE)
            return False
        return True

    # ----- incoming ----------------------------------------------------------------
    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not self._take_token():
            await self._rate_limited()
            return
        self.limited = False
        raw = text_data if text_data is not None else (bytes_data or b"").decode("utf-8", "replace")
        message, client_id, problem = parse_client_frame(raw, max_bytes=self.max_message_bytes)
        if problem is not None:
            await self.send_error(problem[0], problem[1], client_id)
            return
        kind = message["type"]
        if kind == "ping":
            await self.send_frame({"type": "pong", "id": client_id})
        elif kind == "resync":
            await self.resync(client_id)
        else:
            await self.handle(kind, message, client_id)

    async def resync(self, client_id: Any) -> None:  # pragma: no cover - every socket has one
        raise NotImplementedError

    async def handle(self, kind: str, message: dict, client_id: Any) -> None:
        await self.send_error("unknown_type", "Unknown message type.", client_id)

    def _take_token(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.rate_capacity, self.tokens + (now - self.last_refill) * self.rate_per_second)
        self.last_refill = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def _rate_limited(self) -> None:
        """One error frame per burst (answering each refused frame cost more than the flood itself);
        a client that goes on flooding is closed and refused for a while."""
        now = time.monotonic()
        self.refusals.append(now)
        while self.refusals and self.refusals[0] < now - ABUSE_WINDOW_S:
            self.refusals.popleft()
        if len(self.refusals) >= ABUSE_REFUSALS:
            self.refusals.clear()
            try:
                await cache.aset(self.abuse_key(), 1, ABUSE_BACKOFF_S)
            except Exception:
                log.warning("websocket back-off not recorded", exc_info=True)
            log.info("websocket closed for flooding (%s)", self.abuse_key())
            await self.close(code=CLOSE_ABUSE)
            return
        if not self.limited:
            self.limited = True
            await self.send_error("rate_limited", "Too many messages; slow down.")

    # ----- outgoing ----------------------------------------------------------------
    def error_version(self) -> int | None:
        """A version for error frames (the table socket's latest); None elsewhere."""
        return None

    async def send_error(self, code: str, message: str, client_id: Any = None, version: int | None = None) -> None:
        frame: dict[str, Any] = {"type": "error", "code": code, "message": message, "id": client_id}
        if version is None:
            version = self.error_version()
        if version is not None or self.errors_carry_version:
            frame["version"] = version
        await self.send_frame(frame)

    errors_carry_version = False

    async def send_frame(self, payload: dict) -> None:
        await self.send(text_data=json.dumps(payload, separators=(",", ":"), default=str))


class LivePageSocket(ClientSocket):
    """A page's live view of one object (a tournament, an arena): push only. ``connect`` finds the object
    from the URL's ``pk`` (``exists``), joins ``page_groups`` (the page's, and for a logged-in user the
    user's group: logging out closes the socket, "your next table" frames arrive there) and sends
    ``snapshot``; ``resync`` sends it again. Subclasses give those three."""

    async def exists(self, pk: int) -> bool:  # pragma: no cover - every page socket has one
        raise NotImplementedError

    def page_groups(self, pk: int, user) -> list[str]:  # pragma: no cover
        raise NotImplementedError

    def snapshot(self, pk: int) -> dict:  # pragma: no cover - runs on a worker thread (database reads)
        raise NotImplementedError

    async def connect(self) -> None:
        from channels.db import database_sync_to_async

        try:
            self.pk = int(self.scope["url_route"]["kwargs"]["pk"])
        except (KeyError, ValueError):
            await refuse(self, CLOSE_NO_SUCH)
            return
        if not await self.exists(self.pk):
            await refuse(self, CLOSE_NO_SUCH)
            return
        if not await self.admit():
            return
        await self.accept()
        self.groups_joined = self.page_groups(self.pk, self.scope.get("user"))
        for name in self.groups_joined:
            await self.channel_layer.group_add(name, self.channel_name)
        self._read_snapshot = database_sync_to_async(self.snapshot)
        await self.send_snapshot()

    async def disconnect(self, code: int) -> None:
        for name in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(name, self.channel_name)

    async def resync(self, client_id: Any) -> None:
        await self.send_snapshot(client_id)

    async def send_snapshot(self, client_id: Any = None) -> None:
        frame = await self._read_snapshot(self.pk)
        if client_id is not None:
            frame = {**frame, "id": client_id}
        await self.send_frame(frame)

    async def user_logout(self, event: dict) -> None:
        await self.close(code=CLOSE_UNAUTHENTICATED)

    async def table_state(self, event: dict) -> None:  # other user-group frames are not for this page
        return


class NoSuchSocket(AsyncWebsocketConsumer):
    """Every websocket path no route matches: a clean 4404 instead of an error and a traceback."""

    async def connect(self) -> None:
        await refuse(self, CLOSE_NO_SUCH)
