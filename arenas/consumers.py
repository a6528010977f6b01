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
from core.websocket import LivePageSocket
from rooms import broadcast as rooms_broadcast


class ArenaConsumer(LivePageSocket):
    async def exists(self, pk: int) -> bool:
        return await database_sync_to_async(Arena.objects.filter(pk=pk).exists)()

    def page_groups(self, pk: int, user) -> list[str]:
        groups = [broadcast.group(pk)]
        if user is not None and user.is_authenticated:
            groups.append(rooms_broadcast.user_group(user.pk))
        return groups

    def snapshot(self, pk: int) -> dict:
        return selectors.live_snapshot(arena_id=pk)

    async def arena_standings(self, event: dict) -> None:
        await self.send_frame(event["frame"])

    async def tournament_table(self, event: dict) -> None:
        """A user-group frame (an arena's or a tournament's "your table"): the page tells them apart."""
        await self.send_frame(event["frame"])
