"""One error type for table operations, with stable codes shared by the API and websockets."""

from __future__ import annotations

from core.errors import ServiceError


class TableError(ServiceError):
    pass
