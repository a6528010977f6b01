"""``/ws/tournaments/<id>/``: live standings, level and bracket of one tournament (push only);
the lobby's socket (tournament and arena cards) is ``frontend.consumers.LobbyConsumer``.

On connect the socket gets a snapshot; then every change. A logged-in player's socket also joins
its player group, so it receives ``{"type": "tournament", "table": id}`` when seated at the next
table, and ``rooms.broadcast.user_group`` so logging out closes it. The client may send ``resync``
and ``ping``; frames are checked by ``core.websocket.ClientSocket`` as on every socket.
"""

from __future__ import annotations

from channels.db import database_sync_to_async

from core.websocket import LivePageSocket
from rooms import broadcast as rooms_broadcast
from tournaments import broadcast, selectors
from tournaments.models import Tournament


class TournamentConsumer(LivePageSocket):
    async def exists(self, pk: int) -> bool:
        return await database_sync_to_async(Tournament.objects.filter(pk=pk).exists)()

    def page_groups(self, pk: int, user) -> list[str]:
        groups = [broadcast.group(pk)]
        if user is not None and user.is_authenticated:
            groups.append(rooms_broadcast.user_group(user.pk))
            if broadcast.player_group(user.pk) != rooms_broadcast.user_group(user.pk):
                groups.append(broadcast.player_group(user.pk))
        return groups

    def snapshot(self, pk: int) -> dict:
        return selectors.live_snapshot(tournament_id=pk)

    async def tournament_standings(self, event: dict) -> None:
        await self.send_frame(event["frame"])

    async def tournament_table(self, event: dict) -> None:
        await self.send_frame(event["frame"])
