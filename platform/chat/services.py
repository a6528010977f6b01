"""Everything that changes the chat: post, mute and block, report, and staff's site-wide mutes.

A message is stored first and sent after commit to every socket at the table through the table's
channel-layer group (``rooms.broadcast``); each socket forwards it only if its user may read it
(``chat.socket.forward``). Refusals raise ``ChatError`` with a stable code (docs/protocol.md, "Chat").
"""

from __future__ import annotations

import logging
import math
import random
import time
import unicodedata
from datetime import datetime, timedelta

from celery import current_app
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from chat import conf, selectors
from chat.errors import ChatError
from chat.models import Channel, ChatMessage, ChatMute, ChatReport, MuteLevel, ReportReason, ReportStatus, SiteMute
from chat.phrases import PHRASES
from core.cache import cache
from core.transactions import after_commit
from gameworkers.bots.chat import chat_reply, trigger_of
from rooms import broadcast
from rooms import selectors as room_selectors
from rooms.models import Table

log = logging.getLogger(__name__)

# Bidirectional overrides and isolates can make a message display as something else than it says
# (or spill into the names around it); control characters break the one-line layout.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def clean_text(text: str) -> str:
    """One line of text as it will be stored: whitespace runs and control characters become one space,
    bidirectional overrides go, the ends are trimmed."""
    kept = []
    for ch in text:
        if ch in _BIDI_CONTROLS:
            continue
        kept.append(" " if ch.isspace() or unicodedata.category(ch) == "Cc" else ch)
    return " ".join("".join(kept).split())


def _take(key: str, *, limit: int, window_s: int) -> float:
    """A sliding-window limit in the shared cache (every ASGI process sees it): 0 when allowed (and
    counted), else the seconds until the next one would be. Two processes racing may let one extra
    message through; nothing worse."""
    now = time.time()
    stamps = [t for t in (cache.get(key) or []) if t > now - window_s]
    if len(stamps) >= limit:
        return max(0.1, stamps[0] + window_s - now)
    stamps.append(now)
    cache.set(key, stamps, timeout=window_s + 1)
    return 0.0


def _table(table_id: int) -> Table:
    try:
        return Table.objects.only("id", "status", "seating", "is_private", "host_id", "invite_code").get(pk=table_id)
    except (Table.DoesNotExist, TypeError, ValueError):
        raise ChatError("no_such_table", "There is no such table.") from None


# ----- posting -----------------------------------------------------------------------------

def chat_post(*, table_id: int, user: User, text: str | None = None, phrase: str | None = None,
              channel: str | None = None, invite_code: str | None = None) -> ChatMessage:
    """Post ``text`` or a quick ``phrase`` at a table, into the channel the user writes to (``channel``,
    when given, must be that one: a spectator cannot post into the players' chat). Sent to the table's
    sockets after commit; a human's "good game" may get a bot's canned answer a moment later."""
    if (text is None) == (phrase is None):
        raise ChatError("chat_malformed", "Send either 'text' or 'phrase'.")
    if phrase is not None and (not isinstance(phrase, str) or phrase not in PHRASES):
        raise ChatError("chat_unknown_phrase", "There is no such quick phrase.")
    if text is not None:
        if not isinstance(text, str):
            raise ChatError("chat_malformed", "'text' must be a string.")
        text = clean_text(text)
        if not text:
            raise ChatError("chat_empty", "The message is empty.")
        limit = conf.get("CHAT_MAX_LENGTH")
        if len(text) > limit:
            raise ChatError("chat_too_long", f"Messages are limited to {limit} characters.")
    table = _table(table_id)
    if not room_selectors.may_watch(table=table, user=user, invite_code=invite_code):
        raise ChatError("no_such_table", "There is no such table.")
    own = selectors.writes_to(table=table, user_id=user.pk)
    if channel is not None and channel != own:
        raise ChatError("chat_forbidden", "Only the seated players write in the players' chat."
                        if channel == Channel.PLAYERS else "Players write in the players' chat.")
    until = selectors.site_muted_until(user_id=user.pk)
    if until is not None:
        raise ChatError("chat_muted", f"You may not chat until {until.isoformat()}.")
    wait = _take(f"chat:rate:{user.pk}", limit=conf.get("CHAT_RATE_MESSAGES"), window_s=conf.get("CHAT_RATE_WINDOW_S"))
    if wait:
        raise ChatError("chat_rate_limited", f"Too many messages; wait {math.ceil(wait)} s.",
                        retry_after=wait)
    in_play = not selectors.is_ended(table)
    with transaction.atomic():
        message = ChatMessage.objects.create(table=table, user=user, channel=own, text=text or "",
                                             phrase=phrase or "", in_play=in_play)
        frame = selectors.message_frame(message)
        hidden = selectors.hidden_from(sender_id=user.pk, channel=own, in_play=in_play)
        after_commit(_send, table.pk, frame, channel=own, ended=not in_play, hidden=hidden)
        if not user.is_bot:
            _maybe_bot_reply(table=table, message=message)
    return message


