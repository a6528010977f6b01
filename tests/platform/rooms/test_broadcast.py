"""rooms.broadcast's transport with the real Redis pub/sub layer."""

from __future__ import annotations

import asyncio

import pytest
from channels.layers import get_channel_layer

from live import transport
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
        conn = transport._checkout()
        conn.send_command("CLIENT", "ID")
        own_id = conn.read_response()
        transport._checkin(conn)
        assert transport._redis().client_kill_filter(_id=str(own_id)) == 1  # gone server-side
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
    # The idle list is the process's: other threads of earlier tests (a move pool's broadcaster) may have
    # given theirs back to it. What counts is that 150 threads add at most what two at once would.
    before = len(transport._idle)

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
    assert len(transport._idle) <= max(before, 2)


# ----- every change a viewer can see is numbered and reaches every socket -----------------------

def _cookie(user) -> bytes:
    from django.test import Client

    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def _socket(table_id: int, cookie: bytes):
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    comm = WebsocketCommunicator(application, f"/ws/tables/{table_id}/",
                                 headers=[(b"origin", b"http://127.0.0.1"), (b"cookie", cookie)])
    connected, _ = await comm.connect(timeout=10)
    assert connected
    return comm


async def _states_until(comm, done) -> list[dict]:
    """State frames up to the first one for which ``done(frame)`` holds."""
    frames = []
    while True:
        frame = await comm.receive_json_from(timeout=10)
        if frame["type"] == "state":
            frames.append(frame)
            if done(frame):
                return frames


def _lembar_table(slug: str):
    from accounts.services import user_create
    from rooms import services
    from rooms.models import Room

    room = Room.objects.create(name="Pushes", slug=slug, game="lembar", seats=3, min_seats=2, turn_seconds=600)
    host, guest, watcher = (user_create(username=f"{slug}{k}", password="pass-word-123") for k in range(3))
    table = services.table_open(room=room, host=host)
    services.table_sit(table_id=table.pk, user=host)
    return table.pk, host, guest, watcher


@pytest.mark.django_db(transaction=True)
def test_sits_the_start_and_a_stop_are_numbered_and_pushed_to_every_socket(monkeypatch):
    """A socket opened before its player sat learns the seat; the start and the host's stop reach
    everyone, each as the next version (a client sees no gap, or a gap it can repair)."""
    from asgiref.sync import async_to_sync, sync_to_async

    from gameworkers import tasks
    from rooms import services

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    table_id, host, guest, watcher = _lembar_table("push")

    async def run():
        sockets = {u.username: await _socket(table_id, await sync_to_async(_cookie)(u)) for u in (host, guest, watcher)}
        first = {name: (await comm.receive_json_from(timeout=10)) for name, comm in sockets.items()}
        v = first[host.username]["version"]
        assert {f["version"] for f in first.values()} == {v} and first[guest.username]["seat"] is None

        await sync_to_async(services.table_sit)(table_id=table_id, user=guest)
        for name, comm in sockets.items():
            sat = (await _states_until(comm, lambda f: f["version"] > v))[-1]
            assert sat["version"] == v + 1 and len(sat["seats"]) == 2 and sat["status"] == "open"
            assert sat["seat"] == {host.username: 0, guest.username: 1}.get(name)

        await sync_to_async(services.table_start)(table_id=table_id, by=host)
        for comm in sockets.values():
            started = (await _states_until(comm, lambda f: f["version"] > v + 1))[-1]
            assert (started["version"], started["status"]) == (v + 2, "running")

        await sync_to_async(services.table_stop)(table_id=table_id, reason="host", by=host)
        for comm in sockets.values():
            stopped = (await _states_until(comm, lambda f: f["version"] > v + 2))[-1]
            assert (stopped["version"], stopped["status"], stopped["stop_reason"]) == (v + 3, "stopped", "host")
        for comm in sockets.values():
            await comm.disconnect()

    async_to_sync(run)()


@pytest.mark.django_db(transaction=True)
def test_a_socket_joining_while_a_change_is_in_flight_ends_with_the_latest_state(monkeypatch):
    """The connect snapshot is read, then a sit commits and is pushed before that snapshot is sent:
    the older snapshot must not be the last thing the client sees."""
    from asgiref.sync import async_to_sync, sync_to_async

    from live import consumers
    from rooms import services

    table_id, host, guest, watcher = _lembar_table("inflight")
    read_snapshot = consumers.TableConsumer.__dict__["_snapshot"].func  # the synchronous read

    async def snapshot_then_a_sit(self):
        taken = await sync_to_async(read_snapshot)(self)
        if not getattr(self, "raced", False):
            self.raced = True
            await sync_to_async(services.table_sit)(table_id=table_id, user=guest)
            await asyncio.sleep(0.5)  # the sit's frame reaches this socket through the relay first
        return taken

    monkeypatch.setattr(consumers.TableConsumer, "_snapshot", snapshot_then_a_sit)

    async def run():
        comm = await _socket(table_id, await sync_to_async(_cookie)(watcher))
        frames = []
        while not await comm.receive_nothing(timeout=1.0):
            frames.append(await comm.receive_json_from(timeout=10))
        states = [f for f in frames if f["type"] == "state"]
        assert states and len(states[-1]["seats"]) == 2  # the guest's seat, not the snapshot before it
        await comm.disconnect()

    async_to_sync(run)()
