"""Live pushes: standings to ``tournament.<id>`` and "your next table" to each player's user group.

Frames (docs/tournaments.md): ``{"type": "tournament.standings", ...}`` to everyone following the
tournament page; ``{"type": "tournament", "tournament": id, "table": table_id, "round": n}`` to each
seated human's ``rooms.broadcast.user_group``, which every table, queue and tournament socket of that
user joins, so the page in front of the player follows it to the next table. The layer is lossy: the
page re-reads on reconnect.

Every consumer joining the user group must handle the ``tournament.table`` message (a Channels consumer
without a handler for a message type dies); the table and queue consumers do. Setting
``FOLLOW_ON_TABLE_SOCKETS = True`` sends to a tournament-only group instead.
"""

from __future__ import annotations

import logging

from rooms.broadcast import publish, user_group

log = logging.getLogger(__name__)


FOLLOW_ON_TABLE_SOCKETS = True


def group(tournament_id: int) -> str:
    return f"tournament.{tournament_id}"


def player_group(user_id: int) -> str:
    return user_group(user_id) if FOLLOW_ON_TABLE_SOCKETS else f"tournament.player.{user_id}"


def tournament_changed(tournament_id: int, *, moves: list[tuple[int, int]]) -> None:
    """``moves``: (user id, rooms table id) for every human seated this round."""
    from tournaments import selectors

    try:
        snapshot = selectors.live_snapshot(tournament_id=tournament_id)
        messages = [(group(tournament_id), {"type": "tournament.standings", "frame": snapshot})]
        for user_id, table_id in moves:
            messages.append((player_group(user_id), {
                "type": "tournament.table",
                "frame": {"type": "tournament", "tournament": tournament_id, "table": table_id,
                          "round": snapshot.get("round"), "url": f"/tables/{table_id}/"}}))
        publish(messages)
    except Exception:  # lossy by contract: the page re-reads the snapshot on (re)connect
        log.exception("tournament %s push failed", tournament_id)

