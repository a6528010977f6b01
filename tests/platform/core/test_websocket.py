"""Every socket (table, queue, tournament) checks client frames the same way (core.websocket).

Through the real ASGI application and channel layer: bad input gets an error frame and leaves the
socket working; a flood gets one ``rate_limited`` frame per burst, and a client that keeps flooding is
closed with 4429 and refused on reconnecting for a while.
"""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import timezone

from accounts.services import user_create
from arenas import services as arena_services
from config.asgi import application
from core import websocket
from rooms import services as room_services
from rooms.models import Room
from tests.wsrefusal import refusal_code
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db(transaction=True)

SOCKETS = ["table", "queue", "tournament", "tournament-anonymous", "arena", "lobby"]


def _world() -> dict:
    """A user with a session, an open table they host and a tournament: one path per socket."""
    user = user_create(username="flooder", password="pass-word-123")
    client = Client()
    client.force_login(user)
    room = Room.objects.create(name="Lembar", slug="ws-lembar", game="lembar", seats=2, min_seats=2)
    table = room_services.table_open(room=room, host=user)
    t_room = Room.objects.create(name="31", slug="ws-otuzbir", game="otuzbir", seats=7, min_seats=2)
    tournament = tournament_services.tournament_create(name="Freezeout", room=t_room,
                                                       starts_at=timezone.now() + timedelta(hours=1))
    a_room = Room.objects.create(name="Lembar arena", slug="ws-arena", game="lembar", seats=4, min_seats=2)
    arena = arena_services.arena_create(name="Arena", room=a_room, starts_at=timezone.now() + timedelta(hours=2))
    return {"cookie": f"sessionid={client.cookies['sessionid'].value}".encode(),
            "paths": {"table": f"/ws/tables/{table.pk}/", "queue": "/ws/queue/",
                      "tournament": f"/ws/tournaments/{tournament.pk}/",
                      "tournament-anonymous": f"/ws/tournaments/{tournament.pk}/",
                      "arena": f"/ws/arenas/{arena.pk}/", "lobby": "/ws/tournaments/lobby/"}}


async def _open(world: dict, socket: str) -> tuple[WebsocketCommunicator, bool, int | None]:
    headers = [(b"origin", b"http://127.0.0.1")]
    if socket != "tournament-anonymous":
        headers.append((b"cookie", world["cookie"]))
    comm = WebsocketCommunicator(application, world["paths"][socket], headers=headers)
    connected, code = await comm.connect(timeout=10)
    return comm, connected, code


async def _connect(world: dict, socket: str) -> WebsocketCommunicator:
    comm, connected, _ = await _open(world, socket)
    assert connected
    for _ in range(2 if socket == "lobby" else 1):  # the snapshot (the lobby's: tournament and arena cards)
        await comm.receive_json_from(timeout=10)
    return comm


async def _answer(comm: WebsocketCommunicator, text: str) -> dict:
    await comm.send_to(text_data=text)
    return await comm.receive_json_from(timeout=10)


@pytest.mark.parametrize("socket", SOCKETS)
async def test_bad_frames_get_an_error_frame_and_the_socket_keeps_working(socket):
    world = await sync_to_async(_world)()
    comm = await _connect(world, socket)
    nested = "[" * 500 + "]" * 500  # 1,000 bytes: under every size limit, deeper than the decoder goes
    assert (await _answer(comm, nested))["code"] == "malformed"
    assert (await _answer(comm, "not json"))["code"] == "malformed"
    assert (await _answer(comm, "[1, 2]"))["code"] == "malformed"
    assert (await _answer(comm, json.dumps({"id": 1})))["code"] == "malformed"
    assert (await _answer(comm, json.dumps({"type": "ping", "id": "x" * 65})))["code"] == "malformed"
    assert (await _answer(comm, json.dumps({"type": "ping", "pad": "x" * 5000})))["code"] == "too_large"
    assert (await _answer(comm, json.dumps({"type": "dance", "id": 3}))) == {
        **({"version": 0} if socket == "table" else {}),
        "type": "error", "code": "unknown_type", "message": "Unknown message type.", "id": 3}
    await asyncio.sleep(0.6)  # the burst allowance (8 frames) is spent; let two more tokens come in
    assert await _answer(comm, json.dumps({"type": "ping", "id": "p"})) == {"type": "pong", "id": "p"}
    resynced = await _answer(comm, json.dumps({"type": "resync", "id": "r"}))
    assert resynced["id"] == "r" and resynced["type"] != "error"
    await comm.disconnect()


@pytest.mark.parametrize("socket", SOCKETS)
async def test_a_burst_gets_one_rate_limited_frame_not_one_per_frame(socket):
    world = await sync_to_async(_world)()
    comm = await _connect(world, socket)
    for i in range(20):  # a burst of 20: 8 answered, 12 refused, far from the abuse threshold
        await comm.send_to(text_data=json.dumps({"type": "ping", "id": i}))
    frames = []
    while not await comm.receive_nothing(timeout=0.5):
        frames.append(await comm.receive_json_from(timeout=10))
    pongs = [f for f in frames if f["type"] == "pong"]
    limited = [f for f in frames if f.get("code") == "rate_limited"]
    assert len(limited) == 1 and 8 <= len(pongs) <= 9 and len(frames) == len(pongs) + 1
    await comm.disconnect()


@pytest.mark.parametrize("socket", SOCKETS)
async def test_a_sustained_flood_closes_the_socket_and_refuses_reconnecting(socket):
    world = await sync_to_async(_world)()
    comm = await _connect(world, socket)
    for i in range(websocket.ABUSE_REFUSALS + 20):
        await comm.send_to(text_data=json.dumps({"type": "ping", "id": i}))
    outputs = []
    while True:
        out = await comm.receive_output(timeout=10)
        outputs.append(out)
        if out["type"] == "websocket.close":
            break
    assert outputs[-1]["code"] == websocket.CLOSE_ABUSE
    errors = [json.loads(o["text"]) for o in outputs[:-1] if "error" in o["text"]]
    assert [e["code"] for e in errors] == ["rate_limited"]  # one, not one per refused frame
    # Every socket of that user (or, for a visitor, that address) is refused while it backs off.
    for other in {socket, "queue" if socket != "tournament-anonymous" else "tournament-anonymous"}:
        again, connected, code = await _open(world, other)
        assert await refusal_code(again, connected, code) == websocket.CLOSE_ABUSE


@pytest.mark.parametrize("path", ["/ws/nowhere/", "/ws/tables/abc/", "/"])
async def test_a_path_no_socket_serves_is_refused_with_4404(path):
    comm = WebsocketCommunicator(application, path, headers=[(b"origin", b"http://127.0.0.1")])
    connected, code = await comm.connect(timeout=10)
    assert await refusal_code(comm, connected, code) == websocket.CLOSE_NO_SUCH
