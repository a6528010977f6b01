"""Live pushes: standings to ``tournament.<id>``, the lobby cards to ``tournaments.lobby`` and "your
table" to each player's user group.

Frames (docs/tournaments.md): ``{"type": "tournament.standings", ...}`` to everyone following the
tournament page or one of its tables; ``{"type": "tournament.card", "card": {...}}`` to the lobby;
``{"type": "tournament", "tournament": id, "table": table_id, "number": n, "round": r, "start": bool,
"url": "/tournaments/<id>/table/<n>/"}`` to each seated human's ``rooms.broadcast.user_group``, which
every table, queue and tournament socket of that user joins, so the page in front of the player follows
it: the table page switches to the new hand in place, the tournament page takes the player to their seat
at the start. The layer is lossy: the pages re-read on reconnect.

Every consumer joining the user group must handle the ``tournament.table`` message (a Channels consumer
without a handler for a message type dies); the table and queue consumers do. Setting
``FOLLOW_ON_TABLE_SOCKETS = True`` sends to a tournament-only group instead.
"""

from __future__ import annotations

import logging

from rooms.broadcast import publish, user_group

log = logging.getLogger(__name__)


FOLLOW_ON_TABLE_SOCKETS = True
LOBBY_GROUP = "tournaments.lobby"


def group(tournament_id: int) -> str:
    return f"tournament.{tournament_id}"


def player_group(user_id: int) -> str:
    return user_group(user_id) if FOLLOW_ON_TABLE_SOCKETS else f"tournament.player.{user_id}"


def seat_frame(*, tournament_id: int, table_id: int, number: int, round_number: int | None) -> dict:
    """What a player's pages get when the tournament seats them at a freshly dealt table."""
    from tournaments.selectors import table_url

    return {"type": "tournament", "tournament": tournament_id, "table": table_id, "number": number,
            "round": round_number, "start": round_number == 1,
            "url": table_url(tournament_id=tournament_id, number=number)}


def tournament_changed(tournament_id: int, *, moves: list[tuple[int, int, int]]) -> None:
    """``moves``: (user id, rooms table id, tournament table number) for every human seated this round."""
    from tournaments import selectors

    try:
        snapshot = selectors.live_snapshot(tournament_id=tournament_id)
        messages = [(group(tournament_id), {"type": "tournament.standings", "frame": snapshot})]
        card = selectors.lobby_card(tournament_id=tournament_id)
        if card is not None:
            messages.append((LOBBY_GROUP, {"type": "tournament.card",
                                           "frame": {"type": "tournament.card", "card": card}}))
        for user_id, table_id, number in moves:
            messages.append((player_group(user_id), {
                "type": "tournament.table",
                "frame": seat_frame(tournament_id=tournament_id, table_id=table_id, number=number,
                                    round_number=snapshot.get("round"))}))
        publish(messages)
    except Exception:  # lossy by contract: the page re-reads the snapshot on (re)connect
        log.exception("tournament %s push failed", tournament_id)
