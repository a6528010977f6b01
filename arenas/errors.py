"""Arena errors: a stable ``code`` for clients and tests, an HTTP status for the API (core.api maps it)."""

from __future__ import annotations

from core.errors import ServiceError


class ArenaError(ServiceError):
    pass
