"""Live pushes: standings to ``tournament.<id>`` and "your next table" to each player's user group.

Frames (docs/tournaments.md): ``{"type": "tournament.standings", ...}`` to everyone following the
tournament page; ``{"type": "tournament", "tournament": id, "table": table_id, "round": n}`` to each
seated human's player group, so the page can follow its player to the next table. The layer is lossy:
the page re-reads on reconnect.

The player group is ``tournament.player.<user>`` (joined by the tournament socket) until the table and
queue consumers handle the ``tournament.table`` group message: a Channels consumer without a handler
for a message type dies, so pushing it to ``rooms.broadcast.user_group`` today would close every table
socket of the player. Once they forward it, set ``FOLLOW_ON_TABLE_SOCKETS = True``.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from rooms.broadcast import user_group

log = logging.getLogger(__name__)


FOLLOW_ON_TABLE_SOCKETS = False


def group(tournament_id: int) -> str:
    return f"tournament.{tournament_id}"


def player_group(user_id: int) -> str:
    return user_group(user_id) if FOLLOW_ON_TABLE_SOCKETS else f"tournament.player.{user_id}"


def tournament_changed(tournament_id: int, *, moves: list[tuple[int, int]]) -> None:
    """``moves``: (user id, rooms table id) for every human seated this round."""
    from tournaments import selectors

    layer = get_channel_layer()
    if layer is None:
        return
    try:
        snapshot = selectors.live_snapshot(tournament_id=tournament_id)
        messages = [(group(tournament_id), {"type": "tournament.standings", "frame": snapshot})]
        for user_id, table_id in moves:
            messages.append((player_group(user_id), {
                "type": "tournament.table",
                "frame": {"type": "tournament", "tournament": tournament_id, "table": table_id,
                          "round": snapshot.get("round"), "url": f"/tables/{table_id}/"}}))
        async_to_sync(_send_all)(layer, messages)
    except Exception:  # lossy by contract: the page re-reads the snapshot on (re)connect
        log.exception("tournament %s push failed", tournament_id)


async def _send_all(layer, messages: list[tuple[str, dict]]) -> None:
    for name, message in messages:
        await layer.group_send(name, message)
