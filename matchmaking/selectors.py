"""Reads: a player's queue frame (position, estimated wait), leaderboards, profile ratings."""

from __future__ import annotations

from statistics import median

from django.utils import timezone

from matchmaking import conf
from matchmaking.models import ACTIVE_STATUSES, DEFAULT_MU, DEFAULT_SIGMA, EntryStatus, QueueEntry, Rating
from rooms.models import Game, Room
from wallets import selectors as wallet_selectors


def typical_wait(*, room: Room) -> float:
    """The median wait of the room's recently seated entries, capped by the fill delay (bots fill then)."""
    recent = list(QueueEntry.objects.filter(room=room, status=EntryStatus.SEATED, ended_at__isnull=False)
                  .order_by("-ended_at").values_list("joined_at", "ended_at")[:conf.WAIT_SAMPLE])
    cap = (0 if room.bots_only else room.fill_delay_seconds) + conf.MATCHER_INTERVAL_S
    typical = median((end - start).total_seconds() for start, end in recent) if recent else cap
    return min(typical, cap)


def estimated_wait(*, room: Room, waited: float = 0.0, typical: float | None = None) -> int:
    """Seconds still to wait (never negative)."""
    typical = typical_wait(room=room) if typical is None else typical
    return max(0, round(typical - waited))


def queue_frame(*, entry: QueueEntry | None, now=None) -> dict:
    """The `queue` frame for one entry (docs/matchmaking.md)."""
    if entry is None:
        return {"type": "queue", "status": "none"}
    now = now or timezone.now()
    room = entry.room
    frame: dict = {"type": "queue", "status": entry.status, "entry": entry.pk, "room": room.slug,
                   "game": room.game, "party": entry.party or None,
                   "joined_at": entry.joined_at.isoformat(), "server_time": now.isoformat()}
    if entry.status == EntryStatus.WAITING:
        waited = max(0.0, (now - entry.joined_at).total_seconds())
        frame["position"] = QueueEntry.objects.filter(room=room, status=EntryStatus.WAITING,
                                                      joined_at__lt=entry.joined_at).count() + 1
        frame["waiting"] = QueueEntry.objects.filter(room=room, status=EntryStatus.WAITING).count()
        frame["waited"] = round(waited)
        frame["estimated_wait"] = estimated_wait(room=room, waited=waited)
        frame["bots_after"] = 0 if room.bots_only else room.fill_delay_seconds
    elif entry.status == EntryStatus.SEATED:
        frame["table"] = entry.table_id
    elif entry.status == EntryStatus.REFUSED:
        frame["code"] = entry.error_code
        frame["message"] = entry.error_message
        if entry.error_code == "insufficient_funds":
            # What the REST refusal carries too (currency, needed, balance as of now), so the widget says
            # how much is missing however the refusal reached it.
            frame.update(wallet_selectors.funds_for(user=entry.user, room=room) or {})
    return frame


def active_entry(*, user) -> QueueEntry | None:
    if not getattr(user, "is_authenticated", False):
        return None
    return QueueEntry.objects.filter(user=user, status__in=ACTIVE_STATUSES).select_related("room").first()


def latest_entry(*, user) -> QueueEntry | None:
    """The active entry, else the most recent one (so a client sees `seated` / `refused`)."""
    if not getattr(user, "is_authenticated", False):
        return None
    return active_entry(user=user) or (QueueEntry.objects.filter(user=user).select_related("room")
                                       .order_by("-joined_at", "-pk").first())


def leaderboard(*, game: str, limit: int = 50, offset: int = 0) -> list[dict]:
    rows = (Rating.objects.filter(game=game, games__gt=0).select_related("user")
            .order_by("-ordinal", "-mu", "user_id")[offset:offset + limit])
    return [{"rank": offset + i + 1, "username": r.user.username, "player": r.user.public_name,
             "bot": r.user.is_bot, "style": r.user.bot_style if r.user.is_bot else "",
             "rating": round(r.ordinal, 2), "mu": round(r.mu, 2), "sigma": round(r.sigma, 2), "games": r.games}
            for i, r in enumerate(rows)]


def ratings_of(*, user) -> list[dict]:
    """Every game, rated or not (unrated: the default rating and zero games)."""
    found = {r.game: r for r in Rating.objects.filter(user=user)}
    out = []
    for game, title in Game.choices:
        r = found.get(game)
        mu, sigma, games = (r.mu, r.sigma, r.games) if r else (DEFAULT_MU, DEFAULT_SIGMA, 0)
        out.append({"game": game, "title": title, "rating": round(mu - 3 * sigma, 2), "mu": round(mu, 2),
                    "sigma": round(sigma, 2), "games": games})
    return out


def profile_ratings(user) -> dict:
    """Profile section provider (accounts.selectors.PROFILE_SECTIONS): adds ``ratings``."""
    return {"ratings": ratings_of(user=user)}
