"""One error type for chat, with stable codes (docs/protocol.md, "Chat")."""

from __future__ import annotations

from core.errors import ServiceError


class ChatError(ServiceError):
    def __init__(self, code: str, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(code, message)
        self.retry_after = retry_after  # seconds, for chat_rate_limited
