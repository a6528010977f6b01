"""Small read-only queries for the pages (everything else comes from rooms.selectors)."""

from __future__ import annotations

from django.apps import apps

from rooms.models import ENDED_STATUSES, SeatStatus, Table, TableStatus


def open_tables_of(user, limit: int = 10) -> list[Table]:
    """Tables the user sits at that have not ended (to return to them from the lobby)."""
    return list(Table.objects.filter(seats__user=user, seats__status=SeatStatus.SEATED,
                                     status__in=[TableStatus.OPEN, TableStatus.RUNNING])
                .select_related("room").order_by("-created_at").distinct()[:limit])


def recent_tables_of(user, limit: int = 10) -> list[Table]:
    """The user's latest ended tables (profile: links to proof and replay)."""
    return list(Table.objects.filter(seats__user=user, status__in=ENDED_STATUSES)
                .exclude(seats__status=SeatStatus.STOOD, seats__user=user)
                .select_related("room").order_by("-ended_at").distinct()[:limit])


LOBBY_TOURNAMENT_STATUSES = ("announced", "registering", "running")


def tournaments_list(limit: int = 8) -> list:
    """Upcoming and running tournaments for the lobby, when the tournaments app exists.

    Uses ``tournaments.selectors.lobby_tournaments`` if the app grows one; today it offers
    ``tournament_list()`` (every tournament, newest start first), so the lobby keeps the ones not yet over,
    soonest first.
    """
    try:
        from tournaments import selectors as t_selectors  # type: ignore[import-not-found]
    except ImportError:
        return []
    lister = getattr(t_selectors, "lobby_tournaments", None)
    if lister is not None:
        return list(lister())[:limit]
    lister = getattr(t_selectors, "tournament_list", None)
    if lister is None:
        return []
    current = [t for t in lister() if getattr(t, "status", None) in LOBBY_TOURNAMENT_STATUSES]
    current.sort(key=lambda t: (t.status != "running", t.starts_at, t.pk))
    return current[:limit]


def place_names(*, table_ids, tournament_ids, arena_ids=()) -> dict[str, dict[int, str]]:
    """Names for the wallet's links: table id -> its room's name, tournament id -> the tournament's name,
    arena id -> the arena's name (an app not installed names nothing)."""
    tables = dict(Table.objects.filter(pk__in=set(table_ids)).values_list("pk", "room__name"))

    def names(app: str, model: str, ids) -> dict[int, str]:
        if not ids or not apps.is_installed(app):
            return {}
        return dict(apps.get_model(app, model).objects.filter(pk__in=set(ids)).values_list("pk", "name"))

    return {"tables": tables, "tournaments": names("tournaments", "Tournament", tournament_ids),
            "arenas": names("arenas", "Arena", arena_ids)}


