"""Refusing a websocket with a close code the client can read."""

from __future__ import annotations


async def refuse(consumer, code: int) -> None:
    """Accept, then close at once with ``code`` (docs/protocol.md: 4401 no session, 4404 no such
    table or tournament). Closed before the accept, the server answers the handshake with HTTP 403 and
    a browser sees only 1006, so a page could not tell "log in again" from a network error and kept
    reconnecting. A wrong Origin is still refused at the handshake (HTTP 403), before any consumer."""
    await consumer.accept()
    await consumer.close(code=code)
