"""Deadline sweeps (filled in by the live-tables work)."""

from __future__ import annotations


def sweep() -> int:
    """Enqueue automatic moves for every due deadline; returns how many fired."""
    return 0
