"""HTML pages (thin): the arena list, an arena (leaderboard, join/pause, games to watch), and the
player's game page, which follows them from game to game (docs/arenas.md)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from arenas import selectors, services
from arenas.errors import ArenaError
from arenas.labels import arena_labels
from arenas.models import Arena


def arena_list(request):
    return render(request, "arenas/list.html", {"arenas": selectors.arena_list()})


def arena_detail(request, pk: int):
    arena = get_object_or_404(Arena.objects.select_related("room"), pk=pk)
    player = selectors.player_of(arena=arena, user=request.user)
    return render(request, "arenas/detail.html", {
        "arena": arena, "player": player, "snapshot": selectors.live_snapshot(arena_id=pk),
        "page_data": {"arena": pk, "player": player.pk if player else None,
                      "play_url": selectors.play_url(arena_id=pk), "labels": arena_labels()}})


@login_required
def arena_play(request, pk: int):
    """The player's arena game: the live table of their game now (or their last one, with its result);
    arena_table.js switches it to each next game in place. No game yet: the arena page."""
    from rooms import labels as table_labels
    from rooms import selectors as room_selectors
    from rooms.models import Table

    arena = get_object_or_404(Arena.objects.select_related("room"), pk=pk)
    table_id = selectors.game_table_of(arena=arena, user=request.user)
    if table_id is None:
        return redirect("arenas:detail", pk=pk)
    table = Table.objects.select_related("room").get(pk=table_id)
    player = selectors.player_of(arena=arena, user=request.user)
    return render(request, "arenas/table.html", {
        # what frontend.views.table gives the template (an arena game is never private or hosted)
        "table": table, "room": table.room, "game": table.game,
        "seated": room_selectors.seat_of(table=table, user=request.user) is not None, "is_host": False,
        "invite_url": None, "invite_code": "", "labels": table_labels.table_labels(table.game),
        "rules_template": f"frontend/rules/{table.game}.html", "free_seats": 0,
        "hand_labels": table_labels.hand_labels(),
        "arena": arena,
        "arena_data": {"arena": pk, "table": table.pk, "player": player.pk if player else None,
                       "detail_url": reverse("arenas:detail", args=[pk]), "labels": arena_labels()}})


@login_required
@require_POST
def join(request, pk: int):
    try:
        player = services.join(arena_id=pk, user=request.user)
    except ArenaError as exc:
        messages.error(request, exc.message)
        return redirect("arenas:detail", pk=pk)
    if player.table_id:  # seated at once (others were waiting): straight to the game
        return redirect("arenas:play", pk=pk)
    return redirect("arenas:detail", pk=pk)


@login_required
@require_POST
def pause(request, pk: int):
    try:
        services.pause(arena_id=pk, user=request.user)
    except ArenaError as exc:
        messages.error(request, exc.message)
    return redirect("arenas:detail", pk=pk)
