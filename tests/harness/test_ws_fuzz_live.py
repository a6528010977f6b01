"""The websocket fuzzer against the real stack (uvicorn, a Celery worker, the timer process): slow.

Two kinds of two-seat Lembar tables (turn timer 600 s, so nothing moves by itself):
  quiet tables   both seats send only frames that must change nothing (garbage, oversized, random JSON,
                 out-of-turn, stale, "auto"): the table must end exactly as it started;
  playing tables both seats also send legal moves, replay them and send random envelopes: every table
                 must stay consistent (len(moves) == the state's move count <= version, contiguous move
                 and event seqs) and never apply more moves than legal frames were sent.
Every connection paces itself under the rate limit (burst 8, then 4/s), so the frames reach validation.
Zero sockets may be closed by the server. HARNESS_FUZZ_MESSAGES sets the total (default 100,000;
about 100,000 / (4 * sockets) seconds).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from collections import Counter

import pytest
import websockets
from django.test import Client

from accounts.services import user_create
from rooms import selectors, services
from rooms.models import Room, Table, TableEvent
from tests.harness import wsfuzz
from wallets.models import Entry

pytestmark = pytest.mark.slow

MESSAGES = int(os.environ.get("HARNESS_FUZZ_MESSAGES", "100000"))
TABLES = int(os.environ.get("HARNESS_FUZZ_TABLES", "24"))
QUIET_KINDS = ["garbage", "oversized", "json", "out_of_turn", "stale", "auto"]
RATE = 3.8  # frames per second per socket, just under the limit of 4


def _cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


async def _fuzz_client(url: str, cookie: str, quota: int, quiet: bool, seed: int, stats: Counter,
                       deadline: float) -> None:
    rng = random.Random(seed)
    latest: dict = {}
    last_legal: str | None = None
    async with websockets.connect(url, additional_headers={"Cookie": cookie, "Origin": "http://127.0.0.1"},
                                  open_timeout=60, max_size=2**22, ping_interval=None) as ws:

        snapshot = asyncio.Event()

        async def reader() -> None:
            async for raw in ws:
                frame = json.loads(raw)
                if frame.get("type") == "state" and frame.get("version", -1) >= latest.get("version", -1):
                    latest.update(frame)
                    snapshot.set()
                elif frame.get("type") == "error":
                    stats[f"error:{frame['code']}"] += 1

        reading = asyncio.create_task(reader())
        try:
            await asyncio.wait_for(snapshot.wait(), timeout=60)  # know the seat and version before fuzzing
            start = time.monotonic()
            kind, text = "", ""
            for n in range(quota):
                if time.monotonic() > deadline:
                    stats["unsent_deadline"] += quota - n
                    break
                await asyncio.sleep(max(0.0, start + (n - 6) / RATE - time.monotonic()))
                version = latest.get("version", 0)
                mine = bool(latest.get("legal")) and latest.get("deadline_seat") == latest.get("seat")
                kind = rng.choice(QUIET_KINDS if quiet else wsfuzz.KINDS)
                if kind == "out_of_turn" and mine:
                    kind = "stale"
                legal_move = latest["legal"][0] if mine and latest.get("legal") else None
                if kind == "legal" and legal_move is None:
                    kind = "stale"
                text = wsfuzz.frame_for(kind, rng, version=version, legal_move=legal_move, last_legal=last_legal)
                if kind == "legal":
                    last_legal = text
                    stats["legal_sent"] += 1
                await ws.send(text)
                stats["sent"] += 1
                stats[f"kind:{kind}"] += 1
            await asyncio.sleep(1.0)
        except websockets.ConnectionClosed as exc:
            reason = exc.rcvd.reason if exc.rcvd else ""
            if "keepalive" in reason:  # the server's 20 s ping went unanswered: an overloaded machine, not a frame
                stats["dropped_keepalive_timeout"] += 1
            else:
                stats[f"closed_by_server:{exc.rcvd.code if exc.rcvd else None}:{reason}:after={kind}:{text[:80]!r}"] += 1
        finally:
            reading.cancel()


def test_100k_fuzzed_frames_against_the_real_stack(live_stack):
    room = Room.objects.create(name="Fuzz live", slug="fuzz-live", game="lembar", seats=2, min_seats=2,
                               turn_seconds=600)
    tables = []
    for i in range(TABLES):
        users = [user_create(username=f"fz{i}-{k}", password="pass-word-123") for k in range(2)]
        table = services.table_open(room=room, host=users[0])
        for user in users:
            services.table_sit(table_id=table.pk, user=user)
        tables.append((Table.objects.get(pk=table.pk), [_cookie(u) for u in users], i % 2 == 0))
    entries_before = Entry.objects.count()
    per_socket = -(-MESSAGES // (2 * TABLES))
    deadline = time.monotonic() + per_socket / RATE + 120
    stats: Counter = Counter()

    async def main() -> None:
        await asyncio.gather(*[
            _fuzz_client(f"{live_stack.ws_url}/ws/tables/{table.pk}/", cookie, per_socket, quiet, 1000 * k + s,
                         stats, deadline)
            for k, (table, cookies, quiet) in enumerate(tables) for s, cookie in enumerate(cookies)])

    asyncio.run(main())
    print(json.dumps(dict(sorted(stats.items()))))
    assert not [k for k in stats if k.startswith("closed_by_server")], stats
    assert stats["dropped_keepalive_timeout"] == 0, "sockets dropped by keepalive timeouts (machine overloaded?)"
    assert stats["sent"] >= MESSAGES * 0.95, stats
    assert stats["error:rate_limited"] < 0.01 * stats["sent"], stats
    assert Entry.objects.count() == entries_before
    for before, _cookies, quiet in tables:
        after = Table.objects.get(pk=before.pk)
        moves = selectors.move_log(table=after)
        # The version also counts steps that are not moves (a Lembar window closing by the timer); it
        # was before.version when the game started (the sits and the start are counted too).
        assert len(moves) == after.state["move_count"] <= after.version - before.version
        assert [m["seq"] for m in moves] == list(range(1, len(moves) + 1))
        seqs = list(TableEvent.objects.filter(table=after).order_by("seq").values_list("seq", flat=True))
        assert seqs == list(range(1, len(seqs) + 1)) and after.last_event_seq == len(seqs)
        if quiet:
            assert after.version == before.version and after.state == before.state, f"quiet table {after.pk} changed"
            assert after.last_event_seq == before.last_event_seq
