"""One error type for queue operations, with stable codes ({code, message}) like rooms.errors."""

from __future__ import annotations

from core.errors import ServiceError


class QueueError(ServiceError):
    """A refused queue operation (``details`` as on every ``ServiceError``)."""
