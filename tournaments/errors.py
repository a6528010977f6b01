"""Tournament errors: a stable ``code`` for clients and tests, an HTTP status for the API."""

from __future__ import annotations

from core.errors import ServiceError


class TournamentError(ServiceError):
    pass
