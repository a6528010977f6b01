"""HTML pages (thin): the list, a tournament (standings, level, next ante) and its bracket."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from tournaments import selectors, services
from tournaments.errors import TournamentError
from tournaments.models import Tournament


def tournament_list(request):
    return render(request, "tournaments/list.html", {"tournaments": selectors.tournament_list()})


def tournament_detail(request, pk: int):
    tournament = get_object_or_404(Tournament.objects.select_related("room"), pk=pk)
    return render(request, "tournaments/detail.html", {
        "t": tournament, "snapshot": selectors.live_snapshot(tournament_id=pk),
        "entry": selectors.entry_of(tournament=tournament, user=request.user)})


def tournament_bracket(request, pk: int):
    tournament = get_object_or_404(Tournament, pk=pk)
    return render(request, "tournaments/bracket.html", {"t": tournament, "rounds": selectors.bracket(tournament=tournament)})


@login_required
@require_POST
def register(request, pk: int):
    partner = None
    name = (request.POST.get("partner") or "").strip()[:150]
    try:
        if name:
            partner = get_user_model().objects.filter(username=name).first()
            if partner is None:
                raise TournamentError("no_such_partner", "Your partner is not registered.")
        services.register(tournament_id=pk, user=request.user, partner=partner)
    except TournamentError as exc:
        messages.error(request, exc.message)
    return redirect("tournaments:detail", pk=pk)


@login_required
@require_POST
def unregister(request, pk: int):
    try:
        services.unregister(tournament_id=pk, user=request.user)
    except TournamentError as exc:
        messages.error(request, exc.message)
    return redirect("tournaments:detail", pk=pk)
