"""Live pushes: standings to ``tournament.<id>`` and "your next table" to each player's user group.

Frames (docs/tournaments.md): ``{"type": "tournament.standings", ...}`` to everyone following the
tournament page; ``{"type": "tournament", "tournament": id, "table": table_id, "round": n}`` to
``rooms.broadcast.user_group(user)``, which every table socket of that user joins, so the table page
can follow its player to the next table. The layer is lossy: the page re-reads on reconnect.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from rooms.broadcast import user_group

log = logging.getLogger(__name__)


def group(tournament_id: int) -> str:
    return f"tournament.{tournament_id}"


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
            messages.append((user_group(user_id), {
                "type": "tournament.table",
                "frame": {"type": "tournament", "tournament": tournament_id, "table": table_id,
                          "round": snapshot.get("round"), "url": f"/tables/{table_id}/"}}))
        async_to_sync(_send_all)(layer, messages)
    except Exception:  # lossy by contract: the page re-reads the snapshot on (re)connect
        log.exception("tournament %s push failed", tournament_id)


async def _send_all(layer, messages: list[tuple[str, dict]]) -> None:
    for name, message in messages:
        await layer.group_send(name, message)
