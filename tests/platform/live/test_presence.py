"""A seated player's connection at the table socket (channels' communicator, the real Redis layer): a drop
is told to the others ("reconnecting…"), a snapshot lists the seats whose player is away, a return is
told too, and a player still away when their time runs out gets the grace (docs/protocol.md, "Time bank
and reconnecting")."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client, override_settings

from accounts.services import user_create
from config.asgi import application
from gameworkers.engines import get_engine
from rooms import selectors, services
from rooms.models import Room, Table
from tests.conftest import make_due

pytestmark = pytest.mark.django_db(transaction=True)


def _cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def _connect(table_id: int, user) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://127.0.0.1"), (b"cookie", await sync_to_async(_cookie)(user))]
    comm = WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)
    connected, _ = await comm.connect(timeout=10)
    assert connected
    return comm


async def _next(comm: WebsocketCommunicator, kind: str) -> dict:
    """The next frame of that type (state and event frames of other changes may come between)."""
    for _ in range(20):
        frame = await comm.receive_json_from(timeout=10)
        if frame["type"] == kind:
            return frame
    raise AssertionError(f"no {kind} frame")


def _setup() -> tuple[Table, dict, object]:
    room = Room.objects.create(name="Presence", slug="presence", game="lembar", seats=2, min_seats=2,
                               turn_seconds=600)
    a = user_create(username="pa", password="pass-word-123")
    b = user_create(username="pb", password="pass-word-123")
    watcher = user_create(username="pw", password="pass-word-123")
    table = services.table_open(room=room, host=a)
    services.table_sit(table_id=table.pk, user=a)
    services.table_sit(table_id=table.pk, user=b)  # full: it starts
    table = Table.objects.select_related("room").get(pk=table.pk)
    on_turn = get_engine("lembar").deadline(table.state)["seat"]
    users = {e["seat"]: (a if e["user_id"] == a.pk else b) for e in table.seating}
    return table, {"on_turn": users[on_turn], "waiting": users[1 - on_turn]}, watcher


@override_settings(RECONNECT_GRACE_S=15)
async def test_a_drop_is_told_to_the_others_and_a_return_too():
    table, players, watcher = await sync_to_async(_setup)()
    waiting, on_turn = players["waiting"], players["on_turn"]
    seat = await sync_to_async(selectors.seat_number_of)(table=table, user_id=waiting.pk)
    other = await _connect(table.pk, on_turn)
    assert (await _next(other, "state"))["away"] == []
    player = await _connect(table.pk, waiting)
    await _next(player, "state")
    assert await other.receive_nothing(timeout=0.3)  # a first connect is not news
    await player.disconnect()
    assert await _next(other, "presence") == {"type": "presence", "seat": seat, "connected": False}
    # Someone connecting now learns it from the snapshot.
    spectator = await _connect(table.pk, watcher)
    assert (await _next(spectator, "state"))["away"] == [seat]
    # Not that seat's turn: its deadline is not touched.
    fresh = await sync_to_async(Table.objects.get)(pk=table.pk)
    assert fresh.deadline_at == table.deadline_at and fresh.version == table.version
    player = await _connect(table.pk, waiting)
    assert (await _next(player, "state"))["away"] == []
    assert await _next(other, "presence") == {"type": "presence", "seat": seat, "connected": True}
    assert await _next(spectator, "presence") == {"type": "presence", "seat": seat, "connected": True}
    for comm in (player, other, spectator):
        await comm.disconnect()


def _fire_now(table_id: int) -> bool:
    """The timer fires the table's deadline as if it were due now (as the timer tests do)."""
    from datetime import timedelta

    from django.utils import timezone

    table = Table.objects.get(pk=table_id)
    make_due(table_id, at=timezone.now() - timedelta(seconds=1))
    return services.table_fire_deadline(table_id=table_id, expected_version=table.version)


