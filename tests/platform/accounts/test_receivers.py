"""Losing access closes a user's sockets (issue 23 #6): deactivation (a ban) and a password change send
``user.logout`` to the user's group after the commit, as logging out does; the move path refuses an
inactive account even on a socket that is still open. Sockets through the real channel layer."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import transaction
from django.test import Client

from accounts import services
from accounts.services import user_create
from config.asgi import application
from core.api import http_status
from gameworkers.engines import get_engine
from live import move_pool
from rooms import broadcast
from rooms import services as rooms_services
from rooms.errors import TableError
from rooms.models import Room, Table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_celery(monkeypatch):
    from gameworkers import tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)


def _cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def _connect(table_id: int, cookie: bytes) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(application, f"/ws/tables/{table_id}/",
                                 headers=[(b"origin", b"http://127.0.0.1"), (b"cookie", cookie)])
    connected, _ = await comm.connect(timeout=10)
    assert connected
    await comm.receive_json_from(timeout=10)  # the snapshot
    return comm


async def _pong(comm: WebsocketCommunicator, ping_id: str) -> None:
    await comm.send_to(text_data=json.dumps({"type": "ping", "id": ping_id}))
    while True:
        out = await comm.receive_output(timeout=10)
        assert out["type"] == "websocket.send", f"closed by the server: {out}"
        if json.loads(out["text"]).get("id") == ping_id:
            return


def _running_table(slug: str = "ban"):
    room = Room.objects.create(name="Ban", slug=slug, game="lembar", seats=2, min_seats=2, turn_seconds=600)
    users = [user_create(username=f"{slug}{i}", password="pass-word-123") for i in range(2)]
    table = rooms_services.table_open(room=room, host=users[0])
    for user in users:
        rooms_services.table_sit(table_id=table.pk, user=user)
    return Table.objects.get(pk=table.pk), users


def _deactivate(user) -> None:
    services.user_deactivate(user=user)


def _new_password(user) -> None:
    user.set_password("a-new-secret-77")
    user.save()


@pytest.mark.parametrize("lose_access", [_deactivate, _new_password], ids=["deactivated", "password_changed"])
def test_losing_access_closes_the_users_sockets_and_only_theirs(lose_access):
    table, users = _running_table()
    cookie0, cookie1 = _cookie(users[0]), _cookie(users[1])

    async def run():
        mine = [await _connect(table.pk, cookie0) for _ in range(2)]
        other = await _connect(table.pk, cookie1)
        await sync_to_async(lose_access)(users[0])
        for comm in mine:
            assert await comm.receive_output(timeout=10) == {"type": "websocket.close", "code": 4401}
        await _pong(other, "still-here")
        await other.disconnect()

    async_to_sync(run)()


def test_a_new_bot_is_no_password_change(monkeypatch, django_capture_on_commit_callbacks):
    """A bot is made with its unusable password at once: nothing to close (a management command such as
    seed_demo makes bots before any Redis runs)."""
    sent: list = []
    monkeypatch.setattr(broadcast, "publish", lambda messages: sent.extend(messages))
    with django_capture_on_commit_callbacks(execute=True):
        bot = services.bot_create(username="quiet-bot", display_name="Quiet", style="random", description="R.")
    assert sent == [] and not bot.has_usable_password()


def test_the_sockets_close_after_the_commit_and_only_for_access_changes(monkeypatch):
    sent: list = []
    monkeypatch.setattr(broadcast, "publish", lambda messages: sent.extend(messages))
    user = user_create(username="gone", password="pass-word-123")
    user.display_name = "Still here"
    user.save()
    user.save(update_fields=["last_login"])
    assert sent == []  # not an access change
    with transaction.atomic():
        services.user_deactivate(user=user)
        assert sent == []  # not before the commit
    assert sent == [(broadcast.user_group(user.pk), {"type": "user.logout"})]
    sent.clear()
    other = user_create(username="kept", password="pass-word-123")
    with pytest.raises(RuntimeError), transaction.atomic():
        other.set_password("another-pass-88")
        other.save()
        raise RuntimeError("rolled back")
    assert sent == []  # a change that never committed closes nothing


def test_a_deactivated_users_move_is_refused_on_the_move_path():
    table, users = _running_table()
    seat = get_engine("lembar").to_act(table.state)[0]
    services.user_deactivate(user=users[seat])
    move = get_engine("lembar").legal_moves(table.state, seat)[0]
    with pytest.raises(TableError) as refused:
        move_pool.play(table_id=table.pk, seat_number=seat, move=move, expected_version=table.version,
                       user_id=users[seat].pk)
    assert (refused.value.code, http_status(refused.value)) == ("account_inactive", 403)
    assert Table.objects.get(pk=table.pk).version == table.version


def test_a_socket_left_open_after_a_ban_cannot_play(monkeypatch):
    """The close message is lost (the layer is lossy): the socket's moves are still refused."""
    monkeypatch.setattr(broadcast, "close_user_sockets", lambda *a, **k: None)
    table, users = _running_table()
    engine = get_engine("lembar")
    seat = engine.to_act(table.state)[0]
    move = engine.legal_moves(table.state, seat)[0]
    cookie = _cookie(users[seat])

    async def run():
        comm = await _connect(table.pk, cookie)
        await sync_to_async(services.user_deactivate)(user=users[seat])
        for attempt in ("m1", "m2"):
            await comm.send_to(text_data=json.dumps({"type": "move", "move": move, "version": table.version,
                                                     "id": attempt}))
            frame = await comm.receive_json_from(timeout=10)
            assert (frame["type"], frame["code"], frame["id"]) == ("error", "account_inactive", attempt)
        await comm.disconnect()

    async_to_sync(run)()
    assert Table.objects.get(pk=table.pk).version == table.version
