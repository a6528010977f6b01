"""rooms.broadcast's transport with the real Redis pub/sub layer."""

from __future__ import annotations

import asyncio

import pytest
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
        conn = broadcast._checkout()
        conn.send_command("CLIENT", "ID")
        own_id = conn.read_response()
        broadcast._checkin(conn)
        assert broadcast._redis().client_kill_filter(_id=str(own_id)) == 1  # gone server-side
        broadcast.publish([(broadcast.all_group(TABLE), {"type": "table.state", "table": TABLE, "version": 2})])

    got = _received_after(publish_after_the_connection_was_killed)
    assert [m["version"] for m in got] == [1, 2]


@pytest.mark.django_db
def test_state_message_gives_each_seated_user_their_own_seats_frame_and_spectators_theirs():
    import json

    from accounts.services import user_create
    from rooms import selectors, services
    from rooms.models import Room, Table

    room = Room.objects.create(name="B", slug="b", game="lembar", seats=3, min_seats=3)
    users = [user_create(username=f"bm{k}", password="pass-word-123") for k in range(3)]
    table = services.table_open(room=room, host=users[0])
    for user in users:
        services.table_sit(table_id=table.pk, user=user)
    table = Table.objects.select_related("room", "host").get(pk=table.pk)
    assert table.status == "running"

    seats = selectors.seats_public(table)
    message = broadcast.state_message(table, events=[{"type": "x"}], seats=seats, host=users[0].username)
    frames = {key: json.loads(text) for key, text in message["frames"].items()}
    assert set(frames) == {str(u.pk) for u in users} | {broadcast.WATCH}

    def without_clock(frame: dict) -> dict:
        return {k: v for k, v in frame.items() if k != "server_time"}

    for user in users:
        number = selectors.seat_number_of(table=table, user_id=user.pk)
        assert message["seats"][str(user.pk)] == number
        alone = json.loads(broadcast.dumps(selectors.table_frame(table=table, seat_number=number, seats=seats,
                                                                 host=users[0].username)))
        assert without_clock(frames[str(user.pk)]) == without_clock(alone)
        assert frames[str(user.pk)]["seat"] == number
    watch = json.loads(broadcast.dumps(selectors.table_frame(table=table, seat_number=None, seats=seats,
                                                             host=users[0].username)))
    assert without_clock(frames[broadcast.WATCH]) == without_clock(watch) and watch["legal"] == []
    # Exactly the seat to act has moves offered.
    to_act = [f["seat"] for key, f in frames.items() if key != broadcast.WATCH and f["legal"]]
    assert to_act == [table.deadline_seat]


def test_publishing_from_many_short_lived_threads_reuses_connections():
    """Under ASGI each REST request runs on its own thread: a publish connection per thread, never
    given back, exhausted the client's pool (100) and every later broadcast failed."""
    import threading

    messages = [(broadcast.all_group(TABLE), {"type": "table.state", "table": TABLE, "version": 1})]
    errors: list[BaseException] = []

    def one() -> None:
        try:
            broadcast.publish(messages)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    for _ in range(150):
        thread = threading.Thread(target=one)
        thread.start()
        thread.join()
    assert errors == []
    got = _received_after(lambda: broadcast.publish(messages))
    assert [m["version"] for m in got] == [1]
    assert len(broadcast._idle) <= 2
