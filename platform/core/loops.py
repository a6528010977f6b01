"""One object per running event loop: a server runs one loop per process, tests run several."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def one_per_loop(factory: Callable[[], T]) -> Callable[[], T]:
    """A function that returns the running loop's object, made by ``factory`` the first time it is asked
    for on that loop (kept only as long as the loop lives)."""
    made: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, T] = weakref.WeakKeyDictionary()

    def get() -> T:
        loop = asyncio.get_running_loop()
        found = made.get(loop)
        if found is None:
            found = made[loop] = factory()
        return found

    return get