@override_settings(RECONNECT_GRACE_S=15)
async def test_the_player_on_turn_away_when_their_time_runs_out_gets_the_grace():
    table, players, _ = await sync_to_async(_setup)()
    on_turn, waiting = players["on_turn"], players["waiting"]
    seat = await sync_to_async(selectors.seat_number_of)(table=table, user_id=on_turn.pk)
    other = await _connect(table.pk, waiting)
    await _next(other, "state")
    player = await _connect(table.pk, on_turn)
    await _next(player, "state")
    # A drop by itself buys no time (else a page reload would).
    await player.disconnect()
    assert await _next(other, "presence") == {"type": "presence", "seat": seat, "connected": False}
    fresh = await sync_to_async(Table.objects.get)(pk=table.pk)
    assert fresh.deadline_at == table.deadline_at
    # Away when it runs out: the grace, told to the others as the same version with a later deadline.
    assert not await sync_to_async(_fire_now)(table.pk)
    frame = await _next(other, "state")
    assert frame["version"] == table.version and frame["deadline_seat"] == seat
    assert [s["grace"] for s in frame["seats"] if s["seat"] == seat][0][1] == 15_000
    # Back within the grace and away again at its end: no second grace, the automatic move.
    player = await _connect(table.pk, on_turn)
    assert (await _next(player, "state"))["away"] == []
    assert await _next(other, "presence") == {"type": "presence", "seat": seat, "connected": True}
    await player.disconnect()
    assert await _next(other, "presence") == {"type": "presence", "seat": seat, "connected": False}
    assert await sync_to_async(_fire_now)(table.pk)
    assert (await _next(other, "state"))["version"] > table.version
    await other.disconnect()


async def test_one_refresh_says_every_seated_socket_of_the_process_is_alive(monkeypatch):
    from django.core.cache import cache

    from live import consumers

    monkeypatch.setattr(consumers, "PRESENCE_REFRESH_S", 0.1)
    table, players, watcher = await sync_to_async(_setup)()
    comms = [await _connect(table.pk, user) for user in (*players.values(), watcher)]
    keeper = consumers.presence_keeper()
    seated = {(table.pk, user.pk) for user in players.values()}
    assert set(keeper.sockets) == seated  # the spectator is not watched
    stale = await sync_to_async(services.now_ms)() - selectors.PRESENCE_FRESH_S * 1000 - 1
    for user in players.values():  # as if nobody had been heard from for a minute
        await sync_to_async(cache.set)(selectors.presence_keys(table_id=table.pk, user_id=user.pk)[1], stale)
    calls = []
    real = services.tables_alive
    monkeypatch.setattr(services, "tables_alive", lambda **kw: calls.append(kw) or real(**kw))
    for _ in range(50):
        if calls:
            break
        await asyncio.sleep(0.05)
    assert calls and set(calls[0]["connections"]) == seated  # one call for all of them
    for user in players.values():
        assert await sync_to_async(selectors.presence)(table_id=table.pk, user_id=user.pk) == selectors.ONLINE
    await comms[0].disconnect()
    assert set(keeper.sockets) == seated - {(table.pk, players["on_turn"].pk)}
    for comm in comms[1:]:
        await comm.disconnect()
    assert not keeper.sockets


def _redis_clients_on_this_db() -> int:
    import redis
    from django.conf import settings

    url = settings.CACHES["default"]["LOCATION"]
    db = redis.Redis.from_url(url).connection_pool.connection_kwargs.get("db", 0)
    return sum(1 for c in redis.Redis.from_url(url).client_list() if int(c.get("db", -1)) == db)


async def test_sockets_do_not_each_hold_a_redis_connection():
    """Each socket touches the cache (its abuse back-off, its presence); Django's per-task cache object
    gave each its own connection pool, held for the socket's life (core.cache)."""
    table, players, watcher = await sync_to_async(_setup)()
    users = [*players.values(), watcher]
    comms = [await _connect(table.pk, users[i % 3]) for i in range(3)]
    before = await sync_to_async(_redis_clients_on_this_db)()
    comms += [await _connect(table.pk, users[i % 3]) for i in range(30)]
    after = await sync_to_async(_redis_clients_on_this_db)()
    assert after - before < 5, (before, after)
    for comm in comms:
        await comm.disconnect()
