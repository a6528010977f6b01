"""The table websocket in process (channels' communicator) with the real Redis channel layer."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.services import user_create
from config.asgi import application
from rooms import services
from rooms.models import Room, Table
from tests.wsrefusal import refusal_code

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def enqueued(monkeypatch):
    """Moves that reach the move pool are recorded, not applied."""
    from gameworkers import tasks
    from live import move_pool

    calls: list = []

    async def play_async(**kwargs):
        calls.append(kwargs)
        return kwargs["expected_version"] + 1

    monkeypatch.setattr(move_pool, "play_async", play_async)
    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    return calls


def _session_cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def _connect(table_id: int, cookie: bytes | None, origin: bytes = b"http://127.0.0.1"):
    headers = [(b"origin", origin)]
    if cookie:
        headers.append((b"cookie", cookie))
    comm = WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)
    connected, code = await comm.connect(timeout=10)
    return comm, connected, code


def _setup():
    room = Room.objects.create(name="WS", slug="ws", game="lembar", seats=2, min_seats=2)
    a = user_create(username="wa", password="pass-word-123")
    b = user_create(username="wb", password="pass-word-123")
    watcher = user_create(username="ww", password="pass-word-123")
    table = services.table_open(room=room, host=a)
    services.table_sit(table_id=table.pk, user=a)
    services.table_sit(table_id=table.pk, user=b)
    return Table.objects.get(pk=table.pk), a, b, watcher


async def test_refuses_no_session_and_wrong_origin(enqueued):
    table, a, *_ = await sync_to_async(_setup)()
    comm, connected, code = await _connect(table.pk, None)
    assert await refusal_code(comm, connected, code) == 4401
    cookie = await sync_to_async(_session_cookie)(a)
    comm, connected, _ = await _connect(table.pk, cookie, origin=b"http://evil.example")
    assert not connected
    comm, connected, code = await _connect(999999, cookie)
    assert await refusal_code(comm, connected, code) == 4404


async def test_snapshot_on_connect_is_the_seats_own_view(enqueued):
    table, a, b, watcher = await sync_to_async(_setup)()
    comm, connected, _ = await _connect(table.pk, await sync_to_async(_session_cookie)(a))
    assert connected
    frame = await comm.receive_json_from(timeout=10)
    assert frame["type"] == "state" and frame["seat"] == 0 and frame["version"] == table.version
    assert frame["view"]["seat"] == 0 and table.seed_hex not in json.dumps(frame)
    await comm.disconnect()
    comm, connected, _ = await _connect(table.pk, await sync_to_async(_session_cookie)(watcher))
    frame = await comm.receive_json_from(timeout=10)
    assert frame["seat"] is None and frame["legal"] == [] and frame["version"] == table.version
    await comm.send_json_to({"type": "move", "move": {"type": "draw"}, "version": frame["version"], "id": "x1"})
    error = await comm.receive_json_from(timeout=10)
    assert error == {**error, "type": "error", "code": "not_seated", "id": "x1"}
    assert enqueued == []
    await comm.disconnect()


async def test_after_a_move_each_socket_gets_only_its_own_seats_frame(monkeypatch):
    """One layer message carries every seat's frame; each socket forwards only its own seat's (or the
    spectators'): a seat never sees another seat's hand, and the spectator sees no hand at all."""
    from gameworkers import tasks
    from gameworkers.engines import get_engine

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    table, a, b, watcher = await sync_to_async(_setup)()
    comms = {}
    start = table.version
    for name, user in (("a", a), ("b", b), ("watcher", watcher)):
        comms[name], connected, _ = await _connect(table.pk, await sync_to_async(_session_cookie)(user))
        assert connected
        assert (await comms[name].receive_json_from(timeout=10))["version"] == start
    seat = get_engine("lembar").to_act(table.state)[0]
    mover = comms["a" if seat == 0 else "b"]
    legal = get_engine("lembar").legal_moves(table.state, seat)
    await mover.send_json_to({"type": "move", "move": legal[0], "version": start})
    frames = {}
    for name in comms:
        frame = {}
        while frame.get("type") != "state":
            frame = await comms[name].receive_json_from(timeout=10)
        frames[name] = frame
    fresh = await sync_to_async(Table.objects.get)(pk=table.pk)
    assert fresh.version == start + 1
    for name, own in (("a", 0), ("b", 1), ("watcher", None)):
        frame = frames[name]
        assert frame["seat"] == own and frame["version"] == start + 1 and frame["view"]["seat"] == own
        if own is None:
            assert not frame["view"].get("hand")
        else:
            assert sorted(frame["view"]["hand"]) == sorted(fresh.state["hands"][own])
        assert table.seed_hex not in json.dumps(frame)
    assert frames["a"]["view"]["hand"] != frames["b"]["view"]["hand"]
    for comm in comms.values():
        await comm.disconnect()


@pytest.mark.parametrize("payload,code", [
    ("not json", "malformed"),
    ("[1, 2]", "malformed"),
    (json.dumps({"type": "move", "move": "draw", "version": 0}), "malformed"),
    (json.dumps({"type": "move", "move": {"type": "draw"}, "version": "0"}), "malformed"),
    (json.dumps({"type": "move", "move": {"type": "draw"}, "version": True}), "malformed"),
    (json.dumps({"type": "move", "move": {"type": "draw", "auto": True}, "version": 0}), "malformed"),
    (json.dumps({"type": "move", "move": {"type": "draw"}, "version": 0, "id": "x" * 65}), "malformed"),
    (json.dumps({"type": "hack"}), "unknown_type"),
    (json.dumps({"type": "move", "move": {"type": "x" * 5000}, "version": 0}), "too_large"),
])
async def test_bad_envelopes_get_error_frames_and_change_nothing(enqueued, payload, code):
    table, a, *_ = await sync_to_async(_setup)()
    comm, _, _ = await _connect(table.pk, await sync_to_async(_session_cookie)(a))
    await comm.receive_json_from(timeout=10)
    await comm.send_to(text_data=payload)
    error = await comm.receive_json_from(timeout=10)
    assert error["type"] == "error" and error["code"] == code and error["message"]
    assert enqueued == []
    fresh = await sync_to_async(Table.objects.get)(pk=table.pk)
    assert fresh.version == table.version and fresh.state == table.state
    await comm.disconnect()


async def test_too_fast_messages_are_rate_limited(enqueued):
    table, a, *_ = await sync_to_async(_setup)()
    comm, _, _ = await _connect(table.pk, await sync_to_async(_session_cookie)(a))
    await comm.receive_json_from(timeout=10)
    for i in range(12):
        await comm.send_json_to({"type": "ping", "id": i})
    replies = []
    while not await comm.receive_nothing(timeout=0.5):
        replies.append(await comm.receive_json_from(timeout=10))
    # The burst is answered, then one rate_limited frame stands for all the refused ones.
    assert [r.get("code") for r in replies if r["type"] == "error"] == ["rate_limited"]
    assert 8 <= sum(1 for r in replies if r["type"] == "pong") <= 9
    await comm.disconnect()


async def test_a_valid_looking_move_goes_to_the_move_pool_with_the_senders_seat(enqueued):
    table, a, b, _ = await sync_to_async(_setup)()
    comm, _, _ = await _connect(table.pk, await sync_to_async(_session_cookie)(b))
    await comm.receive_json_from(timeout=10)
    await comm.send_json_to({"type": "move", "move": {"type": "draw"}, "version": 3, "id": "m1"})
    await comm.receive_nothing(timeout=0.3)
    # The move pool re-checks under the table's lock that this user still holds that seat.
    assert enqueued == [{"table_id": table.pk, "seat_number": 1, "move": {"type": "draw"}, "expected_version": 3,
                         "user_id": b.pk}]
    await comm.disconnect()


async def test_a_move_is_applied_and_a_refused_one_is_answered_with_its_code_and_version(monkeypatch):
    """The real move pool: a legal move is broadcast as the next version; an illegal one changes
    nothing and is answered with the engine's code and the table's version."""
    from gameworkers import tasks
    from gameworkers.engines import get_engine

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    table, a, b, _ = await sync_to_async(_setup)()
    engine = get_engine("lembar")
    first = engine.to_act(table.state)[0]
    player = a if first == 0 else b
    comm, _, _ = await _connect(table.pk, await sync_to_async(_session_cookie)(player))
    frame = await comm.receive_json_from(timeout=10)
    start = frame["version"]
    assert frame["seat"] == first and frame["legal"] and start == table.version
    await comm.send_json_to({"type": "move", "move": {"type": "play", "card": "nope"}, "version": start, "id": "bad"})
    error = await comm.receive_json_from(timeout=10)
    assert error["type"] == "error" and error["id"] == "bad" and error["version"] == start
    assert error["code"] == "unknown_card"
    await comm.send_json_to({"type": "move", "move": frame["legal"][0], "version": start, "id": "good"})
    frames = []
    while not frames or frames[-1].get("type") != "state":
        frames.append(await comm.receive_json_from(timeout=10))
    assert frames[-1]["version"] == start + 1
    await comm.send_json_to({"type": "move", "move": frame["legal"][0], "version": start, "id": "again"})
    error = await comm.receive_json_from(timeout=10)
    # (this socket was already sent the next version: no fresh state follows)
    assert (error["type"], error["code"], error["id"], error["version"]) == (
        "error", "stale_version", "again", start + 1)
    assert (await sync_to_async(Table.objects.get)(pk=table.pk)).version == start + 1
    await comm.disconnect()


async def test_logging_out_closes_the_users_sockets(enqueued):
    table, a, *_ = await sync_to_async(_setup)()
    client = Client()
    await sync_to_async(client.force_login)(a)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    comm, connected, _ = await _connect(table.pk, cookie)
    await comm.receive_json_from(timeout=10)
    await sync_to_async(client.post)("/accounts/logout/")
    output = await comm.receive_output(timeout=10)
    assert output["type"] == "websocket.close" and output.get("code") == 4401


async def test_a_private_table_is_hidden_from_strangers(enqueued):
    def setup():
        room = Room.objects.create(name="P", slug="p", game="lembar", seats=2, min_seats=2)
        host = user_create(username="ph", password="pass-word-123")
        stranger = user_create(username="ps", password="pass-word-123")
        table = services.table_open(room=room, host=host, private=True)
        return table, stranger

    table, stranger = await sync_to_async(setup)()
    cookie = await sync_to_async(_session_cookie)(stranger)
    comm, connected, code = await _connect(table.pk, cookie)
    assert await refusal_code(comm, connected, code) == 4404
    comm = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/?invite={table.invite_code}",
                                 headers=[(b"origin", b"http://127.0.0.1"), (b"cookie", cookie)])
    connected, _ = await comm.connect(timeout=10)
    assert connected
    frame = await comm.receive_json_from(timeout=10)
    assert frame["seat"] is None
    await comm.disconnect()


def _renumbered_setup():
    """A 3-seat table where the host sits at seat 1 with seat 0 empty; the guest takes seat 2."""
    room = Room.objects.create(name="WS3", slug="ws3", game="lembar", seats=3, min_seats=2)
    host = user_create(username="rh", password="pass-word-123")
    guest = user_create(username="rg", password="pass-word-123")
    table = services.table_open(room=room, host=host)
    services.table_sit(table_id=table.pk, user=host, seat_number=1)
    services.table_sit(table_id=table.pk, user=guest, seat_number=2)
    return table, host, guest


async def test_a_socket_follows_its_seat_when_the_start_renumbers_and_ignores_stale_notices(enqueued):
    from channels.layers import get_channel_layer

    from rooms import broadcast

    table, host, guest = await sync_to_async(_renumbered_setup)()
    comm, connected, _ = await _connect(table.pk, await sync_to_async(_session_cookie)(host))
    assert connected
    assert (await comm.receive_json_from(timeout=10))["seat"] == 1
    await sync_to_async(services.table_start)(table_id=table.pk, by=host)  # seats close up: host 0, guest 1
    # Notices from different processes may arrive in any order: send an extra, late one.
    await get_channel_layer().group_send(broadcast.all_group(table.pk),
                                         {"type": "table.seats", "table": table.pk, "version": 0})
    seen = []
    while not await comm.receive_nothing(timeout=1.5):  # (a receive that times out kills the app)
        frame = await comm.receive_json_from(timeout=5)
        if frame.get("type") == "state":
            seen.append((frame["seat"], frame["status"]))
    assert seen and seen[-1] == (0, "running"), seen
    assert (1, "running") not in seen, seen  # never the guest's seat once the start renumbered
    await comm.disconnect()


async def test_a_socket_forwards_its_users_frame_whatever_seat_it_last_heard_of(enqueued):
    """Frames are keyed by user: a socket that has not yet heard that the start renumbered the seats
    still forwards only its own user's frame, and a user who holds no seat (left, removed) gets the
    spectators' frame, never another player's."""
    from channels.layers import get_channel_layer

    from rooms import broadcast

    table, host, guest = await sync_to_async(_renumbered_setup)()
    comm, connected, _ = await _connect(table.pk, await sync_to_async(_session_cookie)(host))
    assert connected and (await comm.receive_json_from(timeout=10))["seat"] == 1
    layer = get_channel_layer()
    frames = {str(host.pk): json.dumps({"type": "state", "who": "host"}),
              str(guest.pk): json.dumps({"type": "state", "who": "guest"}),
              broadcast.WATCH: json.dumps({"type": "state", "who": "spectators"})}
    # Renumbered: the host is now seat 0 and the guest seat 1 (the socket still thinks "1").
    await layer.group_send(broadcast.all_group(table.pk), {"type": "table.state", "table": table.pk, "version": 7,
                                                          "frames": frames, "events": None,
                                                          "seats": {str(host.pk): 0, str(guest.pk): 1}})
    assert (await comm.receive_json_from(timeout=10))["who"] == "host"
    del frames[str(host.pk)]  # the host left the game
    await layer.group_send(broadcast.all_group(table.pk), {"type": "table.state", "table": table.pk, "version": 8,
                                                          "frames": frames, "seats": {str(guest.pk): 1},
                                                          "events": None})
    assert (await comm.receive_json_from(timeout=10))["who"] == "spectators"
    await comm.send_json_to({"type": "move", "move": {"type": "draw"}, "version": 8, "id": "late"})
    error = await comm.receive_json_from(timeout=10)
    assert (error["code"], error["id"]) == ("not_seated", "late") and enqueued == []
    await comm.disconnect()


async def test_a_move_that_fails_unexpectedly_is_answered_and_the_socket_stays(monkeypatch):
    from gameworkers import tasks
    from live import move_pool

    async def database_down(**kwargs):
        raise RuntimeError("connection refused")

    monkeypatch.setattr(move_pool, "play_async", database_down)
    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    table, a, *_ = await sync_to_async(_setup)()
    comm, _, _ = await _connect(table.pk, await sync_to_async(_session_cookie)(a))
    frame = await comm.receive_json_from(timeout=10)
    await comm.send_json_to({"type": "move", "move": {"type": "draw"}, "version": frame["version"], "id": "m"})
    error = await comm.receive_json_from(timeout=10)
    assert (error["type"], error["code"], error["id"]) == ("error", "unavailable", "m")
    await comm.send_json_to({"type": "ping", "id": "still"})
    assert await comm.receive_json_from(timeout=10) == {"type": "pong", "id": "still"}
    await comm.disconnect()


async def test_a_connect_that_fails_after_joining_leaves_the_relay(enqueued, monkeypatch):
    from channels.layers import get_channel_layer

    from live import relay
    from live.consumers import TableConsumer

    table, a, *_ = await sync_to_async(_setup)()

    async def snapshot_fails(self, client_id=None):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(TableConsumer, "_send_snapshot", snapshot_fails)
    comm = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/",
                                 headers=[(b"origin", b"http://127.0.0.1"),
                                          (b"cookie", await sync_to_async(_session_cookie)(a))])
    connected, _ = await comm.connect(timeout=10)  # accepted first, then joined, then the snapshot fails
    assert connected
    with pytest.raises(RuntimeError):
        await comm.wait(timeout=10)
    hub = relay.for_running_loop(get_channel_layer())
    assert table.pk not in hub.sockets  # without the cleanup the socket stayed joined for good


async def test_protocol_2_gets_a_moves_event_and_state_in_one_frame_protocol_1_in_two(monkeypatch):
    """docs/protocol.md: a socket opened with ``?protocol=2`` receives a move's `event` and `state` frames
    as one websocket frame (a JSON array, in that order); the default protocol 1 keeps two frames."""
    from gameworkers import tasks
    from gameworkers.engines import get_engine

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    table, a, b, _ = await sync_to_async(_setup)()
    start = table.version
    batched = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/?protocol=2",
                                    headers=[(b"origin", b"http://127.0.0.1"),
                                             (b"cookie", await sync_to_async(_session_cookie)(a))])
    assert (await batched.connect(timeout=10))[0]
    plain, connected, _ = await _connect(table.pk, await sync_to_async(_session_cookie)(b))
    assert connected
    for comm in (batched, plain):
        assert (await comm.receive_json_from(timeout=10))["version"] == start  # the snapshot: a plain frame
    seat = get_engine("lembar").to_act(table.state)[0]
    mover = batched if seat == 0 else plain
    await mover.send_json_to({"type": "move", "move": get_engine("lembar").legal_moves(table.state, seat)[0],
                              "version": start})
    both = json.loads(await batched.receive_from(timeout=10))
    assert [f["type"] for f in both] == ["event", "state"] and {f["version"] for f in both} == {start + 1}
    assert both[1]["seat"] == 0 and both[1]["view"]["seat"] == 0
    first = json.loads(await plain.receive_from(timeout=10))
    second = json.loads(await plain.receive_from(timeout=10))
    assert (first["type"], second["type"]) == ("event", "state") and second["seat"] == 1
    assert first["events"] == both[0]["events"]
    for comm in (batched, plain):
        await comm.disconnect()
