"""The table websocket: authenticate, hand moves to the move pool, forward the table's frames.

The envelope, size and rate limit are checked by ``core.websocket.ClientSocket``, as on every socket.

Protocol: docs/protocol.md. The consumer never reads another seat's view; it only forwards
frames built for its own seat (or for spectators). Moves go to ``live.move_pool``, which applies
them through ``services.table_play`` off the event loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter, deque
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async

from core.loops import one_per_loop
from core.websocket import CLOSE_NO_SUCH, CLOSE_UNAUTHENTICATED, ClientSocket, refuse
from live import extensions, move_pool, relay
from rooms import broadcast, selectors, services
from rooms.errors import TableError
from rooms.models import Table, TableStatus

log = logging.getLogger(__name__)

PRESENCE_REFRESH_S = 20  # well within selectors.PRESENCE_FRESH_S
PRESENCE_COUNTS_RENEWED_EVERY = 90  # refreshes (30 min; the counts live services.PRESENCE_KEEP_S, hours)


class PresenceKeeper:
    """Says every PRESENCE_REFRESH_S that this process's seated table sockets are alive, all in one cache
    round trip (``services.tables_alive``): the sockets of a process that died without closing them stop
    counting after ``selectors.PRESENCE_FRESH_S``. One per event loop; a task per socket, each with its
    own thread hop and two round trips, cost more CPU than the moves' broadcasts at 1,200 sockets."""

    def __init__(self) -> None:
        self.sockets: Counter[tuple[int, int]] = Counter()
        self.task: asyncio.Task | None = None
        self.rounds = 0

    def add(self, table_id: int, user_id: int) -> None:
        self.sockets[(table_id, user_id)] += 1
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._keep())

    def discard(self, table_id: int, user_id: int) -> None:
        key = (table_id, user_id)
        self.sockets[key] -= 1
        if self.sockets[key] <= 0:
            del self.sockets[key]

    async def _keep(self) -> None:
        while True:
            await asyncio.sleep(PRESENCE_REFRESH_S)
            if not self.sockets:
                continue
            self.rounds += 1
            try:
                await database_sync_to_async(services.tables_alive)(
                    connections=list(self.sockets), keep_counts=self.rounds % PRESENCE_COUNTS_RENEWED_EVERY == 0)
            except Exception:
                log.warning("table sockets' presence not refreshed", exc_info=True)


presence_keeper = one_per_loop(PresenceKeeper)  # the running event loop's keeper


