"""Watching a table: spectators at a table watched late get every frame `delay` seconds after the players,
the spectator count is shared by every process, and the lobby's "Live now" lists only public tables.

Through Channels' communicator with the real Redis channel layer, like test_consumers.py."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.services import bot_create, user_create
from chat import services as chat_services
from config.asgi import application
from gameworkers.engines import get_engine
from live import relay
from rooms import selectors, services
from rooms.models import Room, StakeKind, Table

pytestmark = pytest.mark.django_db(transaction=True)

DELAY = 1  # the test rooms' spectator delay (s, a whole number like the field): short, so the tests stay fast


@pytest.fixture(autouse=True)
def _no_bots(monkeypatch):
    from gameworkers import tasks

    monkeypatch.setattr(tasks, "schedule_bot_turn", lambda *a, **k: None)
    monkeypatch.setattr(tasks.fire_deadline, "delay", lambda *a, **k: None)


def _cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def _connect(table_id: int, user) -> WebsocketCommunicator:
    cookie = await sync_to_async(_cookie)(user)
    comm = WebsocketCommunicator(application, f"/ws/tables/{table_id}/",
                                 headers=[(b"origin", b"http://127.0.0.1"), (b"cookie", cookie)])
    connected, _ = await comm.connect(timeout=10)
    assert connected
    return comm


async def _next(comm, kind: str, timeout: float = 10.0) -> dict:
    """The next frame of this type (other frames, e.g. presence notices, are skipped)."""
    deadline = time.monotonic() + timeout
    while True:
        frame = await comm.receive_json_from(timeout=max(0.01, deadline - time.monotonic()))
        if frame.get("type") == kind:
            return frame


async def _none_of(comm, kind: str, seconds: float) -> list[dict]:
    """Every frame within ``seconds``; fails if one is of this type."""
    got = []
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        # (a receive that times out would end the application: only take what has arrived)
        if not await comm.receive_nothing(timeout=min(0.05, left), interval=0.01):
            got.append(await comm.receive_json_from())
    assert kind not in [f.get("type") for f in got], got
    return got


def _running_table(*, delay: int | None = DELAY, stake_kind: str = StakeKind.CASUAL, private: bool = False,
                   slug: str = "watch"):
    """A running two-seat Lembar table (players a and b) and a would-be spectator w."""
    room = Room(name=f"Room {slug}", slug=slug, game="lembar", seats=2, min_seats=2, spectator_delay_seconds=delay)
    room.stake_kind = stake_kind
    room.save()
    a = user_create(username=f"{slug}-a", password="pass-word-123", display_name=f"Ayu {slug}")
    b = user_create(username=f"{slug}-b", password="pass-word-123")
    w = user_create(username=f"{slug}-w", password="pass-word-123")
    table = services.table_open(room=room, host=a, private=private)
    services.table_sit(table_id=table.pk, user=a)
    services.table_sit(table_id=table.pk, user=b, invite_code=table.invite_code or None)
    return Table.objects.select_related("room").get(pk=table.pk), a, b, w


# ----- the rule ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("stake_kind", "stake", "setting", "expected"), [
    (StakeKind.CASUAL, 0, None, 0),
    (StakeKind.POT, 10, None, Room.STAKED_SPECTATOR_DELAY_S),
    (StakeKind.ANTE, 1, None, Room.STAKED_SPECTATOR_DELAY_S),
    (StakeKind.POT, 10, 0, 0),      # the room's own setting wins, either way
    (StakeKind.CASUAL, 0, 7, 7),
])
def test_the_spectators_delay_is_the_rooms_setting_or_none_at_free_and_20_s_at_staked_tables(
        stake_kind, stake, setting, expected):
    room = Room(game="lembar", stake_kind=stake_kind, stake=stake, spectator_delay_seconds=setting)
    assert room.spectator_delay_s == expected
    assert Room.STAKED_SPECTATOR_DELAY_S == 20


# ----- the delay on the table socket -----------------------------------------------------------

async def test_a_spectator_gets_each_frame_only_after_the_delay_and_a_seated_player_at_once():
    table, a, b, w = await sync_to_async(_running_table)()
    engine = get_engine("lembar")
    first = engine.to_act(table.state)[0]
    mover_user = a if first == 0 else b
    mover = await _connect(table.pk, mover_user)
    start = (await _next(mover, "state"))["version"]
    assert start == table.version

    connected_at = time.monotonic()
    watcher = await _connect(table.pk, w)
    # The running table as it is now never reaches the spectator: its first state comes `delay` later.
    await _none_of(watcher, "state", DELAY - 0.4)
    snapshot = await _next(watcher, "state")
    assert time.monotonic() - connected_at >= DELAY - 0.1
    assert snapshot["seat"] is None and snapshot["legal"] == [] and snapshot["version"] == start

    legal = engine.legal_moves(table.state, first)
    await mover.send_json_to({"type": "move", "move": legal[0], "version": start})
    own = await _next(mover, "state")  # the player: at once
    seen_by_player = time.monotonic()
    assert own["version"] == start + 1 and own["seat"] == first
    await _none_of(watcher, "state", DELAY - 0.4)
    event = await _next(watcher, "event")
    late = await _next(watcher, "state")
    assert time.monotonic() - seen_by_player >= DELAY - 0.15
    assert event["version"] == late["version"] == start + 1 and late["seat"] is None
    assert "hand" not in late["view"]  # the spectators' frame, never a seat's
    await mover.disconnect()
    await watcher.disconnect()


async def test_someone_who_played_at_the_table_watches_the_rest_live():
    """A player who left or was removed is no longer seated, but saw the game live: no delay for them."""
    table, a, b, w = await sync_to_async(_running_table)(delay=6, slug="former")

    def mark_left() -> None:
        seating = [{**e, "status": "left"} if e["user_id"] == a.pk else e for e in table.seating]
        Table.objects.filter(pk=table.pk).update(seating=seating)

    await sync_to_async(mark_left)()
    started = time.monotonic()
    former = await _connect(table.pk, a)
    frame = await _next(former, "state", timeout=4)  # a spectator would wait the room's 6 s
    assert frame["seat"] is None and time.monotonic() - started < 6
    await former.disconnect()


async def test_a_second_spectator_starts_from_the_table_as_it_was_and_a_resync_never_shows_it_as_it_is():
    table, a, b, w = await sync_to_async(_running_table)()
    w2 = await sync_to_async(user_create)(username="watch-w2", password="pass-word-123")
    engine = get_engine("lembar")
    first = engine.to_act(table.state)[0]
    mover = await _connect(table.pk, a if first == 0 else b)
    start = (await _next(mover, "state"))["version"]
    watcher = await _connect(table.pk, w)
    await _next(watcher, "state")  # the line's first state, `delay` after the connect

    await mover.send_json_to({"type": "move", "move": engine.legal_moves(table.state, first)[0], "version": start})
    assert (await _next(mover, "state"))["version"] == start + 1
    # Joining now, the second spectator gets the state as it was `delay` ago at once, not the move.
    second = await _connect(table.pk, w2)
    joined = await _next(second, "state")
    assert joined["version"] == start
    # A resync is answered the same way: the table as the spectators see it, with the request's id.
    await watcher.send_json_to({"type": "resync", "id": "r1"})
    answer = await _next(watcher, "state")
    assert (answer["id"], answer["version"]) == ("r1", start)
    # Then the move reaches both, late.
    assert (await _next(watcher, "state"))["version"] == start + 1
    assert (await _next(second, "state"))["version"] == start + 1
    for comm in (mover, watcher, second):
        await comm.disconnect()


async def test_at_a_table_not_yet_started_a_spectator_gets_the_state_at_once():
    def setup():
        room = Room.objects.create(name="Open", slug="open-w", game="lembar", seats=3, min_seats=2,
                                   spectator_delay_seconds=DELAY)
        host = user_create(username="open-h", password="pass-word-123")
        watcher = user_create(username="open-w", password="pass-word-123")
        table = services.table_open(room=room, host=host)
        services.table_sit(table_id=table.pk, user=host)
        return Table.objects.get(pk=table.pk), watcher

    table, w = await sync_to_async(setup)()
    watcher = await _connect(table.pk, w)
    connected_at = time.monotonic()
    frame = await _next(watcher, "state")
    assert time.monotonic() - connected_at < DELAY - 0.2
    assert (frame["status"], frame["seat"], frame["version"]) == ("open", None, table.version)
    await watcher.disconnect()


async def test_the_players_chat_reaches_a_late_spectator_late_and_the_spectators_chat_at_once():
    table, a, b, w = await sync_to_async(_running_table)()
    player = await _connect(table.pk, a)
    await _next(player, "state")
    watcher = await _connect(table.pk, w)
    await _next(watcher, "state")
    await sync_to_async(chat_services.chat_post)(table_id=table.pk, user=a, text="nice one")
    assert (await _next(player, "chat"))["text"] == "nice one"
    seen_by_player = time.monotonic()
    await _none_of(watcher, "chat", DELAY - 0.4)
    assert (await _next(watcher, "chat"))["text"] == "nice one"
    assert time.monotonic() - seen_by_player >= DELAY - 0.15
    await sync_to_async(chat_services.chat_post)(table_id=table.pk, user=w, text="hello watchers")
    said_at = time.monotonic()
    mine = await _next(watcher, "chat")
    assert time.monotonic() - said_at < DELAY - 0.2
    assert (mine["channel"], mine["text"]) == ("spectators", "hello watchers")
    await player.disconnect()
    await watcher.disconnect()


async def test_a_casual_table_has_no_delay():
    table, a, b, w = await sync_to_async(_running_table)(delay=None, slug="casual")
    assert table.room.spectator_delay_s == 0
    watcher = await _connect(table.pk, w)
    frame = await _next(watcher, "state", timeout=1.0)
    assert frame["seat"] is None and frame["version"] == table.version
    await watcher.disconnect()


# ----- the spectator count -----------------------------------------------------------------------

async def _count(comm, expected: int, timeout: float = 10.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        frame = await _next(comm, "spectators", timeout=max(0.01, deadline - time.monotonic()))
        if frame["count"] == expected:
            return frame


async def test_the_spectator_count_follows_spectators_coming_and_going():
    table, a, b, w = await sync_to_async(_running_table)(delay=None, slug="count")
    w2 = await sync_to_async(user_create)(username="count-w2", password="pass-word-123")
    player = await _connect(table.pk, a)
    await player.send_json_to({"type": "spectators", "id": "c"})
    answer = await _next(player, "spectators")
    assert (answer["id"], answer["count"], answer["delay"], answer["table"]) == ("c", 0, 0, table.pk)
    one = await _connect(table.pk, w)
    two = await _connect(table.pk, w2)
    await _count(player, 2)
    await two.send_json_to({"type": "spectators"})
    await _count(two, 2)
    await one.disconnect()
    await _count(player, 1)
    await _count(two, 1)
    assert await sync_to_async(selectors.spectator_counts)(table_ids=[table.pk]) == {table.pk: 1}
    await two.disconnect()
    await _count(player, 0)
    await player.disconnect()


def test_the_count_is_shared_by_processes_and_a_dead_process_stops_counting(monkeypatch):
    """Two relays stand for two ASGI processes: each counts its own spectators in Redis, both hear the
    total, and the spectators of one that dies without a word drop out once their entries expire."""
    monkeypatch.setattr(relay, "WATCH_TTL_S", 1.0)
    monkeypatch.setattr(relay, "WATCH_REFRESH_S", 0.3)
    monkeypatch.setattr(relay, "WATCH_COALESCE_S", 0.05)
    table_id = 987_001

    class Socket:
        def __init__(self) -> None:
            self.got: list[dict] = []

        def relay(self, message: dict) -> None:
            self.got.append(message)

    async def main():
        layer = get_channel_layer()
        first, second = relay.TableRelay(layer), relay.TableRelay(layer)
        here, there = Socket(), Socket()
        await first.join(table_id, here)
        await second.join(table_id, there)
        first.spectate(table_id, here, user_id=1, delay_s=0)
        second.spectate(table_id, there, user_id=2, delay_s=0)
        deadline = time.monotonic() + 5
        while not any(m.get("type") == "table.watchers" and m["count"] == 2 for m in here.got):
            assert time.monotonic() < deadline, here.got
            await asyncio.sleep(0.02)
        assert relay.spectator_counts([table_id]) == {table_id: 2}
        # The second process dies: nothing removes its member, which expires.
        second.watchers._refresher.cancel()
        second.source.close()
        await asyncio.sleep(1.5)
        assert relay.spectator_counts([table_id]) == {table_id: 1}  # the live one's is refreshed
        assert [m["count"] for m in here.got if m.get("type") == "table.watchers"][-1] == 1  # and heard
        await first.leave(table_id, here)
        await asyncio.sleep(0.2)
        assert relay.spectator_counts([table_id]) == {table_id: 0}
        first.source.close()

    asyncio.run(main())


# ----- "Live now" ------------------------------------------------------------------------------

def test_live_now_lists_running_public_tables_by_game_with_players_bots_stakes_and_counts(monkeypatch):
    public, a, b, _ = _running_table(slug="live-pub")
    private, *_ = _running_table(slug="live-priv", private=True)
    room = Room.objects.create(name="Bots", slug="live-bots", game="lembar", seats=2, min_seats=2)
    bot = bot_create(username="live-bot", display_name="Bu Sari", style="cautious", description="Polite.")
    human = user_create(username="live-h", password="pass-word-123", display_name="Hana")
    with_bot = services.table_open(room=room, host=human)
    services.table_sit(table_id=with_bot.pk, user=human)
    services.table_sit(table_id=with_bot.pk, user=bot)
    waiting = services.table_open(room=room, host=human)  # open, not running: not listed
    monkeypatch.setattr(relay, "spectator_counts", lambda ids: {public.pk: 3} if public.pk in ids else {})

    games = selectors.live_tables()
    assert [g["game"] for g in games] == ["lembar"]
    listed = {t["table"]: t for t in games[0]["tables"]}
    assert set(listed) == {public.pk, with_bot.pk}
    assert private.pk not in listed and waiting.pk not in listed
    assert games[0]["tables"][0]["table"] == public.pk  # the most watched first
    entry = listed[public.pk]
    assert entry["room"] == "Room live-pub" and entry["spectators"] == 3 and entry["delay"] == DELAY
    assert entry["stake"] == {"kind": "casual", "amount": 0, "currency": None}
    assert entry["players"] == [{"name": "Ayu live-pub", "bot": False}, {"name": b.public_name, "bot": False}]
    assert {"name": "Bu Sari", "bot": True} in listed[with_bot.pk]["players"]
    assert listed[with_bot.pk]["spectators"] == 0
    # The list's visibility is the one rule every table surface uses.
    for table in (public, private):
        assert selectors.publicly_watchable().filter(pk=table.pk).exists() == selectors.may_watch(table=table, user=None)


async def test_the_lobby_socket_sends_live_now_only_when_asked():
    table, a, *_ = await sync_to_async(_running_table)(slug="live-ws")
    viewer = await sync_to_async(user_create)(username="live-v", password="pass-word-123")
    cookie = await sync_to_async(_cookie)(viewer)
    headers = [(b"origin", b"http://127.0.0.1"), (b"cookie", cookie)]
    lobby = WebsocketCommunicator(application, "/ws/queue/?live=1", headers=headers)
    assert (await lobby.connect(timeout=10))[0]
    frame = await _next(lobby, "live_now")
    assert [t["table"] for g in frame["games"] for t in g["tables"]] == [table.pk]
    assert frame["games"][0]["tables"][0]["players"][0]["name"] == "Ayu live-ws"
    # A resync brings the list again; a queue socket that did not ask never gets it.
    await lobby.send_json_to({"type": "resync"})
    assert (await _next(lobby, "live_now"))["games"] == frame["games"]
    plain = WebsocketCommunicator(application, "/ws/queue/", headers=headers)
    assert (await plain.connect(timeout=10))[0]
    await _none_of(plain, "live_now", 0.5)
    await lobby.disconnect()
    await plain.disconnect()
    assert json.dumps(frame)  # plain JSON


async def test_the_lobby_feed_reads_once_for_every_socket_and_sends_only_changes(monkeypatch):
    from matchmaking import broadcast as mm_broadcast

    reads = []
    listed = {"table": 1}

    def live_tables():
        reads.append(1)
        return [{"game": "lembar", "tables": [dict(listed)]}]

    monkeypatch.setattr(selectors, "live_tables", live_tables)
    monkeypatch.setattr(mm_broadcast, "LIVE_REFRESH_S", 0.2)

    class Lobby:
        def __init__(self) -> None:
            self.got: list[str] = []

        def push_live(self, text: str) -> None:
            self.got.append(text)

    feed = mm_broadcast.LiveNowFeed()
    one, two = Lobby(), Lobby()
    await asyncio.gather(feed.join(one), feed.join(two))
    assert len(reads) == 1 and one.got == two.got and len(one.got) == 1
    await asyncio.sleep(0.5)  # more reads, the same list: nothing sent
    assert len(reads) >= 2 and len(one.got) == 1
    listed["table"] = 2
    await asyncio.sleep(0.5)  # the next read finds it changed
    assert len(one.got) == 2 and one.got[-1] == two.got[-1] and json.loads(one.got[-1])["type"] == "live_now"
    feed.leave(one)
    feed.leave(two)
