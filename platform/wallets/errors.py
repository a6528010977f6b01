from __future__ import annotations


class WalletError(Exception):
    """A refused money operation; ``code`` is stable (e.g. insufficient_funds)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
