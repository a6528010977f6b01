"""Reads for the chat: who writes and reads which channel, a reader's history, mutes, a report's context."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Q
from django.utils import timezone

from chat import conf
from chat.models import Channel, ChatMessage, ChatMute, MuteLevel, SiteMute
from rooms import selectors as room_selectors
from rooms.models import ENDED_STATUSES, Table

BOTH = (Channel.PLAYERS, Channel.SPECTATORS)


def writes_to(*, table: Table, user_id: int) -> str:
    """The channel a user writes into: the players' while seated at the table, else the spectators'."""
    seated = room_selectors.seat_number_of(table=table, user_id=user_id) is not None
    return Channel.PLAYERS if seated else Channel.SPECTATORS


def reads(*, ended: bool, seated: bool) -> tuple[str, ...]:
    """The channels a reader reads: a seated player only the players' until the table has ended;
    spectators (and everyone once it has ended) both."""
    return (Channel.PLAYERS,) if seated and not ended else BOTH


def players_may_read(*, channel: str, ended: bool) -> bool:
    """Whether a message posted now in ``channel`` reaches seated players (the socket's filter)."""
    return channel == Channel.PLAYERS or ended


def is_ended(table: Table) -> bool:
    return table.status in ENDED_STATUSES


def hidden_from(*, sender_id: int, channel: str, in_play: bool) -> list[int]:
    """Users who must not get a message ``sender_id`` posts now: those who muted or blocked the sender,
    and those the sender blocked (except in the players' chat during the game, where every seated
    player reads every other). One query, at the sender's side, so mutes apply at once everywhere."""
    shielded = Q(target_id=sender_id)
    if not (channel == Channel.PLAYERS and in_play):
        shielded |= Q(owner_id=sender_id, level=MuteLevel.BLOCK)
    hidden: set[int] = set()
    for owner_id, target_id in ChatMute.objects.filter(shielded).values_list("owner_id", "target_id"):
        hidden.add(owner_id if target_id == sender_id else target_id)
    return sorted(hidden)


def mutes_of(*, user_id: int) -> dict[str, list[int]]:
    """The users ``user_id`` muted and blocked (for the chat panel's buttons)."""
    found: dict[str, list[int]] = {"muted": [], "blocked": []}
    for target_id, level in ChatMute.objects.filter(owner_id=user_id).values_list("target_id", "level"):
        found["blocked" if level == MuteLevel.BLOCK else "muted"].append(target_id)
    return {key: sorted(ids) for key, ids in found.items()}


def site_muted_until(*, user_id: int, now: datetime | None = None) -> datetime | None:
    """When the user's longest site-wide mute still running ends, or None."""
    now = now or timezone.now()
    return (SiteMute.objects.filter(user_id=user_id, until__gt=now).order_by("-until")
            .values_list("until", flat=True).first())


def message_frame(message: ChatMessage) -> dict:
    """A message as every reader gets it (the `chat` frame, and an entry of `chat_history`)."""
    user = message.user
    return {"type": "chat", "message_id": message.pk, "table": message.table_id, "channel": message.channel,
            "user": user.pk, "name": user.public_name, "bot": user.is_bot,
            "text": message.text or None, "phrase": message.phrase or None,
            "at": message.created_at.isoformat()}


def history(*, table: Table, user_id: int, limit: int | None = None) -> list[dict]:
    """The last ``limit`` messages (CHAT_HISTORY) this user may read at this table, oldest first: the
    channels they read now, without the messages of users they muted or blocked, nor those of users
    who blocked them (but see ``hidden_from``: a block does not hide a player's message said during play)."""
    limit = conf.get("CHAT_HISTORY") if limit is None else limit
    seated = room_selectors.seat_number_of(table=table, user_id=user_id) is not None
    channels = reads(ended=is_ended(table), seated=seated)
    mine = set(ChatMute.objects.filter(owner_id=user_id).values_list("target_id", flat=True))
    blockers = set(ChatMute.objects.filter(target_id=user_id, level=MuteLevel.BLOCK)
                   .values_list("owner_id", flat=True))
    query = (ChatMessage.objects.filter(table=table, channel__in=channels).exclude(user_id__in=mine)
             .select_related("user"))
    if blockers:
        query = query.exclude(Q(user_id__in=blockers) & ~Q(channel=Channel.PLAYERS, in_play=True))
    newest = list(query.order_by("-id")[:limit])
    return [message_frame(m) for m in reversed(newest)]


def readable_message(*, message_id: int, table: Table, user_id: int) -> ChatMessage | None:
    """A message of this table the user may read now (what they may report), or None."""
    seated = room_selectors.seat_number_of(table=table, user_id=user_id) is not None
    channels = reads(ended=is_ended(table), seated=seated)
    return (ChatMessage.objects.filter(pk=message_id, table=table, channel__in=channels)
            .select_related("user").first())


def context_of(*, message: ChatMessage, around: int = 10) -> list[ChatMessage]:
    """The reported message with up to ``around`` messages either side at its table (both channels),
    oldest first: what staff read a report in."""
    base = ChatMessage.objects.filter(table_id=message.table_id).select_related("user")
    before = list(base.filter(id__lt=message.pk).order_by("-id")[:around])
    after = list(base.filter(id__gt=message.pk).order_by("id")[:around])
    return [*reversed(before), message, *after]
