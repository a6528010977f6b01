"""The queue websocket ``/ws/queue/``: live `queue` frames for the logged-in player (docs/matchmaking.md),
and with ``?live=1`` (the lobby) the `live_now` list of public games being played (``broadcast.LiveNowFeed``).

Push only: joining and leaving go over REST. The client may send `resync` and `ping`; frames are checked
by ``core.websocket.ClientSocket`` as on every socket.
"""

from __future__ import annotations

import asyncio
import logging
from urllib.parse import parse_qs

from channels.db import database_sync_to_async

from core.websocket import CLOSE_UNAUTHENTICATED, ClientSocket, refuse
from matchmaking import broadcast, selectors
from rooms import broadcast as rooms_broadcast

log = logging.getLogger(__name__)


class QueueConsumer(ClientSocket):
    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await refuse(self, CLOSE_UNAUTHENTICATED)
            return
        if not await self.admit():
            return
        self.user = user
        await self.accept()
        await self.channel_layer.group_add(broadcast.queue_group(user.pk), self.channel_name)
        await self.channel_layer.group_add(rooms_broadcast.user_group(user.pk), self.channel_name)
        await self._snapshot()
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        self.live = (query.get("live") or [""])[0] == "1"
        if self.live:
            await broadcast.live_feed().join(self)

    async def disconnect(self, code: int) -> None:
        if getattr(self, "live", False):
            broadcast.live_feed().leave(self)
        if hasattr(self, "user"):
            await self.channel_layer.group_discard(broadcast.queue_group(self.user.pk), self.channel_name)
            await self.channel_layer.group_discard(rooms_broadcast.user_group(self.user.pk), self.channel_name)

    async def resync(self, client_id) -> None:
        await self._snapshot(client_id)
        if getattr(self, "live", False):
            self.push_live(await broadcast.live_feed().current())

    def push_live(self, text: str) -> None:
        """Send a `live_now` frame (serialised once by the feed for every lobby) without holding up the feed."""
        asyncio.get_running_loop().create_task(self._send_live(text))

    async def _send_live(self, text: str) -> None:
        try:
            await self.send(text_data=text)
        except Exception:  # the socket went away meanwhile
            log.debug("live now: a lobby socket could not take the list", exc_info=True)

    async def queue_frame(self, event: dict) -> None:
        await self.send_frame(event["frame"])

    async def tournament_table(self, event: dict) -> None:
        """A tournament seated this user at a table (sent to every socket of the user)."""
        await self.send_frame(event["frame"])

    async def user_logout(self, event: dict) -> None:
        await self.close(code=CLOSE_UNAUTHENTICATED)

    async def _snapshot(self, client_id=None) -> None:
        frame = await database_sync_to_async(self._frame)()
        if client_id is not None:
            frame["id"] = client_id
        await self.send_frame(frame)

    def _frame(self) -> dict:
        return selectors.queue_frame(entry=selectors.latest_entry(user=self.user))
