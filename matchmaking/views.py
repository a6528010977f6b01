"""HTML pages (thin): leaderboards and the invite link of a private table."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from matchmaking import selectors, services
from matchmaking.errors import QueueError
from rooms.models import Game
from rooms.selectors import stake_ranges


def leaderboards(request):
    return redirect("matchmaking:leaderboard", game=Game.values[0])


def leaderboard(request, game: str):
    if game not in Game.values:
        raise Http404("no such game")
    return render(request, "matchmaking/leaderboard.html", {
        "game": game, "game_title": Game(game).label, "games": Game.choices,
        "players": selectors.leaderboard(game=game, limit=100)})


@login_required
@require_http_methods(["GET", "POST"])
def invite(request, code: str):
    try:
        table = services.private_table(code=code)
    except QueueError as exc:
        raise Http404(exc.message) from None
    if request.method == "POST":
        try:
            services.private_join(code=code, user=request.user)
        except QueueError as exc:
            if exc.code != "already_seated":
                messages.error(request, exc.message)
                return render(request, "matchmaking/invite.html", {"table": table, "code": code, **_stakes(table)},
                              status=409)
        return redirect(f"/tables/{table.pk}/?invite={code}")
    return render(request, "matchmaking/invite.html", {"table": table, "code": code, **_stakes(table)})


def _stakes(table) -> dict:
    # What sitting down costs, as the lobby says it (a 31 room: pot-limit raises and the week's largest pot).
    return {"stake_range": stake_ranges([table.room]).get(table.room_id, "")}
