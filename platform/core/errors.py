"""The one error shape of every service: a stable ``code`` for clients, a human message, an HTTP status."""

from __future__ import annotations


class ServiceError(Exception):
    """``details``: machine-readable facts a client shows with the code (e.g. for ``insufficient_funds``:
    currency, needed, balance); every surface (REST, sockets) carries them beside code and message."""

    def __init__(self, code: str, message: str, *, status: int = 400, details: dict | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.details = dict(details or {})

    def as_dict(self) -> dict:
        return {**self.details, "code": self.code, "message": self.message}
