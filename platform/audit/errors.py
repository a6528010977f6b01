"""The audit log's refusals (a stable ``code``, like every service error in ``core.errors``)."""

from __future__ import annotations

from core.errors import ServiceError


class AuditError(ServiceError):
    """A record that cannot be written as asked (e.g. an unknown action); always a caller's mistake."""
