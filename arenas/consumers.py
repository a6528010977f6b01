"""``/ws/arenas/<id>/``: the live leaderboard of one arena (push only; anyone may watch).

On connect the socket gets a snapshot, then every change. A logged-in player's socket also joins
``rooms.broadcast.user_group``: it receives ``{"type": "arena", "table": id, ...}`` when the arena
seats the player at a new game (and logging out closes it). The client may send ``resync`` and
``ping``; frames are checked by ``core.websocket.ClientSocket`` as on every socket.
"""

from __future__ import annotations

from channels.db import database_sync_to_async

from arenas import broadcast, selectors
from arenas.models import Arena
from core.websocket import CLOSE_NO_SUCH, CLOSE_UNAUTHENTICATED, ClientSocket, refuse
from rooms import broadcast as rooms_broadcast


class ArenaConsumer(ClientSocket):
    async def connect(self) -> None:
        try:
            self.arena_id = int(self.scope["url_route"]["kwargs"]["pk"])
        except (KeyError, ValueError):
            await refuse(self, CLOSE_NO_SUCH)
            return
        if not await database_sync_to_async(Arena.objects.filter(pk=self.arena_id).exists)():
            await refuse(self, CLOSE_NO_SUCH)
            return
        if not await self.admit():
            return
        await self.accept()
        self.groups_joined = [broadcast.group(self.arena_id)]
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            self.groups_joined.append(rooms_broadcast.user_group(user.pk))
        for name in self.groups_joined:
            await self.channel_layer.group_add(name, self.channel_name)
        await self._snapshot()

    async def disconnect(self, code: int) -> None:
        for name in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(name, self.channel_name)

    async def resync(self, client_id) -> None:
        await self._snapshot(client_id)

    async def _snapshot(self, client_id=None) -> None:
        frame = await database_sync_to_async(selectors.live_snapshot)(arena_id=self.arena_id)
        if client_id is not None:
            frame = {**frame, "id": client_id}
        await self.send_frame(frame)

    async def arena_standings(self, event: dict) -> None:
        await self.send_frame(event["frame"])

    async def tournament_table(self, event: dict) -> None:
        """A user-group frame (an arena's or a tournament's "your table"): the page tells them apart."""
        await self.send_frame(event["frame"])

    async def user_logout(self, event: dict) -> None:
        await self.close(code=CLOSE_UNAUTHENTICATED)

    async def table_state(self, event: dict) -> None:  # other user-group frames are not for this page
        return
