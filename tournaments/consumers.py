"""``/ws/tournaments/<id>/``: live standings, level and bracket of one tournament (push only);
``/ws/tournaments/lobby/``: the lobby's tournament cards.

On connect the socket gets a snapshot; then every change. A logged-in player's socket also joins
its player group, so it receives ``{"type": "tournament", "table": id}`` when seated at the next
table, and ``rooms.broadcast.user_group`` so logging out closes it. The client may send ``resync``
and ``ping``; frames are checked by ``core.websocket.ClientSocket`` as on every socket.
"""

from __future__ import annotations

from channels.db import database_sync_to_async

from core.websocket import CLOSE_NO_SUCH, CLOSE_UNAUTHENTICATED, ClientSocket, refuse
from rooms import broadcast as rooms_broadcast
from tournaments import broadcast, selectors
from tournaments.models import Tournament


class TournamentConsumer(ClientSocket):
    async def connect(self) -> None:
        try:
            self.tournament_id = int(self.scope["url_route"]["kwargs"]["pk"])
        except (KeyError, ValueError):
            await refuse(self, CLOSE_NO_SUCH)
            return
        if not await database_sync_to_async(Tournament.objects.filter(pk=self.tournament_id).exists)():
            await refuse(self, CLOSE_NO_SUCH)
            return
        if not await self.admit():
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

    async def resync(self, client_id) -> None:
        await self._snapshot(client_id)

    async def _snapshot(self, client_id=None) -> None:
        frame = await database_sync_to_async(selectors.live_snapshot)(tournament_id=self.tournament_id)
        if client_id is not None:
            frame = {**frame, "id": client_id}
        await self.send_frame(frame)

    async def tournament_standings(self, event: dict) -> None:
        await self.send_frame(event["frame"])

    async def tournament_table(self, event: dict) -> None:
        await self.send_frame(event["frame"])

    async def user_logout(self, event: dict) -> None:
        await self.close(code=CLOSE_UNAUTHENTICATED)

    async def table_state(self, event: dict) -> None:  # other user-group frames are not for this page
        return


class TournamentLobbyConsumer(ClientSocket):
    """The lobby's cards: ``{"type": "tournament.cards", "cards": [...]}`` on connect and on ``resync``,
    then ``{"type": "tournament.card", "card": {...}}`` whenever one tournament changes. Anyone may watch."""

    async def connect(self) -> None:
        if not await self.admit():
            return
        await self.accept()
        await self.channel_layer.group_add(broadcast.LOBBY_GROUP, self.channel_name)
        self.joined = True
        await self._snapshot()

    async def disconnect(self, code: int) -> None:
        if getattr(self, "joined", False):
            await self.channel_layer.group_discard(broadcast.LOBBY_GROUP, self.channel_name)

    async def resync(self, client_id) -> None:
        await self._snapshot(client_id)

    async def _snapshot(self, client_id=None) -> None:
        cards = await database_sync_to_async(
            lambda: [t.card for t in selectors.lobby_tournaments()])()
        await self.send_frame({"type": "tournament.cards", "cards": cards, "id": client_id})

    async def tournament_card(self, event: dict) -> None:
        await self.send_frame(event["frame"])
