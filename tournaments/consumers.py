"""``/ws/tournaments/<id>/``: live standings, level and bracket of one tournament (push only).

On connect the socket gets a snapshot; then every change. A logged-in player's socket also joins
its player group, so it receives ``{"type": "tournament", "table": id}`` when seated at the next
table, and ``rooms.broadcast.user_group`` so logging out closes it. The client may send ``resync``
and ``ping``.
"""

from __future__ import annotations

import json

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from core.websocket import refuse
from rooms import broadcast as rooms_broadcast
from tournaments import broadcast, selectors
from tournaments.models import Tournament

MAX_MESSAGE_BYTES = 1024
CLOSE_NO_SUCH = 4404


class TournamentConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.tournament_id = int(self.scope["url_route"]["kwargs"]["pk"])
        if not await database_sync_to_async(Tournament.objects.filter(pk=self.tournament_id).exists)():
            await refuse(self, CLOSE_NO_SUCH)
            return
        await self.accept()
        self.groups_joined = [broadcast.group(self.tournament_id)]
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            self.groups_joined.append(rooms_broadcast.user_group(user.pk))
            if broadcast.player_group(user.pk) != rooms_broadcast.user_group(user.pk):
                self.groups_joined.append(broadcast.player_group(user.pk))
        for name in self.groups_joined:
            await self.channel_layer.group_add(name, self.channel_name)
        await self._snapshot()

    async def disconnect(self, code: int) -> None:
        for name in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(name, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        raw = text_data if text_data is not None else (bytes_data or b"").decode("utf-8", "replace")
        message = None
        if len(raw.encode("utf-8")) <= MAX_MESSAGE_BYTES:
            try:
                message = json.loads(raw)
            except ValueError:
                message = None
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "resync":
            await self._snapshot()
        elif kind == "ping":
            await self.send(text_data=json.dumps({"type": "pong"}))
        else:
            await self.send(text_data=json.dumps({"type": "error", "code": "malformed",
                                                  "message": "Send {\"type\": \"resync\"} or {\"type\": \"ping\"}."}))

    async def _snapshot(self) -> None:
        frame = await database_sync_to_async(selectors.live_snapshot)(tournament_id=self.tournament_id)
        await self.send(text_data=json.dumps(frame, default=str))

    async def tournament_standings(self, event: dict) -> None:
        await self.send(text_data=json.dumps(event["frame"], default=str))

    async def tournament_table(self, event: dict) -> None:
        await self.send(text_data=json.dumps(event["frame"]))

    async def user_logout(self, event: dict) -> None:
        await self.close()

    async def table_state(self, event: dict) -> None:  # other user-group frames are not for this page
        return
