"""Request helpers shared by the account views and forms."""

from __future__ import annotations


def client_address(request) -> str:
    """The address the request came from, as the server saw it (throttles and sign-ups count per address)."""
    return request.META.get("REMOTE_ADDR") or "unknown"
