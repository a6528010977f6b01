"""End to end over real websockets, a real Celery worker, the timer process and Redis."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import websockets
from asgiref.sync import sync_to_async
from django.test import Client

from accounts.services import bot_create, user_create
from gameworkers.engines import get_engine
from rooms import selectors, services
from rooms.models import Room, Table, TableEvent, TableStatus

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def no_bot_turns():  # override the unit-test patch: here the real worker plays the bots
    yield


def _cookie_for(user) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


async def _play_human(url: str, cookie: str, frames: list, *, call_lembar: bool = True) -> None:
    """A scripted player: answers every state frame in which it must act with its first legal move,
    until its own socket shows the end (each player must see the finished frame for itself)."""
    async with websockets.connect(url, additional_headers={"Cookie": cookie, "Origin": "http://127.0.0.1"},
                                  open_timeout=20) as ws:
        sent_for: set[int] = set()
        while True:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=1.0)
            except TimeoutError:
                await ws.send(json.dumps({"type": "resync"}))
                continue
            frame = json.loads(raw)
            frames.append(frame)
            if frame.get("type") != "state":
                continue
            if frame["status"] in ("finished", "stopped"):
                return
            legal = frame.get("legal") or []
            if not legal or frame["version"] in sent_for:
                continue
            mine = frame.get("deadline_seat") == frame["seat"]
            move = legal[0]
            if not mine:  # optional actions (e.g. a catch) are skipped by this simple player
                continue
            sent_for.add(frame["version"])
            await ws.send(json.dumps({"type": "move", "move": move, "version": frame["version"], "id": f"m{frame['version']}"}))


def _start_version(table: Table) -> int:
    """The table's version when the game started (the sits before it and the start are numbered too)."""
    return TableEvent.objects.get(table=table, kind="started").version


def _replayed_states(table: Table) -> dict[int, dict]:
    """The engine's state by table version: the start's, then one more per move."""
    engine = get_engine(table.game)
    state = engine.new(bytes.fromhex(table.seed_hex), table.state["seats"], table.state["options"])
    start = _start_version(table)
    states = {start: state}
    for entry in selectors.move_log(table=table):
        state, _ = engine.apply(state, entry["seat"], entry["move"], now_ms=entry["now_ms"])
        states[start + entry["seq"]] = state
    return states


def _card_strings(obj) -> Counter:
    found: Counter = Counter()
    if isinstance(obj, str):
        found[obj] += 1
    elif isinstance(obj, dict):
        for v in obj.values():
            found += _card_strings(v)
    elif isinstance(obj, list):
        for v in obj:
            found += _card_strings(v)
    return found


def _assert_no_leaks(table: Table, seat: int, frames: list) -> None:
    engine = get_engine(table.game)
    states = _replayed_states(table)
    deck = Counter(engine.all_cards(states[_start_version(table)]))
    checked = 0
    for frame in frames:
        text = json.dumps(frame)
        if frame.get("type") == "state" and frame["status"] == "running":
            assert table.seed_hex not in text, "the seed left the server before the end"
            state = states[frame["version"]]
            hidden = Counter(engine.hidden_cards(state, seat))
            wholly = {c for c, k in hidden.items() if k == deck[c]}
            leaked = wholly & set(_card_strings(frame["view"]))
            assert not leaked, f"seat {seat} saw hidden cards {leaked} at version {frame['version']}"
            checked += 1
        elif frame.get("type") == "event":
            assert table.seed_hex not in text or any(e.get("type") == "stopped" for e in frame["events"])
    assert checked > 0


