"""Reads: the tournament list, standings with level and next ante, the bracket, the live snapshot, the
lobby cards and what a cancelled tournament says."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Count, Q, Sum
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from gameworkers.engines import get_engine
from gameworkers.engines.otuzbir import ante_for
from rooms.models import Table
from tournaments import logic
from tournaments.models import HOLDING, Entry, EntryStatus, Status, Tournament, TournamentTable

LOBBY_STATUSES = (Status.ANNOUNCED, Status.REGISTERING, Status.RUNNING)
IN_PLAY = (EntryStatus.PLAYING, EntryStatus.WON)
COUNTED = (EntryStatus.REGISTERED, EntryStatus.PLAYING, EntryStatus.OUT, EntryStatus.WON)
ELIMINATIONS_SHOWN = 50


def tournament_list() -> list[Tournament]:
    return list(Tournament.objects.select_related("room").order_by("-starts_at", "-id")[:100])


def _with_counts(rows):
    return rows.annotate(
        n_registered=Count("entries", filter=Q(entries__status__in=COUNTED)),
        n_left=Count("entries", filter=Q(entries__status=EntryStatus.PLAYING)),
        n_paid=Sum("entries__paid", filter=Q(entries__status__in=HOLDING)))


def lobby_tournaments(limit: int = 8) -> list[Tournament]:
    """Upcoming and running tournaments, running first, then the soonest; each carries ``card``
    (``lobby_card``), which the lobby shows and the lobby socket keeps up to date."""
    rows = _with_counts(Tournament.objects.filter(status__in=LOBBY_STATUSES).select_related("room")
                        .order_by("starts_at", "pk"))
    current = sorted(rows[:50], key=lambda t: (t.status != Status.RUNNING, t.starts_at, t.pk))[:limit]
    for tournament in current:
        tournament.card = _card(tournament, tournament.n_registered, tournament.n_left, tournament.n_paid or 0)
    return current


def lobby_card(*, tournament_id: int) -> dict | None:
    """The lobby's facts about one tournament (pushed to ``broadcast.LOBBY_GROUP`` on every change)."""
    tournament = _with_counts(Tournament.objects.filter(pk=tournament_id)).first()
    if tournament is None:
        return None
    return _card(tournament, tournament.n_registered, tournament.n_left, tournament.n_paid or 0)


def _card(tournament: Tournament, registered: int, left: int, paid: int) -> dict:
    pool = prize_pool(tournament=tournament, paid=paid)
    card = {"id": tournament.pk, "status": tournament.status, "registered": registered, "players_left": left,
            "prize_pool": pool, "currency": tournament.currency,
            "url": reverse("tournaments:detail", args=[tournament.pk]),
            "sit_and_go": tournament.sit_and_go, "max_entrants": tournament.max_entrants,
            # the split as it stands (before registration too): the row for the entries counted so far
            "payouts": payouts(tournament=tournament, pool=pool, entrants=tournament.entrants or registered)}
    if tournament.is_freezeout and tournament.status == Status.RUNNING:
        card["ante"] = level_of(tournament=tournament)["ante"]
    return card


def prize_pool(*, tournament: Tournament, paid: int | None = None) -> int:
    """What the places share: the entries in play (what each paid) less the rake (economy.md)."""
    from wallets.services import rake_of

    if tournament.status == Status.FINISHED:
        return tournament.pool  # the finish stored the pool it paid out
    if paid is None:
        paid = tournament.entries.filter(status__in=HOLDING).aggregate(s=Sum("paid"))["s"] or 0
    return paid - rake_of(pot=paid, rake_bps=tournament.rake_bps)


def payouts(*, tournament: Tournament, pool: int, entrants: int) -> list[dict]:
    """The prize of each paid place with its share of the pool, by the tournament's payout structure's
    row for ``entrants`` (``percent``: a whole number, or with two decimals)."""
    percents = logic.payout_percents(rows=tournament.payout_rows_now(), entrants=entrants)
    amounts = logic.prize_split(pool=max(0, pool), percents=percents)
    return [{"place": place, "percent": _percent_number(share), "amount": amount}
            for place, (share, amount) in enumerate(zip(percents, amounts, strict=True), start=1)]


def _percent_number(hundredths: int) -> int | float:
    return hundredths // 100 if hundredths % 100 == 0 else round(hundredths / 100, 2)


def payout_structure_rows(*, tournament: Tournament) -> list[dict]:
    """Every row of the tournament's split: ``[{"from": 4, "percents": [70, 30]}, ...]`` (page and admin)."""
    return [{"from": n, "percents": [_percent_number(p) for p in percents]}
            for n, percents in sorted(tournament.payout_rows_now())]


