"""Abuse of the table websocket in process (channels' communicator, the real channel layer).

Hypothesis drives sessions of malformed, oversized, out-of-turn, stale, replayed and legal frames at a
running two-seat Lembar table; moves are applied by the real task body in process. After every frame:
the socket is alive (a ping is answered), and the table, its event log and the ledger changed only if
that frame was a legal move for the sending seat at the current version, and then by exactly one move.
"""

from __future__ import annotations

import json
import random

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.services import user_create
from config.asgi import application
from gameworkers.engines import get_engine
from rooms import selectors, services
from rooms.models import Room, Table, TableEvent
from tests.harness import wsfuzz
from tests.wsrefusal import refusal_code
from wallets.models import Entry

pytestmark = pytest.mark.django_db(transaction=True)


def _cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def _connect(table_id: int, cookie: bytes | None, origin: bytes | None = b"http://127.0.0.1"):
    headers = []
    if origin is not None:
        headers.append((b"origin", origin))
    if cookie:
        headers.append((b"cookie", cookie))
    comm = WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)
    connected, code = await comm.connect(timeout=10)
    return comm, connected, code


def _running_table(slug: str = "fuzz"):
    room = Room.objects.create(name="Fuzz", slug=slug, game="lembar", seats=2, min_seats=2, turn_seconds=600)
    users = [user_create(username=f"{slug}{i}", password="pass-word-123") for i in range(2)]
    table = services.table_open(room=room, host=users[0])
    for user in users:
        services.table_sit(table_id=table.pk, user=user)
    return Table.objects.get(pk=table.pk), users, [_cookie(u) for u in users]


def _snapshot(table_id: int) -> dict:
    table = Table.objects.get(pk=table_id)
    engine = get_engine(table.game)
    to_act = engine.to_act(table.state) if table.status == "running" else []
    return {"version": table.version, "state": table.state, "status": table.status,
            "log": selectors.move_log(table=table),
            "events": TableEvent.objects.filter(table_id=table_id).count(), "entries": Entry.objects.count(),
            "last_event_seq": table.last_event_seq, "to_act": to_act,
            "legal": {s: engine.legal_moves(table.state, s) for s in range(2)} if to_act else {0: [], 1: []}}


async def _until_pong(comm: WebsocketCommunicator, ping_id: str) -> list[dict]:
    """Frames up to the answer of a ping: proves the consumer survived what came before."""
    await comm.send_to(text_data=json.dumps({"type": "ping", "id": ping_id}))
    frames = []
    while True:
        out = await comm.receive_output(timeout=10)
        assert out["type"] == "websocket.send", f"socket closed by the server: {out}"
        frame = json.loads(out["text"])
        if frame.get("type") == "pong" and frame.get("id") == ping_id:
            return frames
        frames.append(frame)


def _is_move_for(text: str, version: int) -> bool:
    try:
        frame = json.loads(text)
    except ValueError:
        return False
    return (isinstance(frame, dict) and frame.get("type") == "move" and isinstance(frame.get("move"), dict)
            and "auto" not in frame["move"] and type(frame.get("version")) is int and frame["version"] == version
            and len(text.encode()) <= wsfuzz.MAX_FRAME)


async def _fuzz_session(table_id: int, cookies: list[bytes], actions: list[tuple[str, int]]) -> dict:
    comms = []
    for cookie in cookies:
        comm, connected, _ = await _connect(table_id, cookie)
        assert connected
        await comm.receive_json_from(timeout=10)  # the snapshot
        comms.append(comm)
    stats = {"frames": 0, "applied": 0, "errors": {}}
    last_legal: str | None = None
    try:
        for n, (kind, seed) in enumerate(actions):
            rng = random.Random(seed)
            before = await sync_to_async(_snapshot)(table_id)
            acting = [s for s in before["to_act"] if before["legal"][s]]
            seat = rng.randrange(2)
            legal_move = None
            if kind == "legal":
                if not acting:
                    continue
                seat = acting[0]
                legal_move = before["legal"][seat][0]
            elif kind == "out_of_turn":
                idle = [s for s in range(2) if s not in before["to_act"]]
                if not idle or not acting:
                    continue
                seat, legal_move = idle[0], before["legal"][acting[0]][0]
            elif acting:
                legal_move = rng.choice(before["legal"][acting[0]])
            text = wsfuzz.frame_for(kind, rng, version=before["version"], legal_move=legal_move, last_legal=last_legal)
            # channels' test communicator cannot send an empty frame; a lone space is just as malformed.
            await comms[seat].send_to(text_data=text or " ")
            frames = await _until_pong(comms[seat], f"p{n}")
            stats["frames"] += 1
            for frame in frames:
                if frame.get("type") == "error":
                    stats["errors"][frame["code"]] = stats["errors"].get(frame["code"], 0) + 1
            after = await sync_to_async(_snapshot)(table_id)
            may_change = seat in before["to_act"] and _is_move_for(text, before["version"])
            if kind == "legal":
                assert after["version"] == before["version"] + 1, "a legal move was not applied"
                last_legal = text
            if after["version"] == before["version"]:
                assert after["state"] == before["state"], f"state changed without a move: {kind} {text[:200]}"
                assert after["events"] == before["events"] and after["entries"] == before["entries"]
            else:
                assert may_change, f"{kind} frame changed the table: {text[:200]}"
                assert after["version"] == before["version"] + 1, "one frame applied more than one move"
                assert after["log"][-1]["seat"] == seat
                stats["applied"] += 1
            assert len(after["log"]) == after["state"]["move_count"] <= after["version"]
            assert after["last_event_seq"] == after["events"]  # event seqs stay contiguous
    finally:
        for comm in comms:
            await comm.disconnect()
    return stats


