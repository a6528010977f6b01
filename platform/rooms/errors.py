"""One error type for table operations, with stable codes shared by the API and websockets."""

from __future__ import annotations

from core.errors import ServiceError


class TableError(ServiceError):
    def __init__(self, code: str, message: str, *, version: int | None = None, details: dict | None = None) -> None:
        super().__init__(code, message, details=details)
        # The table's version when the request was refused, where known: a socket sends it with the error.
        self.version = version
