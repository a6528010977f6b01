"""``/ws/tournaments/lobby/``: the lobby's live cards, the page that shows both tournaments and arenas
(the path keeps its name: clients know it). Anyone may watch; frames are checked by
``core.websocket.ClientSocket`` as on every socket."""

from __future__ import annotations

from channels.db import database_sync_to_async
from django.apps import apps

from core.websocket import ClientSocket
from tournaments.broadcast import LOBBY_GROUP


def _tournament_cards() -> list[dict]:
    from tournaments.selectors import lobby_tournaments

    return [t.card for t in lobby_tournaments()]


def _arena_cards() -> list[dict] | None:
    """The lobby's arena cards (``arenas.selectors.lobby_card``), None without the arenas app."""
    if not apps.is_installed("arenas"):
        return None
    from arenas.selectors import lobby_arenas

    return [a.card for a in lobby_arenas()]


class LobbyConsumer(ClientSocket):
    """The lobby's cards: ``{"type": "tournament.cards", "cards": [...]}`` and ``{"type": "arena.cards",
    ...}`` on connect and on ``resync``, then ``{"type": "tournament.card", "card": {...}}`` whenever one
    tournament changes and ``{"type": "arena.card", ...}`` whenever one arena does (``arenas.broadcast``
    sends it as the group type ``tournament.card``). Anyone may watch."""

    async def connect(self) -> None:
        if not await self.admit():
            return
        await self.accept()
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        self.joined = True
        await self._snapshot()

    async def disconnect(self, code: int) -> None:
        if getattr(self, "joined", False):
            await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)

    async def resync(self, client_id) -> None:
        await self._snapshot(client_id)

    async def _snapshot(self, client_id=None) -> None:
        cards = await database_sync_to_async(_tournament_cards)()
        await self.send_frame({"type": "tournament.cards", "cards": cards, "id": client_id})
        arena_cards = await database_sync_to_async(_arena_cards)()
        if arena_cards:  # none listed: the lobby shows no arena card to update
            await self.send_frame({"type": "arena.cards", "cards": arena_cards, "id": client_id})

    async def tournament_card(self, event: dict) -> None:
        await self.send_frame(event["frame"])