@pytest.fixture
def fuzz_table(inline_moves):
    table, users, cookies = _running_table()
    return table, cookies


ACTIONS = st.lists(st.tuples(st.sampled_from(wsfuzz.KINDS), st.integers(0, 2**32)), min_size=1, max_size=12)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(actions=ACTIONS)
def test_fuzzed_frames_never_break_the_socket_or_change_the_table(fuzz_table, actions):
    table, cookies = fuzz_table
    async_to_sync(_fuzz_session)(table.pk, cookies, actions)
    table.refresh_from_db()
    seqs = list(TableEvent.objects.filter(table=table).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))


def test_replayed_legal_move_applies_once(fuzz_table):
    table, cookies = fuzz_table
    actions = [("legal", 1)] + [("replay", k) for k in range(5)] + [("stale", 9), ("out_of_turn", 3)]
    stats = async_to_sync(_fuzz_session)(table.pk, cookies, actions)
    assert stats["applied"] == 1
    assert stats["errors"].get("stale_version", 0) >= 5


async def _deep_json(table_id: int, cookie: bytes) -> None:
    comm, connected, _ = await _connect(table_id, cookie)
    assert connected
    await comm.receive_json_from(timeout=10)
    try:
        await comm.send_to(text_data="[" * 1500 + "]" * 1500)  # 3,000 bytes: under the 4,096 limit
        frames = await _until_pong(comm, "deep")
        assert [f.get("code") for f in frames] == ["malformed"]
    finally:
        await comm.disconnect()


# Found by this harness (RecursionError escaped the consumer, the socket dropped); fixed in d5364af.
def test_deeply_nested_json_is_malformed_not_a_crash(fuzz_table):
    table, cookies = fuzz_table
    async_to_sync(_deep_json)(table.pk, cookies[0])


# ----- Origin, session, logout ------------------------------------------------------------

def test_wrong_or_missing_origin_is_refused(inline_moves):
    table, users, cookies = _running_table()

    async def run():
        for origin in (b"http://evil.example", b"http://127.0.0.1.evil.example", b"null",
                       b"http://localhost.evil.example:80", None):
            comm, connected, _ = await _connect(table.pk, cookies[0], origin=origin)
            assert not connected, origin

    async_to_sync(run)()


def test_no_session_or_a_forged_session_is_refused(inline_moves):
    table, users, cookies = _running_table()

    async def run():
        for cookie in (None, b"sessionid=forged", b"sessionid=" + b"a" * 32):
            comm, connected, code = await _connect(table.pk, cookie)
            assert await refusal_code(comm, connected, code) == 4401

    async_to_sync(run)()


def test_logging_out_closes_the_users_sockets_and_only_theirs(inline_moves):
    table, users, cookies = _running_table()
    client = Client()
    client.force_login(users[0])
    cookie0 = f"sessionid={client.cookies['sessionid'].value}".encode()

    async def run():
        mine = [(await _connect(table.pk, cookie0))[0] for _ in range(2)]
        other, _, _ = await _connect(table.pk, cookies[1])
        for comm in [*mine, other]:
            await comm.receive_json_from(timeout=10)
        response = await sync_to_async(client.post)("/accounts/logout/")
        assert response.status_code in (200, 302)
        for comm in mine:
            out = await comm.receive_output(timeout=10)
            assert out == {"type": "websocket.close", "code": 4401}
        assert await _until_pong(other, "still-here") == []
        # The old cookie no longer authenticates a new socket.
        comm, connected, code = await _connect(table.pk, cookie0)
        assert await refusal_code(comm, connected, code) == 4401
        await other.disconnect()

    async_to_sync(run)()


def test_a_flood_of_moves_is_limited_without_touching_the_table(inline_moves, monkeypatch):
    """50 moves at once: the first burst is checked (stale), the rest refused with one frame; nothing
    changes. (Sustained floods closing the socket: tests/platform/core/test_websocket.py.)"""
    from live import consumers

    monkeypatch.setattr(consumers.TableConsumer, "rate_capacity", 8)
    monkeypatch.setattr(consumers.TableConsumer, "rate_per_second", 4.0)
    table, users, cookies = _running_table()

    async def run():
        comm, _, _ = await _connect(table.pk, cookies[0])
        assert (await comm.receive_json_from(timeout=10))["version"] == table.version
        for i in range(30):
            await comm.send_to(text_data=json.dumps({"type": "move", "move": {"type": "draw"}, "version": 99, "id": i}))
        codes = []
        while not await comm.receive_nothing(timeout=0.5):
            frame = await comm.receive_json_from(timeout=10)
            if frame["type"] == "error":
                codes.append(frame["code"])
        assert codes.count("rate_limited") == 1 and set(codes) == {"rate_limited", "stale_version"}
        await _until_pong(comm, "alive")  # the socket stays open after a short burst
        await comm.disconnect()

    async_to_sync(run)()
    assert Table.objects.get(pk=table.pk).version == table.version  # as it was at the start
