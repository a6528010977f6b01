"""HTML pages (thin): the list, a tournament (standings, level, next ante), its bracket, and the one
page of each tournament table, which stays open across hands (docs/tournaments.md)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from tournaments import selectors, services
from tournaments.errors import TournamentError
from tournaments.labels import level_text, next_level_text, payouts_text, tournament_labels
from tournaments.models import EntryStatus, Status, Tournament, TournamentTable


def tournament_list(request):
    tournaments = selectors.tournament_list()
    for tournament in tournaments:
        tournament.cancel_note = selectors.cancel_text(tournament=tournament)
    return render(request, "tournaments/list.html", {"tournaments": tournaments})


def _clock(tournament: Tournament) -> dict | None:
    """What a page needs to count down to the next level by itself (levels by minutes, running)."""
    if not (tournament.is_freezeout and tournament.levels_by_minutes and tournament.started_at):
        return None
    level = selectors.level_of(tournament=tournament)
    return {key: level.get(key) for key in ("next_level_at", "next_level", "level_minutes", "last_level")} | {
        "server_now": timezone.now().isoformat()}


def tournament_detail(request, pk: int):
    tournament = get_object_or_404(Tournament.objects.select_related("room"), pk=pk)
    entry = selectors.entry_of(tournament=tournament, user=request.user)
    used = selectors.entries_used(tournament=tournament, user=request.user)
    mine = selectors.current_table_of(tournament=tournament, user=request.user)
    snapshot = selectors.live_snapshot(tournament_id=pk)
    currency = tournament.get_currency_display()
    return render(request, "tournaments/detail.html", {
        "t": tournament, "snapshot": snapshot, "entry": entry,
        "my_table_url": selectors.table_url(tournament_id=pk, number=mine.number) if mine else None,
        "cancel_text": selectors.cancel_text(tournament=tournament),
        "payouts_text": payouts_text(snapshot["payouts"], currency),
        "structure": selectors.payout_structure_rows(tournament=tournament),
        "next_level_text": next_level_text(snapshot.get("level")),
        "offer": selectors.can_register(tournament=tournament, entry=entry, used=used),
        "entries_used": used,
        "page_data": {"tournament": pk, "entry": entry.pk if entry else None,
                      "entry_status": entry.status if entry else None, "labels": tournament_labels(),
                      # formats.js: the prize split's wording, the re-entry button, the level clock
                      "currency": currency, "fee": tournament.entry_fee, "stack": tournament.starting_stack,
                      "entries_used": used, "max_entries": tournament.max_entries,
                      "clock": _clock(tournament), "server_now": timezone.now().isoformat()}})


def tournament_bracket(request, pk: int):
    tournament = get_object_or_404(Tournament, pk=pk)
    return render(request, "tournaments/bracket.html", {"t": tournament, "rounds": selectors.bracket(tournament=tournament)})


def _tournament_table(tournament: Tournament, number: int) -> TournamentTable | None:
    """Table ``number`` now: the 31 table across hands, or the current round's match of that number."""
    tables = tournament.tables.filter(number=number).select_related("table", "table__room")
    if not tournament.is_freezeout:
        tables = tables.filter(round__lte=max(tournament.round, 1)).order_by("-round")
    return tables.first()


@login_required
def tournament_table(request, pk: int, number: int):
    """The tournament table's page: the live table of its current hand with the tournament's facts.
    The page stays across hands (tournament_table.js switches it to the next hand's table in place);
    a reload shows the hand being played now."""
    from rooms import labels as table_labels
    from rooms import selectors as room_selectors

    tournament = get_object_or_404(Tournament.objects.select_related("room"), pk=pk)
    tt = _tournament_table(tournament, number)
    if tt is None or tt.table is None or tt.broken:
        mine = selectors.current_table_of(tournament=tournament, user=request.user)
        if mine is not None and mine.number != number and mine.table_id:
            return redirect(selectors.table_url(tournament_id=pk, number=mine.number))
        if tt is not None and tt.broken:
            messages.info(request, str(tournament_labels()["table_broken"]))
        return redirect("tournaments:detail", pk=pk)
    table = tt.table
    entry = selectors.entry_of(tournament=tournament, user=request.user)
    seat = room_selectors.seat_of(table=table, user=request.user)
    snapshot = selectors.live_snapshot(tournament_id=pk)
    my_row = next((r for r in snapshot["standings"] if entry and r["entry"] == entry.pk), None)
    return render(request, "frontend/table.html", {
        # what frontend.views.table gives the template (a tournament table is never private or hosted)
        "table": table, "room": table.room, "game": table.game, "seated": seat is not None, "is_host": False,
        "invite_url": None, "invite_code": "", "labels": table_labels.table_labels(table.game),
        "rules_template": f"frontend/rules/{table.game}.html", "free_seats": 0,
        "hand_labels": table_labels.hand_labels(),
        # the tournament's own
        "tournament": tournament, "tournament_table": tt, "snapshot": snapshot, "my_row": my_row,
        "level_text": level_text(snapshot.get("level")),
        "next_level_text": next_level_text(snapshot.get("level")),
        "tournament_clock": {"clock": _clock(tournament), "labels": {
            "next_level_in": str(tournament_labels()["next_level_in"])}},
        "tournament_data": {
            "tournament": pk, "number": tt.number, "table": table.pk,
            "entry": entry.pk if entry else None,
            "playing": bool(entry and entry.status == EntryStatus.PLAYING),
            "detail_url": reverse("tournaments:detail", args=[pk]),
            "labels": tournament_labels()}})


@login_required
def tournament_play(request, pk: int):
    """"Go to your table": the player's tournament table now, else the tournament page."""
    tournament = get_object_or_404(Tournament, pk=pk)
    mine = selectors.current_table_of(tournament=tournament, user=request.user)
    if mine is not None and mine.table_id and tournament.status == Status.RUNNING:
        return redirect(selectors.table_url(tournament_id=pk, number=mine.number))
    return redirect("tournaments:detail", pk=pk)


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
