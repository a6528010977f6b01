"""A minimal RFC 6455 client for the load generator, cheap enough to share 2 cores with the server.

The clients run on the machine they measure, so every microsecond they spend per frame is taken from
the platform. A general client (``websockets``) costs a task switch and several futures per frame; this
one parses frames straight from ``data_received`` into a queue. It speaks only what the platform sends:
unfragmented or fragmented text frames, pings (answered), close; no extensions (the server runs without
per-message deflate). Client frames are masked with a random key as the RFC requires.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import struct
from collections import deque
from collections.abc import Callable
from urllib.parse import urlsplit

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class ConnectionClosed(Exception):
    """The server closed the socket (or it broke)."""


class HandshakeRefused(Exception):
    """The server did not switch protocols (e.g. 403 for a wrong Origin or no session)."""


def _mask(payload: bytes, key: bytes) -> bytes:
    n = len(payload)
    if not n:
        return payload
    repeated = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(repeated, "little")).to_bytes(n, "little")


def _frame(opcode: int, payload: bytes) -> bytes:
    n = len(payload)
    if n < 126:
        header = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 1 << 16:
        header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    key = os.urandom(4)
    return header + key + _mask(payload, key)


class LeanWebSocket(asyncio.Protocol):
    #: Set by the user: a message for which it returns False is dropped where it is parsed, without
    #: waking the task that reads (most of a player's frames need no action).
    keep: Callable[[bytes], bool] | None = None

    def __init__(self, key: str) -> None:
        self.accept = base64.b64encode(hashlib.sha1(key.encode() + _GUID).digest()).decode()
        self.buffer = bytearray()
        self.messages: deque[bytes] = deque()
        self.fragments: list[bytes] = []
        self.opened = asyncio.get_running_loop().create_future()
        self.waiter: asyncio.Future | None = None
        self.closed: BaseException | None = None
        self.transport: asyncio.Transport | None = None

    # ----- asyncio.Protocol ---------------------------------------------------------
    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.opened.done():
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
            del self.buffer[:end + 4]
            headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in head[1:])}
            if head[0].split(" ")[1:2] != ["101"] or headers.get("sec-websocket-accept") != self.accept:
                self.opened.set_exception(HandshakeRefused(head[0]))
                self.transport.close()
                return
            self.opened.set_result(None)
        self._parse()

    def connection_lost(self, exc: Exception | None) -> None:
        self._closed(exc or ConnectionClosed("closed"))
        if not self.opened.done():
            self.opened.set_exception(self.closed)

    # ----- frames -------------------------------------------------------------------
    def _parse(self) -> None:
        buf = self.buffer
        got = False
        while len(buf) >= 2:
            b0, b1 = buf[0], buf[1]
            n, at = b1 & 0x7F, 2
            if n == 126:
                if len(buf) < 4:
                    break
                n, at = struct.unpack_from("!H", buf, 2)[0], 4
            elif n == 127:
                if len(buf) < 10:
                    break
                n, at = struct.unpack_from("!Q", buf, 2)[0], 10
            if len(buf) < at + n:
                break
            payload = bytes(buf[at:at + n])
            del buf[:at + n]
            opcode = b0 & 0x0F
            if opcode in (0x1, 0x2, 0x0):
                if b0 & 0x80:
                    message = b"".join([*self.fragments, payload]) if self.fragments else payload
                    self.fragments = []
                    if self.keep is None or self.keep(message):
                        self.messages.append(message)
                        got = True
                else:
                    self.fragments.append(payload)
            elif opcode == 0x9:
                self.transport.write(_frame(0xA, payload))
            elif opcode == 0x8:
                if not self.transport.is_closing():
                    self.transport.write(_frame(0x8, payload[:2]))
                    self.transport.close()
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                self._closed(ConnectionClosed(f"closed by the server ({code})"))
        if got and self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def _closed(self, exc: BaseException) -> None:
        if self.closed is None:
            self.closed = exc
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    # ----- API ----------------------------------------------------------------------
    async def recv(self) -> bytes:
        """The next whole message (bytes of UTF-8 text); ConnectionClosed once the socket is gone."""
        while not self.messages:
            if self.closed is not None:
                raise self.closed
            self.waiter = asyncio.get_running_loop().create_future()
            await self.waiter
        return self.messages.popleft()

    def send(self, text: str) -> None:
        if self.closed is not None:
            raise self.closed
        self.transport.write(_frame(0x1, text.encode()))

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(_frame(0x8, struct.pack("!H", 1000)))
            self.transport.close()
        self._closed(ConnectionClosed("closed by the client"))


async def connect(url: str, headers: dict[str, str], *, timeout: float = 60) -> LeanWebSocket:
    """Open ``ws://host:port/path`` with extra request headers (Cookie, Origin)."""
    parts = urlsplit(url)
    key = base64.b64encode(os.urandom(16)).decode()
    loop = asyncio.get_running_loop()
    _transport, protocol = await asyncio.wait_for(
        loop.create_connection(lambda: LeanWebSocket(key), parts.hostname, parts.port or 80), timeout)
    request = [f"GET {parts.path or '/'}{'?' + parts.query if parts.query else ''} HTTP/1.1",
               f"Host: {parts.hostname}:{parts.port or 80}", "Upgrade: websocket", "Connection: Upgrade",
               f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13",
               *(f"{name}: {value}" for name, value in headers.items())]
    protocol.transport.write(("\r\n".join(request) + "\r\n\r\n").encode("latin-1"))
    try:
        await asyncio.wait_for(asyncio.shield(protocol.opened), timeout)
    except BaseException:
        protocol.close()
        raise
    return protocol
