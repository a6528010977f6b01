"""Pages: lobby, table, proof, replay. Thin: every decision is made by rooms.services / the engines."""

from __future__ import annotations

from urllib.parse import urlencode

from django.apps import apps
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from frontend import labels
from frontend import selectors as fe_selectors
from rooms import selectors as room_selectors
from rooms import services as room_services
from rooms.errors import TableError
from rooms.models import Room, SeatStatus, Table, TableStatus

GAMES = ("lembar", "baloot", "cherki", "otuzbir")


def _profile_extras(user) -> dict:
    from accounts.selectors import profile_context

    ctx = profile_context(user=user)
    return {"balances": ctx.get("balances"), "bailout_count": ctx.get("bailout_count")}


@login_required
def lobby(request):
    context = {
        "games": room_selectors.lobby_games(),
        "my_tables": fe_selectors.open_tables_of(request.user),
        "tournaments_enabled": apps.is_installed("tournaments"),
        "queue_labels": labels.queue_labels(),
        **_profile_extras(request.user),
    }
    if context["tournaments_enabled"]:
        context["tournaments"] = fe_selectors.tournaments_list()
    return render(request, "frontend/lobby.html", context)


def _error_message(exc: TableError) -> str:
    return str(labels.error_label(exc.code, exc.message))


@login_required
@require_POST
def play_bots(request, slug):
    room = get_object_or_404(Room, slug=slug, is_open=True)
    try:
        table = room_services.play_with_bots(room=room, user=request.user)
    except TableError as exc:
        messages.error(request, _error_message(exc))
        return redirect("frontend:lobby")
    return redirect("frontend:table", table_id=table.pk)


@login_required
@require_POST
def open_private(request, slug):
    room = get_object_or_404(Room, slug=slug, is_open=True)
    try:
        table = room_services.table_open(room=room, host=request.user, private=True)
        room_services.table_sit(table_id=table.pk, user=request.user)
    except TableError as exc:
        messages.error(request, _error_message(exc))
        return redirect("frontend:lobby")
    return redirect("frontend:table", table_id=table.pk)


def _table_or_404(request, table_id: int) -> Table:
    """Every table page answers 404 for a private table the visitor may not watch (rooms.selectors)."""
    code = request.GET.get("invite") or request.POST.get("invite") or ""
    table = room_selectors.watchable_table(table_id=table_id, user=request.user, invite_code=code)
    if table is None:
        raise Http404("no such table")
    return table


def _with_invite(request, url: str) -> str:
    code = request.GET.get("invite")
    return f"{url}?{urlencode({'invite': code})}" if code else url


@login_required
def table(request, table_id: int):
    table = _table_or_404(request, table_id)
    seat = room_selectors.seat_of(table=table, user=request.user)
    invite_url = None
    if table.is_private and table.host_id == request.user.pk:
        invite_url = request.build_absolute_uri(
            reverse("frontend:table", args=[table.pk]) + f"?invite={table.invite_code}")
    return render(request, "frontend/table.html", {
        "table": table,
        "room": table.room,
        "game": table.game,
        "seated": seat is not None,
        "is_host": table.host_id == request.user.pk,
        "invite_url": invite_url,
        "invite_code": request.GET.get("invite", ""),
        "labels": labels.table_labels(table.game),
        "rules_template": f"frontend/rules/{table.game}.html",
        "free_seats": table.seat_count - table.seats.filter(status=SeatStatus.SEATED).count(),
    })


def _table_action(request, table_id: int, action) -> object:
    table = _table_or_404(request, table_id)
    try:
        action(table)
    except TableError as exc:
        messages.error(request, _error_message(exc))
    url = reverse("frontend:table", args=[table.pk])
    if table.is_private and request.POST.get("invite"):
        url += f"?invite={request.POST['invite']}"
    return redirect(url)


@login_required
@require_POST
def table_sit(request, table_id: int):
    return _table_action(request, table_id,
                         lambda t: room_services.table_sit(table_id=t.pk, user=request.user,
                                                           invite_code=request.POST.get("invite") or None))


@login_required
@require_POST
def table_leave(request, table_id: int):
    return _table_action(request, table_id,
                         lambda t: room_services.table_stand(table_id=t.pk, user=request.user))


@login_required
@require_POST
def table_add_bot(request, table_id: int):
    style = request.POST.get("style") or None
    return _table_action(request, table_id,
                         lambda t: room_services.table_add_bot(table_id=t.pk, by=request.user, style=style))


@login_required
@require_POST
def table_start(request, table_id: int):
    return _table_action(request, table_id,
                         lambda t: room_services.table_start(table_id=t.pk, by=request.user))


def proof(request, table_id: int):
    table = _table_or_404(request, table_id)
    return render(request, "frontend/proof.html", {
        "table": table, "ended": table.ended,
        "labels": labels.proof_labels(),
        "proof_url": _with_invite(request, reverse("frontend:proof-json", args=[table.pk])),
    })


def proof_json(request, table_id: int):
    table = _table_or_404(request, table_id)
    return JsonResponse(room_selectors.proof_document(table=table), json_dumps_params={"indent": 1})


def replay(request, table_id: int):
    table = _table_or_404(request, table_id)
    if not table.ended:
        return render(request, "frontend/replay.html", {"table": table, "ended": False}, status=404)
    return render(request, "frontend/replay.html", {
        "table": table, "ended": True, "game": table.game,
        "frames": room_selectors.replay_frames(table=table),
        "seats": room_selectors.seats_public(table),
        "labels": labels.table_labels(table.game),
    })


__all__ = ["GAMES", "TableStatus"]
