"""rooms.broadcast's transport with the real Redis pub/sub layer."""

from __future__ import annotations

import asyncio

from channels.layers import get_channel_layer

from rooms import broadcast

TABLE = 987_654_321  # no real table: pub/sub channels are shared by every Redis database


def _received_after(publish) -> list[dict]:
    """Messages a fresh layer channel in group ``table.<TABLE>.all`` gets while ``publish`` runs in a thread."""

    async def main():
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(broadcast.all_group(TABLE), channel)
        await asyncio.to_thread(publish)
        got = []
        try:
            while True:
                got.append(await asyncio.wait_for(layer.receive(channel), 1.0))
        except TimeoutError:
            pass
        await layer.group_discard(broadcast.all_group(TABLE), channel)
        return got

    return asyncio.run(main())


def test_publish_sends_every_message_in_order():
    messages = [(broadcast.all_group(TABLE), {"type": "table.state", "table": TABLE, "version": v}) for v in (1, 2, 3)]
    got = _received_after(lambda: broadcast.publish(messages))
    assert [m["version"] for m in got] == [1, 2, 3]


def test_publish_replaces_a_connection_that_broke():
    def publish_after_the_connection_was_killed():
        broadcast.publish([(broadcast.all_group(TABLE), {"type": "table.state", "table": TABLE, "version": 1})])
        conn = broadcast._connection()
        conn.send_command("CLIENT", "ID")
        own_id = conn.read_response()
        assert broadcast._redis().client_kill_filter(_id=str(own_id)) == 1  # gone server-side
        broadcast.publish([(broadcast.all_group(TABLE), {"type": "table.state", "table": TABLE, "version": 2})])

    got = _received_after(publish_after_the_connection_was_killed)
    assert [m["version"] for m in got] == [1, 2]
