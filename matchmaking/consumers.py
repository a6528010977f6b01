"""The queue websocket ``/ws/queue/``: live `queue` frames for the logged-in player (docs/matchmaking.md).

Push only: joining and leaving go over REST. The client may send `resync` and `ping`.
"""

from __future__ import annotations

import json

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from core.websocket import refuse
from matchmaking import broadcast, selectors
from rooms import broadcast as rooms_broadcast

MAX_MESSAGE_BYTES = 1024
CLOSE_UNAUTHENTICATED = 4401


class QueueConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await refuse(self, CLOSE_UNAUTHENTICATED)
            return
        self.user = user
        await self.accept()
        await self.channel_layer.group_add(broadcast.queue_group(user.pk), self.channel_name)
        await self.channel_layer.group_add(rooms_broadcast.user_group(user.pk), self.channel_name)
        await self._snapshot()

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "user"):
            await self.channel_layer.group_discard(broadcast.queue_group(self.user.pk), self.channel_name)
            await self.channel_layer.group_discard(rooms_broadcast.user_group(self.user.pk), self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        raw = text_data if text_data is not None else (bytes_data or b"").decode("utf-8", "replace")
        if len(raw.encode("utf-8")) > MAX_MESSAGE_BYTES:
            await self._error("too_large", f"Messages are limited to {MAX_MESSAGE_BYTES} bytes.")
            return
        try:
            message = json.loads(raw)
        except ValueError:
            message = None
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
            await self._snapshot(client_id)
        elif kind == "ping":
            await self.send(text_data=json.dumps({"type": "pong", "id": client_id}))
        else:
            await self._error("unknown_type", "Unknown message type.", client_id)

    async def queue_frame(self, event: dict) -> None:
        await self.send(text_data=json.dumps(event["frame"]))

    async def tournament_table(self, event: dict) -> None:
        """A tournament seated this user at a table (sent to every socket of the user)."""
        await self.send(text_data=json.dumps(event["frame"]))

    async def user_logout(self, event: dict) -> None:
        await self.close(code=CLOSE_UNAUTHENTICATED)

    async def _snapshot(self, client_id=None) -> None:
        frame = await database_sync_to_async(self._frame)()
        if client_id is not None:
            frame["id"] = client_id
        await self.send(text_data=json.dumps(frame))

    def _frame(self) -> dict:
        return selectors.queue_frame(entry=selectors.latest_entry(user=self.user))

    async def _error(self, code: str, message: str, client_id=None) -> None:
        await self.send(text_data=json.dumps({"type": "error", "code": code, "message": message, "id": client_id}))
