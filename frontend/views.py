"""Pages: lobby, table, proof, replay, wallet. Thin: every decision is made by rooms.services / the engines,
every number by a selector."""

from __future__ import annotations

import functools
import io
import zipfile
from urllib.parse import urlencode

from django.apps import apps
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils.formats import number_format
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from frontend import selectors as fe_selectors
from rooms import labels
from rooms import selectors as room_selectors
from rooms import services as room_services
from rooms.errors import TableError
from rooms.models import Room, SeatStatus, StopReason, Table, TableStatus
from wallets import selectors as wallet_selectors
from wallets.models import Currency


def _profile_extras(user) -> dict:
    from accounts.selectors import profile_context

    ctx = profile_context(user=user, sections=("balances",))  # the lobby shows only the balances
    return {"balances": ctx.get("balances"), "bailout_count": ctx.get("bailout_count")}


def _funds_labels() -> dict:
    """What the queue widget says when a seat costs more than the wallet holds (matchmaking's
    ``insufficient_funds`` carries currency, needed, balance and welcome_pending; economy.md's rules)."""
    return {
        "needs": _("A seat in this room needs at least %(needed)s %(currency)s; you have %(balance)s."),
        "currencies": {c.value: str(c.label) for c in Currency},
        "how": {c.value: wallet_selectors.funding_help(currency=c.value) for c in Currency},
        "welcome_pending": wallet_selectors.welcome_pending_help(),
        "wallet": _("Your wallet"),
        "wallet_url": reverse("frontend:wallet"),
    }


