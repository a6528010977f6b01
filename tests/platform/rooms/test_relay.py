"""The per-process table relay with the real Redis channel layer."""

from __future__ import annotations

import asyncio

from channels.layers import get_channel_layer

from rooms import broadcast, relay


class Recorder:
    def __init__(self) -> None:
        self.got: list[dict] = []

    def relay(self, message: dict) -> None:
        self.got.append(message)


async def _settle(condition, timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "no delivery in time"
        await asyncio.sleep(0.01)


def _state(table_id: int, version: int) -> dict:
    return {"type": "table.state", "table": table_id, "version": version, "frames": {"watch": "{}"},
            "seats": {}, "events": None}


def test_each_table_message_reaches_that_tables_sockets_once_until_they_leave():
    async def main():
        layer = get_channel_layer()
        hub = relay.for_running_loop(layer)
        assert relay.for_running_loop(layer) is hub  # one per event loop
        a, b, other = Recorder(), Recorder(), Recorder()
        await hub.join(9001, a)
        await hub.join(9001, b)
        await hub.join(9002, other)
        await layer.group_send(broadcast.all_group(9001), _state(9001, 1))
        await _settle(lambda: a.got and b.got)
        await asyncio.sleep(0.1)
        assert [m["version"] for m in a.got] == [1] and [m["version"] for m in b.got] == [1]
        assert other.got == []

        await hub.leave(9001, a)
        await hub.leave(9001, a)  # leaving twice is harmless
        await layer.group_send(broadcast.all_group(9001), _state(9001, 2))
        await _settle(lambda: len(b.got) == 2)
        assert len(a.got) == 1

        # The last socket of a table leaving drops the subscription; a new one subscribes again.
        await hub.leave(9001, b)
        assert 9001 not in hub.sockets
        await layer.group_send(broadcast.all_group(9001), _state(9001, 3))
        await asyncio.sleep(0.2)
        assert len(b.got) == 2
        await hub.join(9001, a)
        await layer.group_send(broadcast.all_group(9001), _state(9001, 4))
        await _settle(lambda: len(a.got) == 2)
        assert a.got[-1]["version"] == 4
        await hub.leave(9001, a)
        await hub.leave(9002, other)

    asyncio.run(main())


def test_a_recipient_that_fails_does_not_stop_the_relay():
    class Broken:
        def relay(self, message: dict) -> None:
            raise RuntimeError("boom")

    async def main():
        layer = get_channel_layer()
        hub = relay.for_running_loop(layer)
        good = Recorder()
        await hub.join(9003, Broken())
        await layer.group_send(broadcast.all_group(9003), _state(9003, 1))
        await asyncio.sleep(0.2)
        await hub.join(9003, good)
        await layer.group_send(broadcast.all_group(9003), _state(9003, 2))
        await _settle(lambda: good.got)
        assert good.got[0]["version"] == 2

    asyncio.run(main())
