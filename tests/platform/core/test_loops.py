"""core.loops.one_per_loop: one object per running event loop."""

from __future__ import annotations

import asyncio

from core.loops import one_per_loop


def test_one_object_per_loop_made_once():
    made = []
    get = one_per_loop(lambda: made.append(object()) or made[-1])

    async def twice():
        return get(), get()

    first = asyncio.run(twice())
    second = asyncio.run(twice())
    assert first[0] is first[1] and second[0] is second[1]
    assert first[0] is not second[0] and len(made) == 2