def chat_message(table_id: int, frame: dict, *, channel: str, ended: bool, hidden: list[int]) -> dict:
    """The layer message every socket at the table receives (``chat.socket.forward`` filters it)."""
    return {"type": "table.chat", "table": table_id, "frame": broadcast.dumps(frame), "channel": channel,
            "players_read": selectors.players_may_read(channel=channel, ended=ended), "hidden": hidden}


def _send(table_id: int, frame: dict, *, channel: str, ended: bool, hidden: list[int]) -> None:
    try:
        broadcast.publish([(broadcast.all_group(table_id),
                            chat_message(table_id, frame, channel=channel, ended=ended, hidden=hidden))])
    except Exception:  # lossy like every table frame: the message is stored, a reload shows it
        log.exception("chat broadcast for table %s failed", table_id)


# ----- bots' canned answers ----------------------------------------------------------------

def _maybe_bot_reply(*, table: Table, message: ChatMessage) -> None:
    """At most one seated bot answers a human's quick phrase, decided from public facts only (the
    persona, the phrase, whether the table has ended) with a random draw seeded by public ids, and a
    table hears each answer from a bot once: rare, repeatable, and never about the cards."""
    if message.channel != Channel.PLAYERS:
        return
    trigger = trigger_of(phrase=message.phrase or None, text=message.text or None)
    if trigger is None:
        return
    bots = [e for e in table.seating if e.get("bot") and e["status"] == "seated"]
    for entry in sorted(bots, key=lambda e: e["seat"]):
        rng = random.Random(f"chat:{table.pk}:{message.pk}:{entry['user_id']}")
        reply = chat_reply(persona=entry.get("style") or "", trigger=trigger, ended=not message.in_play, rng=rng)
        if reply is None:
            continue
        if ChatMessage.objects.filter(table=table, user_id=entry["user_id"], phrase=reply).exists():
            continue
        delay_ms = conf.get("CHAT_BOT_REPLY_DELAY_MS")
        delay = rng.uniform(0.6, 1.4) * delay_ms / 1000 if delay_ms > 0 else 0.0
        after_commit(schedule_bot_reply, table.pk, entry["user_id"], reply, delay)
        return


def schedule_bot_reply(table_id: int, bot_id: int, phrase: str, delay_s: float) -> None:
    """Ask the game workers for the bot's answer by task name (the platform never imports the workers;
    the name routes it to the bots' queue). Tests replace this."""
    current_app.send_task("gameworkers.tasks.bot_chat", args=(table_id, bot_id, phrase), countdown=delay_s)


def bot_say(*, table_id: int, bot_id: int, phrase: str) -> ChatMessage | None:
    """A bot's quick phrase, if the bot still sits at the table (its answer came too late otherwise)."""
    bot = User.objects.filter(pk=bot_id, is_bot=True).first()
    table = Table.objects.only("id", "seating").filter(pk=table_id).first()
    if bot is None or table is None or room_selectors.seat_number_of(table=table, user_id=bot_id) is None:
        return None
    try:
        return chat_post(table_id=table_id, user=bot, phrase=phrase)
    except ChatError as exc:
        log.info("bot %s did not answer at table %s: %s", bot_id, table_id, exc.code)
        return None


# ----- mute and block ----------------------------------------------------------------------

LEVELS = {"mute": MuteLevel.MUTE, "block": MuteLevel.BLOCK, "none": None}


