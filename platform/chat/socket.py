"""The chat's side of the table websocket (``live.consumers.TableConsumer`` hands chat frames here).

Client frames ``{"type": "chat", ...}`` go to ``handle``; the table's ``table.chat`` layer messages to
``forward``, which sends a message on only to a socket whose user may read it; ``send_history`` sends
the last messages the user may read when the client asks (chat.js does after every connect: the server
does not push it, so sockets that do not chat cost nothing more). Protocol: docs/protocol.md, "Chat".
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async

from chat import selectors, services
from chat.errors import ChatError
from chat.models import Channel
from rooms.models import Table

log = logging.getLogger(__name__)

MUTE_ACTIONS = {"mute": "mute", "block": "block", "unmute": "none", "unblock": "none"}


def _invite(consumer) -> str:
    query = parse_qs(consumer.scope.get("query_string", b"").decode("latin-1"))
    return (query.get("invite") or [""])[0]


@database_sync_to_async
def _history_frame(table_id: int, user_id: int) -> dict:
    table = Table.objects.only("id", "status", "seating").get(pk=table_id)
    channel = selectors.writes_to(table=table, user_id=user_id)
    until = selectors.site_muted_until(user_id=user_id)
    return {"type": "chat_history", "table": table_id, "channel": channel,
            "reads": list(selectors.reads(ended=selectors.is_ended(table), seated=channel == Channel.PLAYERS)),
            "messages": selectors.history(table=table, user_id=user_id),
            **selectors.mutes_of(user_id=user_id),
            "muted_until": until.isoformat() if until is not None else None}


async def send_history(consumer, client_id: Any = None) -> None:
    frame = await _history_frame(consumer.table_id, consumer.user.pk)
    if client_id is not None:
        frame["id"] = client_id
    await consumer.send_frame(frame)


async def handle(consumer, message: dict, client_id: Any) -> None:
    """One client `chat` frame: say something, mute/block/unmute/unblock a user, report a message, or
    ask for the history again. A refusal is an `error` frame with the chat's code."""
    action = message.get("action", "say")
    try:
        if not isinstance(action, str):
            raise ChatError("chat_malformed", "'action' must be a string.")
        if action == "say":
            await database_sync_to_async(services.chat_post)(
                table_id=consumer.table_id, user=consumer.user, text=message.get("text"),
                phrase=message.get("phrase"), channel=message.get("channel"), invite_code=_invite(consumer))
        elif action in MUTE_ACTIONS:
            await database_sync_to_async(services.chat_set_mute)(
                user=consumer.user, target_id=message.get("user"), level=MUTE_ACTIONS[action])
            await send_history(consumer, client_id)  # the panel redraws without (or with) their messages
        elif action == "report":
            report = await database_sync_to_async(services.chat_report)(
                table_id=consumer.table_id, user=consumer.user, message_id=message.get("message"),
                reason=message.get("reason"), note=message.get("note") or "", invite_code=_invite(consumer))
            await consumer.send_frame({"type": "chat_ack", "action": "report", "message_id": report.message_id,
                                       "id": client_id})
        elif action == "history":
            await send_history(consumer, client_id)
        else:
            raise ChatError("chat_malformed", "Unknown chat action.")
    except ChatError as exc:
        await consumer.send_error(exc.code, exc.message, client_id)
    except Exception:  # e.g. the database is down: the socket stays
        log.exception("chat on table %s failed", consumer.table_id)
        await consumer.send_error("unavailable", "The chat is not available just now; try again.", client_id)


async def forward(consumer, message: dict) -> None:
    """Send a `table.chat` message's frame on if this socket's user may read it: not one the sender's
    mutes or blocks keep from them, and a spectators' message reaches a seated player only once the
    table has ended. The seat is the socket's own, kept by the table messages."""
    if consumer.user.pk in message["hidden"]:
        return
    if not message["players_read"] and consumer.seat is not None:
        return
    await consumer.send(text_data=message["frame"])
