"""Small read-only queries for the pages (everything else comes from rooms.selectors)."""

from __future__ import annotations

from django.apps import apps
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from rooms.models import ENDED_STATUSES, SeatStatus, StakeKind, Table, TableStatus
from wallets import selectors as wallet_selectors


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


def place_names(*, table_ids, tournament_ids) -> dict[str, dict[int, str]]:
    """Names for the wallet's links: table id -> its room's name, tournament id -> the tournament's name."""
    tables = dict(Table.objects.filter(pk__in=set(table_ids)).values_list("pk", "room__name"))
    tournaments: dict[int, str] = {}
    if tournament_ids and apps.is_installed("tournaments"):
        tournaments = dict(apps.get_model("tournaments", "Tournament").objects.filter(pk__in=set(tournament_ids))
                           .values_list("pk", "name"))
    return {"tables": tables, "tournaments": tournaments}


def stake_ranges(rooms) -> dict[int, str]:
    """Room id -> what a 31 room's "Ante 1 Chip" really risks: raises are pot-limit (otuzbir.md), and
    the largest pot of the last 7 days shows how far that went ("pot-limit raises · largest pot this week
    5,877"). Other rooms are left out: their stake label says it all."""
    ante = [room for room in rooms if room.stake_kind == StakeKind.ANTE]
    if not ante:
        return {}
    pots = wallet_selectors.largest_pots(room_ids=[room.pk for room in ante])
    out = {}
    for room in ante:
        parts = [_("pot-limit raises")]
        if pots.get(room.pk):
            parts.append(_("largest pot this week %(pot)s") % {"pot": number_format(pots[room.pk], force_grouping=True)})
        out[room.pk] = " · ".join(parts)
    return out