def _schedule(tournament: Tournament) -> dict:
    return get_engine(tournament.game).normal_options({"stacks": [1, 1], "ante_schedule": tournament.ante_schedule}, 2)


def _step(schedule: dict) -> int:
    """Hands per level of an (engine-normalised) schedule."""
    return schedule.get("double_every") or schedule.get("every") or 1


def _last_level(schedule: dict) -> int | None:
    """The last level of a list schedule (counted from 1); a doubling schedule never ends."""
    return len(schedule["levels"]) if "levels" in schedule else None


def clock_level(*, tournament: Tournament, now: datetime | None = None) -> int:
    """Levels by minutes: the level in force (counted from 0) from the tournament's start time."""
    if tournament.started_at is None or not tournament.level_minutes:
        return 0
    elapsed = ((now or timezone.now()) - tournament.started_at).total_seconds()
    return max(0, int(elapsed // (tournament.level_minutes * 60)))


def level_of(*, tournament: Tournament, hands: int | None = None, now: datetime | None = None) -> dict:
    """The ante now and the next one. Levels by hands: at the table with the highest hand count, with
    the hands to go. Levels by minutes: by the clock since the start, with ``next_level_at`` (ISO) and
    ``seconds_to_next`` ("next level in 3:12")."""
    if hands is None:
        hands = max(tournament.tables.filter(broken=False).values_list("hands", flat=True), default=0)
    options = _schedule(tournament)
    step = _step(options["ante_schedule"])
    last = _last_level(options["ante_schedule"])
    if tournament.levels_by_minutes:
        now = now or timezone.now()
        index = clock_level(tournament=tournament, now=now)
        if last is not None:
            index = min(index, last - 1)
        ante = ante_for(options, index * step)
        final = last is not None and index >= last - 1
        next_at = None
        if tournament.started_at is not None and not final:
            next_at = tournament.started_at + timedelta(minutes=tournament.level_minutes * (index + 1))
        return {"by": "minutes", "hand": hands, "level": index + 1, "ante": ante,
                "next_ante": ante if final else ante_for(options, (index + 1) * step), "hands_to_next": None,
                "level_minutes": tournament.level_minutes, "next_level": index + 2, "last_level": last,
                "next_level_at": next_at.isoformat() if next_at else None,
                "seconds_to_next": max(0, int((next_at - now).total_seconds())) if next_at else None}
    ante = ante_for(options, hands)
    ahead = 1
    while ahead < 10_000 and ante_for(options, hands + ahead) == ante:
        ahead += 1
    level = hands // step + 1
    return {"by": "hands", "hand": hands, "level": min(level, last) if last else level, "ante": ante,
            "next_ante": ante_for(options, hands + ahead) if ahead < 10_000 else ante,
            "hands_to_next": ahead if ahead < 10_000 else None}


def level_number(*, tournament: Tournament, hands: int, now: datetime | None = None) -> int:
    """The ante level now, counted from 1 (each step of the schedule is a level): of the table hand
    ``hands`` (levels by hands), or by the clock (levels by minutes)."""
    return level_of(tournament=tournament, hands=hands, now=now)["level"]


def late_registration_open(*, tournament: Tournament, now: datetime | None = None) -> bool:
    """A running 31 tournament takes late entries (and re-entries) while its level is at most
    ``late_registration_level`` (brackets never: the admin refuses it)."""
    if (tournament.status != Status.RUNNING or not tournament.is_freezeout
            or tournament.late_registration_level is None):
        return False
    return level_of(tournament=tournament, now=now)["level"] <= tournament.late_registration_level


def entry_name(entry: Entry) -> str:
    """The player's public name; a re-entry carries its number ("Ayla #2")."""
    name = entry.user.public_name
    return f"{name} #{entry.number}" if entry.number > 1 else name


def standings(*, tournament: Tournament, entries: list[Entry] | None = None,
              tables: dict[int, TournamentTable] | None = None) -> list[dict]:
    """Everyone who entered: players still in first (by stack; ``rank`` is their place now, equal
    stacks sharing it), then the places of those out."""
    if tables is None:
        tables = {tt.pk: tt for tt in tournament.tables.all()}
    if entries is None:
        entries = list(tournament.entries.exclude(status=EntryStatus.UNREGISTERED).select_related("user"))
    rows = []
    for entry in entries:
        if entry.status == EntryStatus.UNREGISTERED:
            continue
        tt = tables.get(entry.table_id)
        # a table waiting for its first hand (late entrants) has no page yet: no number to go to
        dealt = tt is not None and tt.table_id is not None
        rows.append({"entry": entry.pk, "player": entry_name(entry), "bot": entry.user.is_bot,
                     "status": entry.status, "stack": entry.stack, "place": entry.place, "prize": entry.prize,
                     "team": entry.team, "number": entry.number, "table": tt.table_id if tt else None,
                     "table_number": tt.number if dealt else None})
    rows.sort(key=lambda r: (r["status"] not in IN_PLAY, r["place"] or 10**9, -r["stack"], r["entry"]))
    alive = [r["stack"] for r in rows if r["status"] == EntryStatus.PLAYING]
    for row in rows:
        if row["status"] == EntryStatus.PLAYING:
            row["rank"] = 1 + sum(1 for s in alive if s > row["stack"])
        else:
            row["rank"] = row["place"]
    return rows


def eliminations(*, entries: list[Entry], limit: int = ELIMINATIONS_SHOWN) -> list[dict]:
    """The latest eliminations first: who, in which hand round, at which rooms table and seat, and the place."""
    out = [e for e in entries if e.status == EntryStatus.OUT and e.out_round is not None]
    out.sort(key=lambda e: (-e.out_round, e.place or 10**9, e.pk))
    return [{"entry": e.pk, "player": entry_name(e), "bot": e.user.is_bot, "place": e.place,
             "round": e.out_round, "table": e.out_table, "seat": e.out_seat, "prize": e.prize}
            for e in out[:limit]]


def bracket(*, tournament: Tournament) -> list[dict]:
    """Rounds of matches: units with their players, the rooms table and the unit that advanced."""
    names: dict[int, list[str]] = {}
    for entry in tournament.entries.exclude(status=EntryStatus.UNREGISTERED).select_related("user").order_by("pk"):
        names.setdefault(entry.unit, []).append(entry.user.public_name)
    rounds: dict[int, list[dict]] = {}
    for tt in tournament.tables.order_by("round", "number"):
        rounds.setdefault(tt.round, []).append({
            "number": tt.number, "table": tt.table_id, "bye": len(tt.players) == 1,
            "units": [{"unit": u, "players": names.get(u, [])} for u in tt.players], "winner": tt.winner})
    return [{"round": r, "matches": m} for r, m in sorted(rounds.items())]


def table_url(*, tournament_id: int, number: int) -> str:
    """The one page of a tournament table: it stays open across hands (docs/tournaments.md)."""
    return reverse("tournaments:table", args=[tournament_id, number])


def live_snapshot(*, tournament_id: int) -> dict:
    tournament = Tournament.objects.select_related("room").get(pk=tournament_id)
    entries = list(tournament.entries.exclude(status=EntryStatus.UNREGISTERED).select_related("user"))
    all_tables = list(tournament.tables.all())
    by_pk = {tt.pk: tt for tt in all_tables}
    counted = [e for e in entries if e.status in COUNTED]
    playing = [e for e in entries if e.status in IN_PLAY]  # still in (the winner too, at the end)
    entrants = tournament.entrants or len([e for e in entries if e.status in (EntryStatus.REGISTERED,
                                                                                 EntryStatus.PLAYING)])
    pool = prize_pool(tournament=tournament, paid=sum(e.paid for e in counted))
    frame = {"type": "tournament.standings", "tournament": tournament.pk, "name": tournament.name,
             "game": tournament.game, "status": tournament.status, "round": tournament.round,
             "entrants": entrants, "registered": len(counted), "pool": tournament.pool,
             "prize_pool": pool, "currency": tournament.currency, "entry_fee": tournament.entry_fee,
             "min_entrants": tournament.min_entrants, "max_entrants": tournament.max_entrants,
             "starts_at": tournament.starts_at.isoformat(),
             "players_left": len(playing),
             "average_stack": sum(e.stack for e in playing) // len(playing) if playing else None,
             "payouts": payouts(tournament=tournament, pool=pool, entrants=entrants),
             "next_deal_at": tournament.next_deal_at.isoformat() if tournament.next_deal_at else None,
             "cancel": cancel_info(tournament=tournament),
             "sit_and_go": tournament.sit_and_go, "max_entries": tournament.max_entries,
             "late_registration_level": tournament.late_registration_level,
             "late_registration": late_registration_open(tournament=tournament),
             "waiting": len([e for e in entries if e.status == EntryStatus.REGISTERED
                             and tournament.status == Status.RUNNING])}
    frame["standings"] = standings(tournament=tournament, entries=entries, tables=by_pk)[:200]
    frame["eliminations"] = eliminations(entries=entries)
    if tournament.is_freezeout:
        live = sorted((tt for tt in all_tables if not tt.broken), key=lambda tt: tt.number)
        status = dict(Table.objects.filter(pk__in=[tt.table_id for tt in live if tt.table_id])
                      .values_list("pk", "status"))
        hands = max((tt.hands for tt in live), default=0)
        frame["level"] = level_of(tournament=tournament, hands=hands)
        frame["tables"] = [{"number": tt.number, "table": tt.table_id, "players": len(tt.players), "hands": tt.hands,
                            "status": status.get(tt.table_id), "url": table_url(tournament_id=tournament.pk,
                                                                                 number=tt.number)}
                           for tt in live]
    else:
        frame["bracket"] = bracket(tournament=tournament)
    return frame


def cancel_info(*, tournament: Tournament) -> dict | None:
    """Why a cancelled tournament was cancelled, as plain data (the pages word it)."""
    if tournament.status != Status.CANCELLED:
        return None
    return {"reason": tournament.cancel_reason or "staff", **(tournament.cancel_detail or {})}


def cancel_text(*, tournament: Tournament) -> str:
    """"Cancelled: only 1 of the minimum 4 registered; entries refunded." in the reader's language."""
    info = cancel_info(tournament=tournament)
    if info is None:
        return ""
    if info["reason"] == "too_few_entrants" and "registered" in info:
        why = _("Cancelled: only %(n)s of the minimum %(min)s registered.") % {
            "n": info["registered"], "min": info["minimum"]}
    elif info["reason"] == "too_few_entrants":
        why = _("Cancelled: too few players registered.")
    else:
        why = _("Cancelled by the organisers.")
    if info.get("started"):
        return f"{why} {_('The entries of the players still in were refunded.')}"
    if info.get("refunded") == 0:
        return why
    return f"{why} {_('Entries refunded.')}"


def active_count(*, tournament: Tournament) -> int:
    return tournament.entries.filter(status__in=[EntryStatus.REGISTERED, EntryStatus.PLAYING]).count()


def entry_of(*, tournament: Tournament, user) -> Entry | None:
    """The player's latest entry (a re-entry is a new one)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return tournament.entries.filter(user=user).order_by("-number").first()


def entries_used(*, tournament: Tournament, user) -> int:
    """How many entries the player has paid for (re-entries count; unregistered and refunded do not)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return 0
    return tournament.entries.filter(user=user, status__in=HOLDING).count()


def can_register(*, tournament: Tournament, entry: Entry | None, used: int) -> str | None:
    """What the page offers this player: "register", "late" (late registration), "reenter", or None."""
    if entry is not None and entry.status in (EntryStatus.REGISTERED, EntryStatus.PLAYING, EntryStatus.WON):
        return None
    if tournament.status == Status.REGISTERING:
        return "register"
    if not late_registration_open(tournament=tournament) or used >= tournament.max_entries:
        return None
    return "reenter" if entry is not None and entry.status == EntryStatus.OUT else "late"


def current_table_of(*, tournament: Tournament, user) -> TournamentTable | None:
    """The tournament table this player sits at now (31), or their current match (brackets)."""
    entry = entry_of(tournament=tournament, user=user)
    if entry is None or entry.status != EntryStatus.PLAYING:
        return None
    if tournament.is_freezeout:
        # (a new table for late entrants has no page until its first hand is dealt)
        return entry.table if entry.table_id and not entry.table.broken and entry.table.table_id else None
    return next((tt for tt in tournament.tables.filter(round=tournament.round).order_by("number")
                 if entry.unit in tt.players), None)


__all__ = ["Status", "TournamentTable", "bracket", "cancel_text", "level_of", "live_snapshot", "lobby_card",
           "lobby_tournaments", "standings", "tournament_list"]


def entries_blocking_deletion(user) -> list[dict]:
    """The tournaments not over where the user is registered or still playing: they leave those before
    deleting their account (``accounts.selectors.DELETION_BLOCKERS``)."""
    from tournaments.models import Entry, EntryStatus, Status

    return [{"kind": "tournament", "id": entry.tournament_id, "name": entry.tournament.name, "status": entry.status}
            for entry in Entry.objects.filter(
                user=user, status__in=[EntryStatus.REGISTERED, EntryStatus.PLAYING],
                tournament__status__in=[Status.ANNOUNCED, Status.REGISTERING, Status.RUNNING])
            .select_related("tournament").order_by("tournament_id")]
