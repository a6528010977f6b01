"""Tournament errors: a stable ``code`` for clients and tests (``core.api.http_status`` gives the API its status)."""

from __future__ import annotations

from core.errors import ServiceError


class TournamentError(ServiceError):
    pass
