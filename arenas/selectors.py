"""Reads: the live snapshot (the leaderboard frame), the lobby's arenas, a player's entry and game."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Count, Q
from django.urls import reverse
from django.utils import timezone

from arenas import logic
from arenas.models import ENDED, HOLDING, Arena, ArenaGame, ArenaPlayer, PlayerStatus, Status
from wallets.services import rake_of

STANDINGS_LIMIT = 500  # rows in a pushed frame; a larger arena shows its top 500
GAMES_LIMIT = 50  # games in progress listed (watchable)
SHEET_LENGTH = 12  # the last results shown per player


def play_url(*, arena_id: int) -> str:
    return reverse("arenas:play", args=[arena_id])


def arena_list() -> list[Arena]:
    return list(Arena.objects.select_related("room").order_by("-starts_at", "-id")[:100])


def lobby_arenas(*, now: datetime | None = None, limit: int = 5) -> list[Arena]:
    """Running arenas first, then the next scheduled ones."""
    now = now or timezone.now()
    rows = list(Arena.objects.filter(Q(status=Status.RUNNING) | Q(status=Status.SCHEDULED, ends_at__gt=now))
                .order_by("starts_at", "pk")[:limit * 2])
    rows.sort(key=lambda a: (a.status != Status.RUNNING, a.starts_at, a.pk))
    counts = dict(ArenaPlayer.objects.filter(arena__in=rows, status__in=HOLDING).values("arena")
                  .annotate(n=Count("pk")).values_list("arena", "n"))
    rows = rows[:limit]
    for arena in rows:
        arena.player_count = counts.get(arena.pk, 0)
        arena.card = lobby_card(arena=arena, players=arena.player_count, now=now)
    return rows


def lobby_card(*, arena: Arena, players: int | None = None, now: datetime | None = None) -> dict:
    """The lobby's facts about one arena: status, window, players joined and the leader. Rendered by the
    lobby's arena card and pushed on every leaderboard push (``broadcast.arena_changed``); the page counts
    the time down by itself from ``server_time``."""
    now = now or timezone.now()
    if players is None:
        players = arena.players.filter(status__in=HOLDING).count()
    top = (arena.players.exclude(status=PlayerStatus.WITHDRAWN).filter(games__gt=0).select_related("user")
           .order_by("-score", "joined_at", "pk").first())
    return {"id": arena.pk, "status": arena.status, "players": players, "starts_at": arena.starts_at.isoformat(),
            "ends_at": arena.ends_at.isoformat(), "server_time": now.isoformat(),
            "cancel_reason": arena.cancel_reason or None,
            "leader": {"name": top.user.public_name, "score": top.score} if top is not None else None}


def player_of(*, arena: Arena, user) -> ArenaPlayer | None:
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return arena.players.filter(user=user).first()


def game_table_of(*, arena: Arena, user) -> int | None:
    """The rooms table of the player's game now, else of their latest game in this arena."""
    player = player_of(arena=arena, user=user)
    if player is None:
        return None
    if player.table_id:
        return player.table_id
    return (ArenaGame.objects.filter(arena=arena, table__seats__user=user).order_by("-created_at", "-pk")
            .values_list("table_id", flat=True).first())


def prize_table(*, arena: Arena, pool: int) -> list[dict]:
    """What each paid place gets of ``pool`` (before any tie splits it)."""
    amounts = logic.prize_amounts(pool=pool, payouts=list(arena.payouts), places=len(arena.payouts))
    return [{"place": i + 1, "percent": percent, "amount": amount}
            for i, (percent, amount) in enumerate(zip(arena.payouts, amounts, strict=False))]


def live_snapshot(*, arena_id: int, now: datetime | None = None) -> dict:
    """The leaderboard frame (docs/arenas.md, "Live"): the window, the prize pool, the standings with
    ranks, streaks and each player's game now, and the games in progress."""
    now = now or timezone.now()
    arena = Arena.objects.select_related("room").get(pk=arena_id)
    players = list(arena.players.exclude(status=PlayerStatus.WITHDRAWN).select_related("user")
                   .order_by("-score", "joined_at", "pk"))
    held = [p for p in players if p.status in HOLDING]
    pool = sum(p.paid for p in held)
    prize_pool = arena.pool if arena.status == Status.FINISHED else pool - rake_of(pot=pool, rake_bps=arena.rake_bps)
    ranks = logic.competition_ranks({p.pk: p.score for p in players})
    standings = []
    for p in players[:STANDINGS_LIMIT]:
        standings.append({
            "player": p.pk, "name": p.user.public_name, "user": p.user_id, "score": p.score, "games": p.games,
            "wins": p.wins, "streak": p.streak, "fire": p.on_fire,
            "sheet": (p.sheet or [])[-SHEET_LENGTH:], "rank": ranks.get(p.pk), "status": p.status,
            "note": p.note, "table": p.table_id,
            "table_url": reverse("frontend:table", args=[p.table_id]) if p.table_id else None,
            "place": p.place, "prize": p.prize})
    games = []
    for game in (ArenaGame.objects.filter(arena=arena, scored=False).select_related("table")
                 .order_by("-created_at", "-pk")[:GAMES_LIMIT]):
        games.append({"table": game.table_id, "url": reverse("frontend:table", args=[game.table_id]),
                      "players": [{"name": e["player"], "bot": e["bot"]} for e in game.table.seating or []],
                      "started_at": game.created_at.isoformat()})
    over = arena.status in ENDED
    return {
        "type": "arena.standings", "arena": arena.pk, "name": arena.name, "game": arena.game,
        "status": arena.status, "starts_at": arena.starts_at.isoformat(), "ends_at": arena.ends_at.isoformat(),
        "server_time": now.isoformat(), "window_over": over or now >= arena.ends_at,
        "seconds_to_start": max(0, int((arena.starts_at - now).total_seconds())),
        "seconds_left": 0 if over else max(0, int((arena.ends_at - now).total_seconds())),
        "players": len(players), "playing": sum(1 for p in players if p.table_id),
        "seats": arena.seats, "bot_fill_seconds": arena.bot_fill_seconds,
        "currency": arena.currency, "entry_fee": arena.entry_fee, "rake_bps": arena.rake_bps,
        "pool": pool, "prize_pool": prize_pool, "payouts": prize_table(arena=arena, pool=prize_pool),
        "cancel_reason": arena.cancel_reason or None,
        "standings": standings, "games": games,
    }
