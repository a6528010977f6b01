"""The ledger's refusals: a stable ``code`` and, like every service error (``core.errors``), an HTTP status."""

from __future__ import annotations

from core.errors import ServiceError

# The HTTP status of each refusal that is not a plain bad request (400). An app that turns a
# WalletError into its own error keeps ``exc.status``: a refused posting is never a 500.
STATUS_BY_CODE = {
    "insufficient_funds": 402,
    "escrow_short": 409,
    "currency_mismatch": 409,
    "no_recipients": 409,
}


class WalletError(ServiceError):
    """A refused money operation; ``code`` is stable (e.g. insufficient_funds), ``status`` follows it."""

    def __init__(self, code: str, message: str, *, status: int | None = None) -> None:
        super().__init__(code, message, status=status if status is not None else STATUS_BY_CODE.get(code, 400))
