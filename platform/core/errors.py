"""The one error shape of every service: a stable ``code`` for clients and a human message. Services
never choose an HTTP status: ``core.api.http_status`` maps codes to statuses, once, for every surface."""

from __future__ import annotations


class ServiceError(Exception):
    """``details``: machine-readable facts a client shows with the code (e.g. for ``insufficient_funds``:
    currency, needed, balance); every surface (REST, sockets) carries them beside code and message."""

    def __init__(self, code: str, message: str, *, details: dict | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = dict(details or {})

    def as_dict(self) -> dict:
        return {**self.details, "code": self.code, "message": self.message}