@login_required
def lobby(request):
    games = room_selectors.lobby_games()
    rooms = [room for game in games for room in game["rooms"]]
    ranges = room_selectors.stake_ranges(rooms)
    for room in rooms:
        room.stake_range = ranges.get(room.pk, "")
    context = {
        "games": games,
        "my_tables": fe_selectors.open_tables_of(request.user),
        "tournaments_enabled": apps.is_installed("tournaments"),
        "queue_labels": {**labels.queue_labels(), "funds": _funds_labels()},
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
    room = table.room
    return render(request, "frontend/table.html", {
        "table": table,
        "room": room,
        "game": table.game,
        "seated": seat is not None,
        "is_host": table.host_id == request.user.pk,
        "invite_url": invite_url,
        "invite_code": request.GET.get("invite", ""),
        "stake_range": room_selectors.stake_ranges([room]).get(room.pk, ""),
        "labels": {**labels.table_labels(table.game), "funds": _funds_labels()},
        "rules_template": f"frontend/rules/{table.game}.html",
        "hand_labels": labels.hand_labels(),
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


@login_required
@require_POST
def table_stop(request, table_id: int):
    """The host stops the table; the service says when the rules do not allow it (economy.md, host stop)."""
    return _table_action(request, table_id,
                         lambda t: room_services.table_stop(table_id=t.pk, reason=StopReason.HOST, by=request.user))


def _signed(amount: int) -> str:
    return f"{'+' if amount > 0 else '−' if amount < 0 else ''}{number_format(abs(amount), force_grouping=True)}"


@login_required
def table_money(request, table_id: int):
    """The viewer's own money movement at a table (``wallets.selectors.table_money_for``) as a small HTML
    fragment for the result panel (table.js puts it in ``#money-movement`` once the table has ended);
    ``{"html": ""}`` when nothing of theirs moved there."""
    table = _table_or_404(request, table_id)
    money = wallet_selectors.table_money_for(user=request.user, table_id=table.pk)
    if not money["lines"]:
        return JsonResponse({"html": "", "totals": []})
    lines = format_html_join("", '<li data-purpose="{}"><span>{}</span> <strong data-currency="{}">{} {}</strong></li>',
                             ((line["purpose"], line["text"], line["currency"], _signed(line["amount"]),
                               Currency(line["currency"]).label) for line in money["lines"]))
    facts = []
    for t in money["totals"]:
        for key, label, value in (("paid", _("Paid in"), -t["paid"]), ("back", _("Refunded"), t["back"]),
                                  ("won", _("Winnings"), t["won"]), ("bailouts", _("Bailouts"), t["bailouts"]),
                                  ("net", _("Net"), t["net"])):
            if value or key == "net":
                facts.append((t["currency"], key, label, _signed(value), t["label"]))
        if t["rake"]:  # the platform's share of the table's pots: not a movement of the player's own
            facts.append((t["currency"], "rake", _("Rake at this table"),
                          number_format(t["rake"], force_grouping=True), t["label"]))
    totals = format_html_join("", '<tr data-currency="{}" data-total="{}"><th scope="row">{}</th><td>{} {}</td></tr>',
                              facts)
    note = format_html('<p class="muted">{}</p>', wallet_selectors.MUTIARA_PRIZE_RULE) if money["mutiara_pot"] else ""
    html = format_html('<h2>{}</h2><ul class="money-lines">{}</ul><table class="result-table money-totals">'
                       '<tbody>{}</tbody></table>{}<p><a href="{}">{}</a></p>', _("Your money at this table"), lines,
                       totals, note, reverse("frontend:wallet"), _("Your wallet"))
    return JsonResponse({"html": html, "totals": money["totals"]})


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


VERIFY_TOOL = settings.BASE_DIR / "tools" / "verify_proof.py"
ENGINES_DIR = settings.BASE_DIR / "gameworkers" / "engines"


def verify_proof_tool(request):
    """``tools/verify_proof.py`` itself, for players to run on a downloaded ``proof.json``."""
    return FileResponse(VERIFY_TOOL.open("rb"), as_attachment=True, filename="verify_proof.py",
                        content_type="text/x-python")


@functools.lru_cache(maxsize=1)
def _verify_bundle() -> bytes:
    # The tool replays the move log through the rules engines it finds next to it (../gameworkers/engines,
    # standard library only): with them in the archive the downloaded tool checks everything.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.write(VERIFY_TOOL, "verify_proof/tools/verify_proof.py")
        archive.writestr("verify_proof/gameworkers/__init__.py", "")
        for path in sorted(ENGINES_DIR.rglob("*.py")):
            archive.write(path, f"verify_proof/gameworkers/engines/{path.relative_to(ENGINES_DIR).as_posix()}")
    return buffer.getvalue()


def verify_proof_bundle(request):
    """The tool with the rules engines it replays the move log through, as one zip."""
    response = HttpResponse(_verify_bundle(), content_type="application/zip")
    response["Content-Disposition"] = 'attachment; filename="verify_proof.zip"'
    return response


def _hand_number(raw: str | None) -> int | None:
    # ?hand=N: a positive whole number; anything else is "no such hand", never a crash.
    return int(raw) if raw and raw.isdigit() and 0 < len(raw) < 7 and int(raw) > 0 else None


def replay(request, table_id: int):
    """The whole table once it has ended; ``?hand=N``: one finished hand (deal) as soon as it is over,
    while the table may still run (``rooms.selectors.hand_replay``)."""
    table = _table_or_404(request, table_id)
    raw_hand = request.GET.get("hand")
    hands = room_selectors.finished_hands(table=table)
    base = {"table": table, "game": table.game, "hands": hands, "invite_code": request.GET.get("invite", "")}
    if raw_hand is not None:
        number = _hand_number(raw_hand)
        frames = room_selectors.hand_replay(table=table, hand=number) if number else None
        if frames is None:
            return render(request, "frontend/replay.html", {**base, "ended": False, "hand_missing": True,
                                                            "error_code": "no_such_hand"}, status=404)
        return render(request, "frontend/replay.html", {
            **base, "ended": True, "hand": number, "frames": frames,
            "seats": room_selectors.seats_public(table), "labels": labels.table_labels(table.game),
            "hand_labels": labels.hand_labels(),
        })
    if not table.ended:
        return render(request, "frontend/replay.html", {**base, "ended": False}, status=404)
    return render(request, "frontend/replay.html", {
        **base, "ended": True,
        "frames": room_selectors.replay_frames(table=table),
        "seats": room_selectors.seats_public(table),
        "labels": labels.table_labels(table.game),
        "hand_labels": labels.hand_labels(),
    })


def table_hands(request, table_id: int):
    """The finished hands of a table with their closing public events (the result panel's data)."""
    table = _table_or_404(request, table_id)
    url = reverse("frontend:replay", args=[table.pk])
    invite = request.GET.get("invite")
    extra = f"&{urlencode({'invite': invite})}" if invite else ""
    return JsonResponse({"hands": [{**h, "url": f"{url}?hand={h['hand']}{extra}"}
                                   for h in room_selectors.finished_hands(table=table)]})


# ----- the wallet ---------------------------------------------------------------------------------

def _place_url(name: str, pk: int | None) -> str | None:
    if pk is None:
        return None
    try:
        return reverse(name, args=[pk])
    except NoReverseMatch:  # no tournaments (or arenas) app installed
        return None


@login_required
def wallet(request):
    """One currency of the player's wallet per tab: balance and the paged history (newest first)."""
    currency = request.GET.get("currency") or Currency.CHIP
    if currency not in Currency.values:
        currency = Currency.CHIP
    data = wallet_selectors.wallet_history(user=request.user, currency=currency, page=request.GET.get("page") or 1)
    names = fe_selectors.place_names(table_ids=[r["table_id"] for r in data["rows"] if r["table_id"]],
                                     tournament_ids=[r["tournament_id"] for r in data["rows"] if r["tournament_id"]],
                                     arena_ids=[r["arena_id"] for r in data["rows"] if r["arena_id"]])
    for row in data["rows"]:
        if row["table_id"]:
            row["place"] = names["tables"].get(row["table_id"], "")
            row["place_url"] = _place_url("frontend:table", row["table_id"])
        elif row["tournament_id"]:
            row["place"] = names["tournaments"].get(row["tournament_id"], "")
            row["place_url"] = _place_url("tournaments:detail", row["tournament_id"])
        elif row["arena_id"]:
            row["place"] = names["arenas"].get(row["arena_id"], "")
            row["place_url"] = _place_url("arenas:detail", row["arena_id"])
    return render(request, "frontend/wallet.html", {
        **data,
        "tabs": wallet_selectors.balances(user=request.user),
        "bailout_count": wallet_selectors.bailout_count(user=request.user),
        "how": wallet_selectors.funding_help(currency=currency),
        "mutiara_rule": wallet_selectors.MUTIARA_PRIZE_RULE,
    })


__all__ = ["TableStatus"]
