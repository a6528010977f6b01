"""bench/wsclient.py against a real RFC 6455 server (the websockets library's)."""

from __future__ import annotations

import asyncio

import pytest
from websockets.asyncio.server import serve

from bench import wsclient


async def _server(handler, **kwargs):
    server = await serve(handler, "127.0.0.1", 0, compression=None, **kwargs)
    port = server.sockets[0].getsockname()[1]
    return server, f"ws://127.0.0.1:{port}/ws/tables/1/?x=1"


def test_round_trip_large_frames_fragments_ping_and_close():
    seen: dict = {}

    async def handler(ws):
        seen["headers"] = dict(ws.request.headers)
        seen["path"] = ws.request.path
        await ws.send('{"type":"event"}')
        await ws.send("x" * 70_000)  # a 64-bit length
        await ws.send("y" * 300)  # a 16-bit length
        await ws.send(["frag", "mented"])  # continuation frames
        pong = await ws.ping(b"hi")
        await asyncio.wait_for(pong, 5)  # the client answered the ping
        seen["echo"] = await ws.recv()  # the client's masked frame, unmasked by the server
        await ws.close(4401)

    async def main():
        server, url = await _server(handler)
        async with server:
            ws = await wsclient.connect(url, {"Cookie": "sessionid=abc", "Origin": "http://127.0.0.1"}, timeout=5)
            got = [await ws.recv() for _ in range(4)]
            ws.send('{"type":"move","é":1}')
            with pytest.raises(wsclient.ConnectionClosed, match="4401"):
                await asyncio.wait_for(ws.recv(), 5)
            return got

    got = asyncio.run(main())
    assert got == [b'{"type":"event"}', b"x" * 70_000, b"y" * 300, b"fragmented"]
    assert seen["echo"] == '{"type":"move","é":1}'
    assert seen["headers"]["cookie"] == "sessionid=abc" and seen["headers"]["origin"] == "http://127.0.0.1"
    assert seen["path"] == "/ws/tables/1/?x=1"


def test_a_refused_handshake_raises():
    async def main():
        server, url = await _server(lambda ws: ws.close(), process_request=lambda c, r: c.respond(403, "no\n"))
        async with server:
            with pytest.raises(wsclient.HandshakeRefused):
                await wsclient.connect(url, {}, timeout=5)

    asyncio.run(main())
