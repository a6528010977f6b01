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
    # each leaderboard push updates the lobby's arena card too (the lobby socket's forwarding type)
    from tournaments.broadcast import LOBBY_GROUP

    pushes = [(broadcast.group(arena.pk), "arena.standings"), (LOBBY_GROUP, "tournament.card")]
    assert [(m[0], m[1]["type"]) for m in sent] == pushes
    assert sent[1][1]["frame"]["type"] == "arena.card" and sent[1][1]["frame"]["card"]["id"] == arena.pk
    broadcast.flush(arena.pk)
    broadcast.flush(arena.pk)  # nothing more held back
    assert [m[1]["type"] for m in sent] == ["arena.standings", "tournament.card"] * 2
    broadcast.arena_changed(arena.pk, seated=[(5, 9)])  # a seat frame is never held back
    frame = broadcast.seat_frame(arena_id=arena.pk, table_id=9)
    assert ("user.5", {"type": "tournament.table", "frame": frame}) in sent


def test_a_scheduled_arenas_held_back_joins_reach_the_lobby_within_a_housekeeping_pass(
        db, make_arena, make_user, settings, monkeypatch):
    """Joins to an arena that has not started come within the push interval of each other: the last ones
    were held back until the start (the kick looked only at running or due arenas)."""
    from django.core.cache import cache

    from arenas import broadcast, services, tasks

    settings.ARENA_PUSH_INTERVAL_S = 1
    arena = make_arena()  # starts in an hour
    sent: list = []
    monkeypatch.setattr(broadcast, "publish", lambda messages: sent.extend(messages))
    cache.delete_many([f"arenas:pushed:{arena.pk}", broadcast.HELD_BACK_KEY, tasks.KICK_KEY])
    kicked: list = []
    monkeypatch.setattr(tasks.housekeeping, "delay", lambda: kicked.append(1))
    assert tasks.kick() is False and not kicked  # nothing running, nothing due, nothing held back

    for _ in range(2):
        services.join(arena_id=arena.pk, user=make_user())
    cards = [m[1]["frame"]["card"] for m in sent if m[1]["type"] == broadcast.LOBBY_MESSAGE]
    assert len(cards) == 1  # the second join was held back
    cache.delete(tasks.KICK_KEY)
    assert tasks.kick() is True and kicked  # the timer's next sweep
    services.housekeeping()
    cards = [m[1]["frame"]["card"] for m in sent if m[1]["type"] == broadcast.LOBBY_MESSAGE]
    assert [c["players"] for c in cards] == [1, 2]  # the second join reached the lobby card
    sent.clear()
    services.housekeeping()  # nothing held back any more: nothing pushed
    assert sent == []


async def test_the_lobby_socket_sends_the_arena_cards_then_each_change(make_arena, make_user, settings, monkeypatch):
    """The lobby's one socket (/ws/tournaments/lobby/) carries the arena cards too: all of them on connect
    and on resync, then the changed one with every leaderboard push (players, status, window, leader)."""
    settings.ARENA_PUSH_INTERVAL_S = 0
    from arenas import services
    from frontend.routing import websocket_urlpatterns as lobby_patterns
    from gameworkers import tasks
    from tests.arenas.conftest import finish_table

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    arena = await sync_to_async(make_arena)(name="Lobby arena", table_seats=2)
    socket = WebsocketCommunicator(URLRouter(lobby_patterns), "/ws/tournaments/lobby/")
    connected, _ = await socket.connect()
    assert connected
    first = await _next(socket, "arena.cards")
    assert [c["id"] for c in first["cards"]] == [arena.pk]
    card = first["cards"][0]
    assert card["status"] == "scheduled" and card["players"] == 0 and card["leader"] is None
    assert card["ends_at"] == arena.ends_at.isoformat() and "server_time" in card

    ayla, deniz = [await sync_to_async(make_user)() for _ in range(2)]
    await sync_to_async(services.join)(arena_id=arena.pk, user=ayla)  # pushes after its commit
    pushed = await _next(socket, "arena.card")
    assert pushed["card"]["id"] == arena.pk and pushed["card"]["players"] == 1
    await sync_to_async(services.join)(arena_id=arena.pk, user=deniz)
    assert (await _next(socket, "arena.card"))["card"]["players"] == 2
    await sync_to_async(services.start)(arena_id=arena.pk, force=True)  # pairs the two
    started = await _next(socket, "arena.card")
    assert started["card"]["status"] == "running" and started["card"]["leader"] is None

    from arenas.models import ArenaGame

    game = await sync_to_async(ArenaGame.objects.get)(arena=arena)
    winner_seat = game.players.index(next(p for p in game.players if p))
    ranks = [1 if seat == winner_seat else 2 for seat in range(len(game.players))]
    await sync_to_async(finish_table)(game.table_id, ranks)
    await sync_to_async(services.game_over)(table_id=game.table_id)
    scored = await _next(socket, "arena.card")
    from arenas.models import ArenaPlayer

    top = await sync_to_async(lambda: ArenaPlayer.objects.select_related("user").get(pk=game.players[winner_seat]))()
    assert scored["card"]["leader"] == {"name": top.user.public_name, "score": top.score} and top.score > 0
    await socket.send_json_to({"type": "resync", "id": 5})
    again = await _next(socket, "arena.cards")
    assert again["id"] == 5 and again["cards"][0]["leader"]["name"] == top.user.public_name
    await socket.disconnect()
