"""The table websocket: authenticate, check the envelope, rate-limit, hand moves to the move pool.

Protocol: docs/protocol.md. The consumer never reads another seat's view; it only forwards
frames built for its own seat (or for spectators). Moves go to ``rooms.move_pool``, which applies
them through ``services.table_play`` off the event loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from core.websocket import refuse
from rooms import broadcast, move_pool, relay, selectors
from rooms.errors import TableError
from rooms.models import Table

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 4096
RATE_CAPACITY = 8  # burst
RATE_PER_SECOND = 4.0  # sustained messages per second per connection
CLOSE_UNAUTHENTICATED = 4401
CLOSE_NO_TABLE = 4404


class TableConsumer(AsyncWebsocketConsumer):
    async def dispatch(self, message: dict) -> None:
        # Channels closes old database connections (a thread hop) before every message; here every
        # database access already goes through database_sync_to_async, which does that itself, and
        # most messages (frames to forward, moves to enqueue) never touch the database.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await refuse(self, CLOSE_UNAUTHENTICATED)
            return
        try:
            self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        except (KeyError, ValueError):
            await refuse(self, CLOSE_NO_TABLE)
            return
        seat = await self._seat()
        if seat is False:
            await refuse(self, CLOSE_NO_TABLE)
            return
        self.user = user
        self.user_key = str(user.pk)  # how the broadcaster keys this user's frame
        self.seat: int | None = seat
        self.tokens = float(RATE_CAPACITY)
        self.last_refill = time.monotonic()
        await self.accept()
        # Table messages (each carries every seat's frame and the spectators') come through the
        # process's relay, decoded once for all its sockets; the user's group (logout, tournament
        # moves) through this consumer's own channel.
        self.outbox: deque[dict] = deque()
        self.outbox_sender: asyncio.Task | None = None
        self.relay_joined = relay.for_running_loop(self.channel_layer)
        self.groups_joined = [broadcast.user_group(user.pk)]
        try:
            await self.relay_joined.join(self.table_id, self)
            for group in self.groups_joined:
                await self.channel_layer.group_add(group, self.channel_name)
            await self._send_snapshot()
        except BaseException:
            # A failed connect never gets its disconnect: leave the relay and the groups here, or this
            # socket (and its table's subscription) would stay in the process for good.
            try:
                await self.disconnect(1011)
            except Exception:  # e.g. Redis is what failed: the relay entry is gone, the groups expire
                log.debug("table %s: cleanup after a failed connect", self.table_id, exc_info=True)
            raise

    async def disconnect(self, code: int) -> None:
        if getattr(self, "relay_joined", None) is not None:
            await self.relay_joined.leave(self.table_id, self)
            self.outbox.clear()
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    # ----- incoming ---------------------------------------------------------------
    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        raw = text_data if text_data is not None else (bytes_data or b"").decode("utf-8", "replace")
        if len(raw.encode("utf-8")) > MAX_MESSAGE_BYTES:
            await self._error("too_large", f"Messages are limited to {MAX_MESSAGE_BYTES} bytes.")
            return
        if not self._take_token():
            await self._error("rate_limited", "Too many messages; slow down.")
            return
        try:
            message = json.loads(raw)
        except (ValueError, RecursionError):  # deeply nested input exhausts the decoder's recursion
            await self._error("malformed", "Messages must be JSON objects.")
            return
        if not isinstance(message, dict):
            await self._error("malformed", "Messages must be JSON objects.")
            return
        client_id = message.get("id")
        if client_id is not None and (not isinstance(client_id, (str, int)) or isinstance(client_id, bool)
                                      or len(str(client_id)) > 64):
            await self._error("malformed", "'id' must be a short string or number.")
            return
        kind = message.get("type")
        if kind == "resync":
            await self._send_snapshot(client_id=client_id)
        elif kind == "move":
            await self._move(message, client_id)
        elif kind == "ping":
            await self._send({"type": "pong", "id": client_id})
        else:
            await self._error("unknown_type", "Unknown message type.", client_id)

    async def _move(self, message: dict, client_id) -> None:
        move = message.get("move")
        version = message.get("version")
        if not isinstance(move, dict) or isinstance(version, bool) or not isinstance(version, int):
            await self._error("malformed", "A move needs 'move' (an object) and 'version' (a whole number).", client_id)
            return
        if "auto" in move:
            await self._error("malformed", "Automatic moves are the server's to make.", client_id)
            return
        if version < getattr(self, "last_version", -1):
            # Older than a frame this socket already got: refuse here, no query and no task.
            await self._error("stale_version", "The table moved on; use the latest state.", client_id)
            return
        if self.seat is None:
            await self._error("not_seated", "Spectators cannot make moves.", client_id)
            return
        # The seat was read on connect and follows every state message and seat notice; the move is
        # applied under the table's lock, which checks that this user still holds it.
        try:
            await move_pool.play_async(table_id=self.table_id, seat_number=self.seat, move=move,
                                       expected_version=version, user_id=self.user.pk)
        except TableError as exc:
            await self._error(exc.code, exc.message, client_id, exc.version)
            if exc.code == "stale_version":
                await self._send_snapshot()
        except Exception:  # e.g. the database is down: the socket stays, the client may resync and retry
            log.exception("move on table %s failed", self.table_id)
            await self._error("unavailable", "The move could not be applied just now; try again.", client_id)

    # ----- outgoing (table messages from the relay, sent in order by this socket's own task) ----
    def relay(self, message: dict) -> None:
        """Queue a table message; one task per burst sends them in order, so a socket whose client
        reads slowly holds up only itself."""
        self.outbox.append(message)
        if self.outbox_sender is None:
            self.outbox_sender = asyncio.get_running_loop().create_task(self._send_outbox())

    async def _send_outbox(self) -> None:
        try:
            while self.outbox:
                message = self.outbox.popleft()
                if message["type"] == "table.state":
                    await self.table_state(message)
                elif message["type"] == "table.seats":
                    await self.table_seats(message)
        except Exception:  # the socket went away mid-send: nothing left to tell it
            self.outbox.clear()
            log.debug("table %s: outbox dropped", self.table_id, exc_info=True)
        finally:
            self.outbox_sender = None

    async def table_state(self, event: dict) -> None:
        """Forward this socket's own frame of the move (its user's seat's, or the spectators' when the
        user holds no seat at that version), serialised once by the broadcaster, after the move's
        `event` frame. The seat this socket acts for follows the message."""
        if event["version"] < getattr(self, "last_version", -1):
            return  # broadcasts may overtake each other; never step a client back
        key = self.user_key
        text = event["frames"].get(key)
        if text is None:
            text = event["frames"][broadcast.WATCH]
        self.seat = event["seats"].get(key)
        self.last_version = event["version"]
        if event.get("events"):
            await self.send(text_data=event["events"])
        await self.send(text_data=text)

    async def table_seats(self, event: dict) -> None:
        # Re-read the seat: notices from different processes may arrive out of order, so a seat
        # number carried by one could be older than one already applied (seats are renumbered at
        # the start). Seat changes are rare; a query per notice is cheap.
        seat = await self._seat()
        if seat is not False and seat != self.seat:
            self.seat = seat
            await self._send_snapshot()

    async def tournament_table(self, event: dict) -> None:
        """A tournament seated this user at another table: tell the page so it can follow."""
        await self._send(event["frame"])

    async def user_logout(self, event: dict) -> None:
        await self.close(code=CLOSE_UNAUTHENTICATED)

    # ----- helpers --------------------------------------------------------------------
    def _take_token(self) -> bool:
        now = time.monotonic()
        self.tokens = min(RATE_CAPACITY, self.tokens + (now - self.last_refill) * RATE_PER_SECOND)
        self.last_refill = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    @database_sync_to_async
    def _seat(self):
        """This user's seat number, None for a spectator, False when the table does not exist (for them)."""
        try:
            table = Table.objects.only("id", "is_private", "host_id", "invite_code", "seating").get(pk=self.table_id)
        except Table.DoesNotExist:
            return False
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        user = self.scope["user"]
        if not selectors.may_watch(table=table, user=user, invite_code=(query.get("invite") or [""])[0]):
            return False
        return selectors.seat_number_of(table=table, user_id=user.pk)

    @database_sync_to_async
    def _snapshot(self) -> tuple[int | None, dict]:
        """The frame for the seat this user holds in the row just read (never a seat they do not hold)."""
        table = Table.objects.select_related("room", "host").get(pk=self.table_id)
        seat = selectors.seat_number_of(table=table, user_id=self.user.pk)
        return seat, selectors.table_frame(table=table, seat_number=seat)

    async def _send_snapshot(self, client_id=None) -> None:
        seat, frame = await self._snapshot()
        if frame["version"] < getattr(self, "last_version", -1) and client_id is None:
            return  # the relay sent a newer frame while this one was read: never step a client back
        self.seat = seat
        self.last_version = max(getattr(self, "last_version", -1), frame["version"])
        if client_id is not None:
            frame = {**frame, "id": client_id}
        await self._send(frame)

    async def _error(self, code: str, message: str, client_id=None, version: int | None = None) -> None:
        # Without a version of its own, an error carries the latest version this socket was sent.
        if version is None:
            version = getattr(self, "last_version", None)
        await self._send({"type": "error", "code": code, "message": message, "id": client_id, "version": version})

    async def _send(self, payload: dict) -> None:
        await self.send(text_data=json.dumps(payload, separators=(",", ":")))