def chat_set_mute(*, user: User, target_id: int, level: str) -> ChatMute | None:
    """Mute (``"mute"``), block (``"block"``) or neither (``"none"``) another user, at every table.
    Remembered until changed; the latest choice replaces the earlier one."""
    if level not in LEVELS:
        raise ChatError("chat_malformed", "The level is one of mute, block, none.")
    if isinstance(target_id, bool) or not isinstance(target_id, int):
        raise ChatError("chat_malformed", "'user' must be a user id.")
    if target_id == user.pk:
        raise ChatError("chat_self", "You cannot mute or block yourself.")
    if not User.objects.filter(pk=target_id).exists():
        raise ChatError("chat_no_such_user", "There is no such user.")
    chosen = LEVELS[level]
    with transaction.atomic():
        if chosen is None:
            ChatMute.objects.filter(owner=user, target_id=target_id).delete()
            return None
        mute, _ = ChatMute.objects.update_or_create(owner=user, target_id=target_id, defaults={"level": chosen})
        return mute


# ----- reports -----------------------------------------------------------------------------

def chat_report(*, table_id: int, user: User, message_id: int, reason: str, note: str = "",
                invite_code: str | None = None) -> ChatReport:
    """Report a message the user may read at this table. Reporting the same message again changes
    nothing (the first report stands)."""
    if reason not in ReportReason.values:
        raise ChatError("chat_bad_reason", "Choose one of the reasons: " + ", ".join(ReportReason.values) + ".")
    if isinstance(message_id, bool) or not isinstance(message_id, int):
        raise ChatError("chat_malformed", "'message' must be a message id.")
    if not isinstance(note, str):
        raise ChatError("chat_malformed", "'note' must be a string.")
    note = clean_text(note)[:300]
    table = _table(table_id)
    if not room_selectors.may_watch(table=table, user=user, invite_code=invite_code):
        raise ChatError("no_such_table", "There is no such table.")
    message = selectors.readable_message(message_id=message_id, table=table, user_id=user.pk)
    if message is None:
        raise ChatError("chat_no_such_message", "There is no such message at this table.")
    if message.user_id == user.pk:
        raise ChatError("chat_self", "You cannot report your own message.")
    existing = ChatReport.objects.filter(message=message, reporter=user).first()
    if existing is not None:
        return existing
    if _take(f"chat:report-rate:{user.pk}", limit=conf.get("CHAT_REPORT_RATE"),
             window_s=conf.get("CHAT_REPORT_WINDOW_S")):
        raise ChatError("chat_rate_limited", "Too many reports; try again later.")
    try:
        with transaction.atomic():
            return ChatReport.objects.create(message=message, reporter=user, reported_id=message.user_id,
                                             reason=reason, note=note)
    except IntegrityError:  # the same report from another tab at the same moment
        return ChatReport.objects.get(message=message, reporter=user)


def report_close(*, report: ChatReport, by: User, status: str) -> None:
    """Staff mark a report acted on or dismissed."""
    if status not in (ReportStatus.ACTED, ReportStatus.DISMISSED):
        raise ChatError("chat_bad_status", "A report is closed as acted on or dismissed.")
    ChatReport.objects.filter(pk=report.pk).update(status=status, handled_by=by, handled_at=timezone.now())


# ----- site-wide mutes (staff) -------------------------------------------------------------

def site_mute(*, user_id: int, by: User | None, hours: float | None = None, until: datetime | None = None,
              reason: str = "", report: ChatReport | None = None) -> SiteMute:
    """Staff mute a user in every chat for ``hours`` (or until ``until``). A report it comes from is
    marked acted on."""
    if (hours is None) == (until is None):
        raise ChatError("chat_malformed", "Give either hours or until.")
    now = timezone.now()
    if hours is not None:
        if hours <= 0:
            raise ChatError("chat_malformed", "A mute lasts a positive number of hours.")
        until = now + timedelta(hours=hours)
    if until <= now:
        raise ChatError("chat_malformed", "A mute ends in the future.")
    with transaction.atomic():
        mute = SiteMute.objects.create(user_id=user_id, until=until, reason=reason[:300], report=report,
                                       created_by=by)
        if report is not None and report.status == ReportStatus.OPEN and by is not None:
            report_close(report=report, by=by, status=ReportStatus.ACTED)
    return mute


def site_mute_lift(*, user_id: int) -> int:
    """End every running site-wide mute of the user now; how many there were."""
    now = timezone.now()
    return SiteMute.objects.filter(user_id=user_id, until__gt=now).update(until=now)
