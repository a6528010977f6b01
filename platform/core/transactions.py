"""The one way services schedule side effects (broadcasts, task enqueues, e-mail): after the commit."""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.db import transaction


def after_commit(fn: Callable[..., object], /, *args, **kwargs) -> None:
    """Run ``fn(*args, **kwargs)`` once the current transaction commits (at once outside one; never if it
    rolls back). Robust: a failing side effect is logged by Django, not raised into code whose change has
    already committed (the change stands; the next push or the timer makes up for a lost one)."""
    transaction.on_commit(functools.partial(fn, *args, **kwargs) if args or kwargs else fn, robust=True)
