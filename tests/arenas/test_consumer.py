"""The arena socket: a snapshot on connect, the leaderboard pushed after commit, "your next game"
through the user group, codes for bad input and unknown arenas."""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from arenas.routing import websocket_urlpatterns
from tests.wsrefusal import refusal_code

pytestmark = pytest.mark.django_db(transaction=True)


def _app():
    return URLRouter(websocket_urlpatterns)


class _Authenticated:
    """Puts a user in the scope as the session middleware would."""

    def __init__(self, app, user):
        self.app, self.user = app, user

    async def __call__(self, scope, receive, send):
        return await self.app({**scope, "user": self.user}, receive, send)


async def _next(socket, kind: str, timeout: float = 5) -> dict:
    while True:
        frame = await socket.receive_json_from(timeout=timeout)
        if frame["type"] == kind:
            return frame


async def test_snapshot_pushes_and_bad_input(make_arena, make_user, settings, monkeypatch):
    settings.ARENA_PUSH_INTERVAL_S = 0  # every change pushed (the interval has its own test)
    from gameworkers import tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    arena = await sync_to_async(make_arena)(name="Evening arena")
    socket = WebsocketCommunicator(_app(), f"/ws/arenas/{arena.pk}/")
    connected, _ = await socket.connect()
    assert connected
    first = await socket.receive_json_from(timeout=5)
    assert first["type"] == "arena.standings" and first["status"] == "scheduled" and first["standings"] == []
    await socket.send_to(text_data="not json")
    assert (await socket.receive_json_from(timeout=5))["code"] == "malformed"
    from arenas import services

    ayla = await sync_to_async(make_user)()
    await sync_to_async(services.join)(arena_id=arena.pk, user=ayla)  # pushes after its commit
    pushed = await _next(socket, "arena.standings")
    assert [r["name"] for r in pushed["standings"]] == [ayla.public_name]
    await socket.send_json_to({"type": "resync", "id": 7})
    again = await _next(socket, "arena.standings")
    assert again["id"] == 7 and again["players"] == 1
    await socket.disconnect()
    missing = WebsocketCommunicator(_app(), "/ws/arenas/999999/")
    connected, code = await missing.connect()
    assert await refusal_code(missing, connected, code) == 4404


async def test_a_player_is_told_of_each_new_game_on_every_socket(make_arena, make_user, settings, monkeypatch):
    settings.ARENA_PUSH_INTERVAL_S = 0
    from arenas import services
    from gameworkers import tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    arena = await sync_to_async(make_arena)(starts_at=timezone.now() - timedelta(seconds=1))
    await sync_to_async(services.start)(arena_id=arena.pk)
    ayla, bora = await sync_to_async(make_user)(), await sync_to_async(make_user)()
    socket = WebsocketCommunicator(_Authenticated(_app(), ayla), f"/ws/arenas/{arena.pk}/")
    assert (await socket.connect())[0]
    await _next(socket, "arena.standings")
    await sync_to_async(services.join)(arena_id=arena.pk, user=ayla)
    await sync_to_async(services.join)(arena_id=arena.pk, user=bora)  # the two are paired
    seat = await _next(socket, "arena")
    from arenas.models import ArenaPlayer

    table = await sync_to_async(lambda: ArenaPlayer.objects.get(arena=arena, user=ayla).table_id)()
    assert seat == {"type": "arena", "arena": arena.pk, "table": table, "url": f"/arenas/{arena.pk}/play/"}
    board = await _next(socket, "arena.standings")
    assert board["playing"] == 2 and [g["table"] for g in board["games"]] == [table]
    await socket.disconnect()


def test_user_group_frames_travel_as_a_type_every_user_socket_handles():
    from arenas import broadcast
    from arenas.consumers import ArenaConsumer
    from live.consumers import TableConsumer
    from matchmaking.consumers import QueueConsumer

    handler = broadcast.USER_MESSAGE.replace(".", "_")
    for consumer in (TableConsumer, QueueConsumer, ArenaConsumer):
        assert hasattr(consumer, handler), consumer  # a consumer without the handler would die on it


def test_pushes_within_the_interval_wait_for_housekeeping(db, make_arena, settings, monkeypatch):
    from django.core.cache import cache

    from arenas import broadcast

    settings.ARENA_PUSH_INTERVAL_S = 1
    arena = make_arena()
    sent: list = []
    monkeypatch.setattr(broadcast, "publish", lambda messages: sent.extend(messages))
    cache.delete(f"arenas:pushed:{arena.pk}")
    broadcast.arena_changed(arena.pk)
    broadcast.arena_changed(arena.pk)  # inside the interval: held back, marked dirty
    assert [m[1]["type"] for m in sent] == ["arena.standings"]
    broadcast.flush(arena.pk)
    broadcast.flush(arena.pk)  # nothing more held back
    assert [m[1]["type"] for m in sent] == ["arena.standings", "arena.standings"]
    broadcast.arena_changed(arena.pk, seated=[(5, 9)])  # a seat frame is never held back
    frame = broadcast.seat_frame(arena_id=arena.pk, table_id=9)
    assert ("user.5", {"type": "tournament.table", "frame": frame}) in sent
