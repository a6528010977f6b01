"""Account errors with stable codes (``core.errors.ServiceError``)."""

from __future__ import annotations

from core.errors import ServiceError


class AccountError(ServiceError):
    def __init__(self, code: str, message: str, *, retry_after: int = 0) -> None:
        super().__init__(code, message)
        self.retry_after = retry_after  # seconds, for a throttle's Retry-After
