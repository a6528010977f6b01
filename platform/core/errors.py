"""The one error shape of every service: a stable ``code`` for clients, a human message, an HTTP status."""

from __future__ import annotations


class ServiceError(Exception):
    def __init__(self, code: str, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}
