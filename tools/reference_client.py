"""A reference client: plays one whole game through the documented HTTP API and table websocket only.

    python tools/reference_client.py --base http://127.0.0.1:8000 --username ann --password '...' \
        [--signup] [--room lembar-casual] [--seats 2]

What it does, step by step (docs/protocol.md, "Getting started"):
 1. signs up or logs in with the site's forms (a session cookie; the `csrftoken` cookie goes back as
    the `X-CSRFToken` header of every POST);
 2. opens a private table in the room and fills the other seats with bots (the table starts itself
    once every seat is taken);
 3. opens the table's websocket (`Cookie` and `Origin` headers, `?invite=` for the private table) and
    plays the first legal move whenever it is this seat's turn, following the table's `version`,
    resyncing on a gap, until the game ends;
 4. fetches the proof document and checks it with tools/verify_proof.py.

Standard library plus the `websockets` package. Prints one JSON line with what happened; exits 0 when
the game ended and its proof verified.
"""

from __future__ import annotations

import argparse
import asyncio
import http.cookiejar
import json
import re
import sys
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
import verify_proof  # noqa: E402  (the standalone verifier next to this file)


class Site:
    """HTTP with a cookie jar, CSRF and JSON."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")
        self.jar = http.cookiejar.CookieJar()
        self.http = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def cookie(self, name: str) -> str:
        return next((c.value for c in self.jar if c.name == name), "")

    def _send(self, method: str, path: str, body: bytes | None, content_type: str | None) -> tuple[int, bytes]:
        headers = {"Origin": self.base, "Referer": self.base + path}
        if content_type:
            headers["Content-Type"] = content_type
        if method != "GET":
            headers["X-CSRFToken"] = self.cookie("csrftoken")
        request = urllib.request.Request(self.base + path, data=body, method=method, headers=headers)
        try:
            with self.http.open(request, timeout=30) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def get(self, path: str) -> tuple[int, bytes]:
        return self._send("GET", path, None, None)

    def post_form(self, path: str, fields: dict[str, str]) -> tuple[int, bytes]:
        self.get(path)  # the form page sets the csrftoken cookie
        data = {**fields, "csrfmiddlewaretoken": self.cookie("csrftoken")}
        return self._send("POST", path, urllib.parse.urlencode(data).encode(), "application/x-www-form-urlencoded")

    def api(self, method: str, path: str, payload: dict | None = None) -> Any:
        body = json.dumps(payload or {}).encode() if method != "GET" else None
        status, raw = self._send(method, path, body, "application/json" if body is not None else None)
        data = json.loads(raw) if raw else None
        if status >= 400:  # every API error is {"code", "message"}
            raise RuntimeError(f"{method} {path}: HTTP {status} {data}")
        return data


def sign_in(site: Site, username: str, password: str, signup: bool) -> None:
    if signup:
        site.post_form("/accounts/signup/", {"username": username, "password1": password, "password2": password,
                                             "preferred_language": "en"})
    else:
        site.post_form("/accounts/login/", {"username": username, "password": password})
    if not site.cookie("sessionid"):
        raise RuntimeError("not logged in (wrong password, or the sign-up form refused the name)")


def open_table_against_bots(site: Site, room: str, seats: int) -> dict:
    opened = site.api("POST", "/api/matchmaking/private/", {"room": room, "seats": seats})
    for _ in range(seats - 1):
        site.api("POST", f"/api/matchmaking/private/{opened['table']}/bots/", {})
    return opened


def choose(legal: list[dict]) -> dict:
    """Play a card when one can be played (games end sooner than with the first move listed)."""
    return next((m for m in legal if m.get("type") == "play"), legal[0])


async def play(site: Site, table_id: int, invite: str, *, timeout_s: float, log: bool = False) -> dict:
    """Play this seat's turns until the table ends; returns the last state frame and counts."""
    scheme = "wss" if site.base.startswith("https") else "ws"
    host = re.sub(r"^https?://", "", site.base)
    url = f"{scheme}://{host}/ws/tables/{table_id}/?invite={urllib.parse.quote(invite)}"
    headers = {"Cookie": f"sessionid={site.cookie('sessionid')}", "Origin": site.base}
    latest: dict = {}
    moves = resyncs = refused = 0
    sent_at_version = -1
    last_send = 0.0
    loop = asyncio.get_running_loop()

    async def send(ws, payload: dict) -> None:
        # The server allows a burst of 8 frames, then 4 per second: one frame per 0.26 s stays under it.
        nonlocal last_send
        wait = last_send + 0.26 - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        last_send = loop.time()
        await ws.send(json.dumps(payload))

    async with websockets.connect(url, additional_headers=headers) as ws:
        async with asyncio.timeout(timeout_s):
            while True:
                frame = json.loads(await ws.recv())
                kind = frame.get("type")
                if kind == "error":
                    refused += 1
                    sent_at_version = -1
                    if log:
                        print(f"refused: {frame}", file=sys.stderr)
                    if frame["code"] == "rate_limited" and latest.get("legal"):
                        await asyncio.sleep(1)  # the move was dropped unread: send it again
                        frame = latest
                    else:
                        continue  # e.g. stale_version: a fresh state follows; decide again from it
                    kind = "state"
                if kind == "event" and latest and frame["version"] > latest["version"] + 1:
                    resyncs += 1  # a change was missed: ask for the table as it is now
                    await send(ws, {"type": "resync", "id": f"r{resyncs}"})
                    continue
                if kind != "state" or (latest and frame is not latest and frame["version"] < latest["version"]):
                    continue  # an older frame overtaken by a newer one
                latest = frame
                if frame["status"] in ("finished", "stopped"):
                    return {"state": frame, "moves": moves, "resyncs": resyncs, "refused": refused}
                if frame["legal"] and frame["version"] != sent_at_version:
                    sent_at_version = frame["version"]
                    moves += 1
                    move = choose(frame["legal"])
                    if log:
                        print(f"v{frame['version']} seat {frame['seat']}: {move}", file=sys.stderr)
                    await send(ws, {"type": "move", "move": move, "version": frame["version"], "id": moves})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", default="http://127.0.0.1:8000")
    parser.add_argument("--username", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--signup", action="store_true", help="create the account first")
    parser.add_argument("--room", default="", help="room slug (default: the first free room of --game)")
    parser.add_argument("--game", default="lembar")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds the game may take")
    parser.add_argument("--verbose", action="store_true", help="each move and refusal to stderr")
    args = parser.parse_args(argv)

    site = Site(args.base)
    sign_in(site, args.username, args.password, args.signup)
    room = args.room or next(r["slug"] for r in site.api("GET", "/api/rooms/")
                             if r["game"] == args.game and r["stake_kind"] == "casual")
    opened = open_table_against_bots(site, room, args.seats)
    outcome = asyncio.run(play(site, opened["table"], opened["invite_code"], timeout_s=args.timeout,
                                log=args.verbose))
    proof = site.api("GET", f"/api/tables/{opened['table']}/proof.json?invite={opened['invite_code']}")
    problems = verify_proof.verify(proof)
    print(json.dumps({"table": opened["table"], "room": room, "status": outcome["state"]["status"],
                      "result": outcome["state"].get("result"), "moves": outcome["moves"],
                      "resyncs": outcome["resyncs"], "refused": outcome["refused"],
                      "proof": "OK" if not problems else problems}))
    return 0 if outcome["state"]["status"] == "finished" and not problems else 1


if __name__ == "__main__":
    sys.exit(main())
