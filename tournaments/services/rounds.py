"""Playing rounds: ``deal`` opens the round's rooms Tables; ``advance`` settles a round once they all ended."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.transactions import after_commit
from rooms import services as rooms_services
from tournaments.models import Entry, Status, Tournament, TournamentTable
from tournaments.services.base import ACTIVE, SeatPush, _after_commit_push, _lock, _round_tables
from tournaments.services.brackets import _advance_bracket
from tournaments.services.freezeout import _advance_freezeout
from tournaments.services.payouts import PayoutError

log = logging.getLogger(__name__)


# ----- dealing tables ----------------------------------------------------------------------------------

def _otuzbir_options(tournament: Tournament, tt: TournamentTable, stacks: list[int],
                     now: datetime | None = None) -> dict:
    """The engine options of one table's next hand. Levels by hands: the schedule with the table's hand
    count (the engine picks the ante). Levels by minutes: the ante in force when the hand is dealt, as a
    one-level schedule (hand for hand: each new hand takes the level of its deal)."""
    schedule = tournament.ante_schedule
    if tournament.levels_by_minutes:
        from tournaments import selectors

        schedule = {"levels": [selectors.level_of(tournament=tournament, hands=tt.hands, now=now)["ante"]],
                    "every": 1}
    options = {"stacks": stacks, "hands": 1, "ante_schedule": schedule, "hand_offset": tt.hands,
               "rake_bps": 0}
    if tt.ebe is not None and tt.ebe in tt.players:
        options["ebe"] = tt.players.index(tt.ebe)
    return options


def deal(*, tournament_id: int, now: datetime | None = None) -> list[int]:
    """Open the current round's rooms Tables (one transaction per table; idempotent); returns their ids.

    Not before ``next_deal_at`` (the pause between hands): called early (a task that fired before
    its time), it does nothing and housekeeping deals once the pause is over."""
    tournament = Tournament.objects.select_related("room").get(pk=tournament_id)
    if tournament.status != Status.RUNNING or tournament.round_dealt:
        return []
    if tournament.next_deal_at is not None and tournament.next_deal_at > (now or timezone.now()):
        return []
    opened: list[int] = []
    moves: list[SeatPush] = []
    if tournament.is_freezeout:
        pending = tournament.tables.filter(broken=False).exclude(round=tournament.round).order_by("number")
    else:
        pending = tournament.tables.filter(round=tournament.round, winner__isnull=True, table__isnull=True)
    failed = False
    for tt_id in list(pending.values_list("pk", flat=True)):
        try:
            table_id = _deal_one(tournament, tt_id)
        except Exception:  # e.g. a locked database: housekeeping deals the rest of the round again
            log.exception("dealing tournament %s table %s failed", tournament_id, tt_id)
            failed = True
            continue
        if table_id is not None:
            opened.append(table_id)
    if failed:
        return opened
    Tournament.objects.filter(pk=tournament_id, round=tournament.round, status=Status.RUNNING).update(
        round_dealt=True, next_deal_at=None)
    humans = [e for e in tournament.entries.filter(status__in=ACTIVE, user__is_bot=False)]
    for tt in tournament.tables.filter(table_id__in=opened):
        for entry in humans:
            if (entry.pk if tournament.is_freezeout else entry.unit) in tt.players:
                moves.append((entry.user_id, tt.table_id, tt.number))
    from tournaments import broadcast

    broadcast.tournament_changed(tournament.pk, moves=moves)
    advance(tournament_id=tournament.pk)  # tables that already ended (or a round of byes) move on now
    return opened


def _deal_one(tournament: Tournament, tt_id: int) -> int | None:
    with transaction.atomic():
        # Claim first (a conditional write before any read): two dealers never open the same table.
        if tournament.is_freezeout:
            claimed = TournamentTable.objects.filter(pk=tt_id).exclude(round=tournament.round).update(
                round=tournament.round)
        else:
            claimed = TournamentTable.objects.filter(pk=tt_id, table__isnull=True, winner__isnull=True).update(
                hands=F("hands") + 1)  # bracket matches count their deals in ``hands``
        if not claimed:
            return None
        tt = TournamentTable.objects.select_for_update().get(pk=tt_id)
        if not tournament.is_freezeout and tt.hands > 1 and tt.table_id is not None:
            return None
        seats = _seating(tournament, tt)
        if len(seats) < 2:
            return None
        options = None
        if tournament.is_freezeout:
            stacks = [e.stack for e in seats]
            options = _otuzbir_options(tournament, tt, stacks)
        table = rooms_services.table_open_seated(room=tournament.room, players=[e.user for e in seats],
                                                 seat_count=len(seats), options=options)
        tt.table = table
        tt.save(update_fields=["table"])
        return table.pk


def _seating(tournament: Tournament, tt: TournamentTable) -> list[Entry]:
    """Entries in engine seat order (Baloot: team A on seats 0 and 2, team B on 1 and 3)."""
    if tournament.is_freezeout:
        by_id = {e.pk: e for e in Entry.objects.filter(pk__in=tt.players).select_related("user")}
        return [by_id[p] for p in tt.players if p in by_id]
    members = {}
    for entry in Entry.objects.filter(tournament=tournament, status__in=ACTIVE).select_related("user").order_by("pk"):
        members.setdefault(entry.unit, []).append(entry)
    if tournament.team_size > 1:
        a, b = (members.get(u, []) for u in tt.players)
        return [a[0], b[0], a[1], b[1]]
    return [members[u][0] for u in tt.players if u in members]


# ----- advancing ---------------------------------------------------------------------------------------

def advance(*, tournament_id: int) -> bool:
    """After tables end: when every table of the round has ended, settle it and deal the next round.

    A failed prize payout rolls the whole finish back (the round is retried by housekeeping) and is
    recorded on the tournament (``payout_error``), where ``ledger_check`` reports it."""
    try:
        return _advance(tournament_id)
    except PayoutError as exc:
        Tournament.objects.filter(pk=tournament_id).update(
            payout_error=f"{exc.code}: {exc.message}"[:200], payout_failed_at=timezone.now())
        raise


def _advance(tournament_id: int) -> bool:
    with transaction.atomic():
        tournament = _lock(tournament_id)
        if tournament.status != Status.RUNNING or not tournament.round_dealt:
            return False
        if _round_tables(tournament) is None:
            return False
        # Claim the round (a conditional update): a second advance of the same round does nothing.
        if not Tournament.objects.filter(pk=tournament.pk, round=tournament.round, round_dealt=True,
                                         status=Status.RUNNING).update(round_dealt=False):
            return False
        tournament.round_dealt = False
        if tournament.is_freezeout:
            moved = _advance_freezeout(tournament)
        else:
            moved = _advance_bracket(tournament)
        if moved is None:
            return False
        pause = tournament.hand_pause_seconds if tournament.is_freezeout else 0
        if tournament.status == Status.RUNNING and pause:
            # Players read the hand result before the next hand's timer runs: the next deal waits.
            tournament.next_deal_at = timezone.now() + timedelta(seconds=pause)
            tournament.save(update_fields=["next_deal_at"])
            after_commit(_enqueue_deal, tournament.pk, pause)
        _after_commit_push(tournament.pk)
    if tournament.status == Status.RUNNING and not pause:
        deal(tournament_id=tournament.pk)
    return True


def _enqueue_deal(tournament_id: int, delay_s: float) -> None:
    """The next hand's deal on time (a Celery countdown); housekeeping deals it if this is lost."""
    try:
        from tournaments import tasks

        tasks.enqueue_deal(tournament_id, delay_s)
    except Exception:  # the broker is down: housekeeping deals within a second of the pause's end
        log.exception("tournament %s: scheduling the next deal failed", tournament_id)