class TableConsumer(ClientSocket):
    max_message_bytes = 4096
    errors_carry_version = True  # an error without a version of its own carries the latest one sent

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
            await refuse(self, CLOSE_NO_SUCH)
            return
        if not await self.admit():
            return
        seat, self.spectator_delay_s = await self._seat()
        if seat is False:
            await refuse(self, CLOSE_NO_SUCH)
            return
        self.user = user
        self.user_key = str(user.pk)  # how the broadcaster keys this user's frame
        self.seat: int | None = None
        self.watching = False  # counted among the table's spectators (relay.Watchers)
        self.line: relay.SpectatorLine | None = None  # while a spectator at a table watched late
        self.counting = False  # the client asked for the spectator count (`spectators`)
        # Protocol 2 (docs/protocol.md): a move's `event` and `state` frames come as one websocket frame,
        # a JSON array of the two; protocol 1, the default, sends them as two frames.
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        self.batched = query.get("protocol") == ["2"]
        await self.accept()
        # Table messages (each carries every seat's frame and the spectators') come through the
        # process's relay, decoded once for all its sockets; the user's group (logout, tournament
        # moves) through this consumer's own channel.
        self.outbox: deque[dict] = deque()
        self.outbox_sender: asyncio.Task | None = None
        self.relay_joined = relay.for_running_loop(self.channel_layer)
        self.groups_joined = [broadcast.user_group(user.pk)]
        self._set_seat(seat)  # a late spectator is on the table's line before any frame can reach it
        try:
            if seat is not None:  # a seated player's connection is watched: "reconnecting…" and the grace
                # Before joining (the news that they are back is for the others) and before the snapshot
                # (which lists the seats whose player is away).
                await self._say_present()
                self.presence_kept = presence_keeper()
                self.presence_kept.add(self.table_id, self.user.pk)
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
        presence_kept = getattr(self, "presence_kept", None)
        if presence_kept is not None:
            self.presence_kept = None
            presence_kept.discard(self.table_id, self.user.pk)
            try:
                await database_sync_to_async(services.table_connection)(
                    table_id=self.table_id, user_id=self.user.pk, change="close")
            except Exception:  # the database or cache is down: the others simply do not hear it
                log.warning("table %s: presence not updated on disconnect", self.table_id, exc_info=True)
        if getattr(self, "relay_joined", None) is not None:
            await self.relay_joined.leave(self.table_id, self)
            self.outbox.clear()
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    # ----- incoming (checked by ClientSocket.receive) -------------------------------------
    async def resync(self, client_id) -> None:
        if self.line is not None:  # a late spectator: the table as it was delay_s ago, never as it is now
            await self._send_late_snapshot(client_id)
            return
        await self._send_snapshot(client_id=client_id)

    async def handle(self, kind: str, message: dict, client_id) -> None:
        if kind == "move":
            await self._move(message, client_id)
        elif kind in extensions.CLIENT_FRAMES:  # the chat's frames (live.extensions)
            await extensions.CLIENT_FRAMES[kind](self, message, client_id)
        elif kind == "spectators":
            await self._spectators(client_id)
        else:
            await super().handle(kind, message, client_id)

    async def _move(self, message: dict, client_id) -> None:
        move = message.get("move")
        version = message.get("version")
        if not isinstance(move, dict) or isinstance(version, bool) or not isinstance(version, int):
            await self.send_error("malformed", "A move needs 'move' (an object) and 'version' (a whole number).", client_id)
            return
        if "auto" in move:
            await self.send_error("malformed", "Automatic moves are the server's to make.", client_id)
            return
        if version < getattr(self, "last_version", -1):
            # Older than a frame this socket already got: refuse here, no query and no task.
            await self.send_error("stale_version", "The table moved on; use the latest state.", client_id)
            return
        if self.seat is None:
            await self.send_error("not_seated", "Spectators cannot make moves.", client_id)
            return
        # The seat was read on connect and follows every state message and seat notice; the move is
        # applied under the table's lock, which checks that this user still holds it.
        try:
            await move_pool.play_async(table_id=self.table_id, seat_number=self.seat, move=move,
                                       expected_version=version, user_id=self.user.pk)
        except TableError as exc:
            await self.send_error(exc.code, exc.message, client_id, exc.version)
            if exc.code == "stale_version":
                await self._send_snapshot()
        except Exception:  # e.g. the database is down: the socket stays, the client may resync and retry
            log.exception("move on table %s failed", self.table_id)
            await self.send_error("unavailable", "The move could not be applied just now; try again.", client_id)

    # ----- outgoing (table messages from the relay, sent in order by this socket's own task) ----
    def relay(self, message: dict) -> None:
        """Queue a table message; one task per burst sends them in order, so a socket whose client
        reads slowly holds up only itself. A late spectator's part comes later, from the table's line."""
        if self.line is not None and self.line.holds(message, self.user_key):
            return
        self.outbox.append(message)  # (not through _queue: one call less per socket per move)
        if self.outbox_sender is None:
            self.outbox_sender = asyncio.get_running_loop().create_task(self._send_outbox())

    def relay_late(self, message: dict) -> None:
        """A message from the table's line (``relay.SpectatorLine``), delay_s after it reached the process."""
        self._queue({"type": "table.late", "message": message})

    def _queue(self, message: dict) -> None:
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
                elif message["type"] in extensions.LAYER_MESSAGES:  # the chat: only if this user may read it
                    await extensions.LAYER_MESSAGES[message["type"]](self, message)
                elif message["type"] == "table.late":
                    await self._send_late(message["message"])
                elif message["type"] == "table.watchers":
                    if self.counting:
                        await self._send_spectators(message["count"])
                elif message["type"] == "table.presence":
                    await self.send_frame({"type": "presence", "seat": message["seat"],
                                           "connected": message["connected"]})
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
        seat = event["seats"].get(key)
        if seat != self.seat:
            self._set_seat(seat)
            if self.line is not None:  # no longer seated at a table watched late: late from this frame on
                self._start_late(event)
                return
        self.last_version = event["version"]
        if event.get("events") and self.batched:  # both texts are serialised already: joined, not re-encoded
            await self.send(text_data=f"[{event['events']},{text}]")
            return
        if event.get("events"):
            await self.send(text_data=event["events"])
        await self.send(text_data=text)

    async def table_seats(self, event: dict) -> None:
        # Re-read the seat: notices from different processes may arrive out of order, so a seat
        # number carried by one could be older than one already applied (seats are renumbered at
        # the start). Seat changes are rare; a query per notice is cheap.
        seat, _ = await self._seat()
        if seat is not False and seat != self.seat:
            self._set_seat(seat)
            await self._send_snapshot()

    async def tournament_table(self, event: dict) -> None:
        """A tournament seated this user at another table: tell the page so it can follow."""
        await self.send_frame(event["frame"])

    async def user_logout(self, event: dict) -> None:
        await self.close(code=CLOSE_UNAUTHENTICATED)

    # ----- helpers --------------------------------------------------------------------
    @database_sync_to_async
    def _seat(self) -> tuple[int | None | bool, int]:
        """This user's seat number, None for a spectator, False when the table does not exist (for them);
        and how many seconds late the table's spectators watch."""
        try:
            table = (Table.objects.select_related("room")
                     .only("id", "is_private", "host_id", "invite_code", "seating", "room__stake_kind",
                           "room__spectator_delay_seconds").get(pk=self.table_id))
        except Table.DoesNotExist:
            return False, 0
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        user = self.scope["user"]
        if not selectors.may_watch(table=table, user=user, invite_code=(query.get("invite") or [""])[0]):
            return False, 0
        # The delay keeps spectators from relaying play to a seat; someone who played at this table (and
        # may since have left or been removed) saw it live anyway, and watches the rest live too.
        played = any(entry["user_id"] == user.pk for entry in table.seating)
        return selectors.seat_number_of(table=table, user_id=user.pk), 0 if played else table.room.spectator_delay_s

    @database_sync_to_async
    def _snapshot(self) -> tuple[int | None, dict]:
        """The frame for the seat this user holds in the row just read (never a seat they do not hold)."""
        table = Table.objects.select_related("room", "host").get(pk=self.table_id)
        seat = selectors.seat_number_of(table=table, user_id=self.user.pk)
        return seat, {**selectors.table_frame(table=table, seat_number=seat), "away": selectors.away_seats(table=table)}

    async def _send_snapshot(self, client_id=None) -> None:
        seat, frame = await self._snapshot()
        if seat is None and self.spectator_delay_s and frame["status"] == TableStatus.RUNNING:
            self._set_seat(None)
            self._start_late(relay.snapshot_message(self.table_id, broadcast.dumps(frame), frame["version"]))
            return  # never the running table as it is now
        if frame["version"] < getattr(self, "last_version", -1) and client_id is None:
            return  # the relay sent a newer frame while this one was read: never step a client back
        self._set_seat(seat)
        self.last_version = max(getattr(self, "last_version", -1), frame["version"])
        if client_id is not None:
            frame = {**frame, "id": client_id}
        await self.send_frame(frame)

    def error_version(self) -> int | None:
        return getattr(self, "last_version", None)

    # ----- spectators: counted, and late at a staked table (docs/protocol.md, "Spectators") ----------
    def _set_seat(self, seat: int | None) -> None:
        """Follow this user's seat. A spectator is counted among the table's spectators and, where they
        watch late, takes the spectators' frames from the table's line; a seated player is neither."""
        self.seat = seat
        if seat is None and not self.watching:
            self.watching = True
            self.line = self.relay_joined.spectate(self.table_id, self, user_id=self.user.pk,
                                                   delay_s=self.spectator_delay_s)
        elif seat is not None and self.watching:
            self.watching = False
            self.line = None
            self.relay_joined.unspectate(self.table_id, self)

    def _start_late(self, message: dict) -> None:
        """A late spectator's first state: the line's (the table as it was delay_s ago) at once, or, on a
        line with no state yet, this one (a table message or a snapshot), held delay_s like every later one."""
        line = self.line
        if line is None:
            return
        if line.current is not None:
            self.relay_late(line.current)
        elif not line.holds_a_state():
            line.hold(relay.late_state(message))

    async def _send_late(self, message: dict) -> None:
        if self.line is None:
            return  # seated meanwhile: the player's own frames came at once
        if message["type"] in extensions.LAYER_MESSAGES:
            await extensions.LAYER_MESSAGES[message["type"]](self, message)
        elif message["version"] > getattr(self, "last_version", -1) and self.user_key not in message["seats"]:
            await self.table_state(message)

    async def _send_late_snapshot(self, client_id) -> None:
        current = self.line.current if self.line is not None else None
        if current is None:
            return  # the line's first state is on its way
        frame = json.loads(current["frames"][broadcast.WATCH])
        self.last_version = max(getattr(self, "last_version", -1), frame["version"])
        await self.send_frame({**frame, "id": client_id})

    async def _spectators(self, client_id) -> None:
        """The spectator count, now and (``table.watchers``) whenever it changes."""
        self.counting = True
        try:
            count = await self.relay_joined.watchers.count(self.table_id)
        except Exception:  # Redis away: the count follows with the next change
            log.warning("table %s: spectator count unavailable", self.table_id, exc_info=True)
            count = None
        await self._send_spectators(count, client_id)

    async def _send_spectators(self, count: int | None, client_id=None) -> None:
        await self.send_frame({"type": "spectators", "table": self.table_id, "count": count,
                               "delay": self.spectator_delay_s, "id": client_id})

    async def _say_present(self, change: str = "open") -> None:
        try:
            await database_sync_to_async(services.table_connection)(
                table_id=self.table_id, user_id=self.user.pk, change=change)
        except Exception:  # the database or cache is down: the others simply do not hear it
            log.warning("table %s: presence not updated", self.table_id, exc_info=True)
