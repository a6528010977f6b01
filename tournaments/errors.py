"""Tournament errors: a stable ``code`` for clients and tests, an HTTP status for the API."""

from __future__ import annotations


class TournamentError(Exception):
    def __init__(self, code: str, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