def test_four_seat_lembar_two_humans_two_bots_to_a_verified_finish(live_stack, tmp_path):
    room = Room.objects.create(name="Live", slug="live-lembar", game="lembar", seats=4, min_seats=4, turn_seconds=5,
                               time_bank_seconds=0)  # idle humans time out at the turn timer (no bank)
    humans = [user_create(username=f"h{i}", password="pass-word-123") for i in range(2)]
    bots = [bot_create(username=f"lb{i}", display_name=f"LB{i}", style="", description="") for i in range(2)]
    table = services.table_open(room=room, host=humans[0])
    for u in humans:
        services.table_sit(table_id=table.pk, user=u)
    cookies = [_cookie_for(u) for u in humans]
    url = f"{live_stack.ws_url}/ws/tables/{table.pk}/"
    frames: list[list] = [[], []]

    async def main() -> None:
        players = [asyncio.create_task(_play_human(url, cookies[i], frames[i])) for i in range(2)]
        await asyncio.sleep(1.0)
        for b in bots:  # the table starts when the last bot sits
            await sync_to_async(services.table_sit)(table_id=table.pk, user=b)
        await asyncio.wait_for(asyncio.gather(*players), timeout=240)

    asyncio.run(main())
    table.refresh_from_db()
    assert table.status == TableStatus.FINISHED
    # The version also counts steps that are not moves (a Lembar window closed by the timer), and the
    # changes before the start (each sit, then the start itself).
    assert _start_version(table) == 5  # four sits and the start
    assert len(selectors.move_log(table=table)) == table.state["move_count"] <= table.version - _start_version(table)
    seqs = list(TableEvent.objects.filter(table=table).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    by_seat = {s.user_id: s.number for s in table.seats.all()}
    for i, user in enumerate(humans):
        assert any(f.get("type") == "state" and f["status"] == "finished" for f in frames[i])
        _assert_no_leaks(table, by_seat[user.pk], frames[i])
    proof = tmp_path / "proof.json"
    proof.write_text(json.dumps(selectors.proof_document(table=table)))
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "verify_proof.py"), str(proof)],
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "OK", out.stdout


def test_sigkill_of_the_worker_loses_nothing(live_stack):
    room = Room.objects.create(name="Crash", slug="crash", game="lembar", seats=4, min_seats=4, turn_seconds=1,
                               time_bank_seconds=0)  # idle humans time out at the turn timer (no bank)
    idle_human = user_create(username="idle", password="pass-word-123")  # never moves: the timer plays for them
    bots = [bot_create(username=f"cb{i}", display_name=f"CB{i}", style="", description="") for i in range(3)]
    table = services.table_open(room=room, host=idle_human)
    services.table_sit(table_id=table.pk, user=idle_human)
    for b in bots:
        services.table_sit(table_id=table.pk, user=b)
    table.refresh_from_db()
    start = table.version  # the table started when the last bot sat

    def wait_version(at_least: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            table.refresh_from_db()
            if table.version >= at_least or table.status != TableStatus.RUNNING:
                return
            time.sleep(0.2)
        raise AssertionError(f"no progress to version {at_least}")

    wait_version(start + 6, 60)
    os.killpg(live_stack.worker.pid, signal.SIGKILL)
    live_stack.worker.wait()
    table.refresh_from_db()
    frozen = table.version
    time.sleep(3)
    table.refresh_from_db()
    assert table.version == frozen  # nothing moves without a worker
    live_stack.start_worker()
    restarted = time.monotonic()
    lateness = []
    while time.monotonic() - restarted < 180:
        table.refresh_from_db()
        if table.status != TableStatus.RUNNING:
            break
        if table.deadline_at is not None and time.monotonic() - restarted > 5:
            from django.utils import timezone

            lateness.append((timezone.now() - table.deadline_at).total_seconds())
        time.sleep(0.25)
    table.refresh_from_db()
    assert table.version > frozen, "the game continued after the worker came back"
    assert max(lateness or [0]) < 5, f"a deadline was missed by {max(lateness):.1f} s"
    moves = selectors.move_log(table=table)
    assert len(moves) == table.state["move_count"] <= table.version - start
    assert [m["seq"] for m in moves] == list(range(1, len(moves) + 1))  # nothing applied twice


def test_a_real_server_refuses_with_the_documented_codes(live_stack):
    """docs/protocol.md: no session -> closed with 4401, unknown table -> 4404 (a browser can read
    these); a wrong Origin -> the handshake is refused with HTTP 403."""
    user = user_create(username="live-refused", password="pass-word-123")
    cookie = _cookie_for(user)
    origin = live_stack.ws_url.replace("ws://", "http://")

    async def close_code(path: str, headers: dict, origin_header: str) -> int | str:
        try:
            async with websockets.connect(f"{live_stack.ws_url}{path}", additional_headers=headers,
                                          origin=origin_header, open_timeout=10) as ws:
                await asyncio.wait_for(ws.recv(), 10)
        except websockets.ConnectionClosed as exc:
            return exc.rcvd.code
        except websockets.InvalidStatus as exc:
            return f"HTTP {exc.response.status_code}"
        return "open"

    async def run():
        assert await close_code("/ws/tables/1/", {}, origin) == 4401
        assert await close_code("/ws/tables/999999/", {"Cookie": cookie}, origin) == 4404
        assert await close_code("/ws/tables/999999/", {"Cookie": cookie}, "http://evil.example") == "HTTP 403"

    asyncio.run(run())
