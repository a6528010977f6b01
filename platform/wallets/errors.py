"""The ledger's refusals: a stable ``code`` (``core.errors``; ``core.api.http_status`` gives its status:
``insufficient_funds`` is 402, a refused posting is never a 500)."""

from __future__ import annotations

from core.errors import ServiceError


class WalletError(ServiceError):
    """A refused money operation; ``code`` is stable (e.g. insufficient_funds)."""
