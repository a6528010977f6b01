"""The queue websocket in process (channels' communicator) with the real Redis channel layer."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import Client

from config.asgi import application
from matchmaking import broadcast, services
from tests.wsrefusal import refusal_code

pytestmark = pytest.mark.django_db(transaction=True)
REAL_SEND = broadcast._send  # taken before the autouse fixture silences pushes


def _cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def _connect(cookie: bytes | None):
    headers = [(b"origin", b"http://127.0.0.1")] + ([(b"cookie", cookie)] if cookie else [])
    comm = WebsocketCommunicator(application, "/ws/queue/", headers=headers)
    connected, code = await comm.connect(timeout=10)
    return comm, connected, code


async def _frame(comm) -> dict:
    return json.loads(await comm.receive_from(timeout=10))


async def test_queue_frames_are_pushed_live(make_room, make_user, monkeypatch):
    monkeypatch.setattr(broadcast, "_send", REAL_SEND)
    room, user = await sync_to_async(make_room)(), await sync_to_async(make_user)()
    comm, connected, code = await _connect(None)
    assert await refusal_code(comm, connected, code) == 4401
    comm, connected, _ = await _connect(await sync_to_async(_cookie)(user))
    assert connected
    assert await _frame(comm) == {"type": "queue", "status": "none"}
    await sync_to_async(services.queue_join)(room=room, user=user)
    frame = await _frame(comm)
    assert (frame["type"], frame["status"], frame["room"], frame["position"]) == ("queue", "waiting", room.slug, 1)
    assert frame["estimated_wait"] >= 0 and frame["bots_after"] == room.fill_delay_seconds
    await comm.send_to(text_data=json.dumps({"type": "resync", "id": 7}))
    again = await _frame(comm)
    assert again["id"] == 7 and again["entry"] == frame["entry"]
    await comm.send_to(text_data="not json")
    assert (await _frame(comm))["code"] == "malformed"
    await comm.send_to(text_data=json.dumps({"type": "join"}))
    assert (await _frame(comm))["code"] == "unknown_type"
    await sync_to_async(services.queue_leave)(user=user)
    assert (await _frame(comm))["status"] == "left"
    await comm.disconnect()
    await sync_to_async(connections.close_all)()  # the sync thread's connection (PostgreSQL keeps it open)
