"""Registering (late registration and re-entries too) and unregistering; a full sit & go starts."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from tournaments import money
from tournaments.errors import TournamentError
from tournaments.models import HOLDING, Entry, EntryStatus, Status, Tournament
from tournaments.services.base import ACTIVE, _after_commit_push, _lock
from tournaments.services.starting import start

log = logging.getLogger(__name__)


# ----- registration -------------------------------------------------------------------------------

def register(*, tournament_id: int, user, partner=None) -> Entry:
    """Register (paying the entry into the tournament escrow). Baloot: name the ``partner`` whose
    team you join, or register alone to open a team your partner then joins.

    While a 31 tournament runs and its late registration is open, this is a **late registration** (or,
    for a player whose last entry is out, a **re-entry**, up to ``max_entries`` entries each paying the
    entry): the new entry waits, registered, for the end of the hand in play and is then seated with
    the starting stack (``_advance_freezeout``). A sit & go starts as soon as it is full."""
    if user is None or not getattr(user, "is_authenticated", False):
        raise TournamentError("not_logged_in", "Log in to register.")
    with transaction.atomic():
        tournament = _lock(tournament_id)
        late = tournament.status == Status.RUNNING
        if late and not _late_registration_open(tournament):
            raise TournamentError("registration_closed", "Late registration is over.")
        if not late and tournament.status != Status.REGISTERING:
            raise TournamentError("registration_closed", "Registration is not open.")
        active = tournament.entries.filter(status__in=ACTIVE)
        if tournament.max_entrants and active.count() >= tournament.max_entrants:
            raise TournamentError("tournament_full", "Every place is taken.")
        team = None
        if partner is not None:
            if tournament.team_size < 2:
                raise TournamentError("no_teams", "This tournament is not played in pairs.")
            lead = active.filter(user=partner).first()
            if lead is None or partner == user:
                raise TournamentError("no_such_partner", "Your partner is not registered.")
            if active.filter(team=lead.unit).count() >= tournament.team_size:
                raise TournamentError("team_full", "That team is complete.")
            team = lead.unit
        entry = _new_entry(tournament, user, team)
        if tournament.team_size > 1 and team is None:
            entry.team = entry.pk
            entry.save(update_fields=["team"])
        money.pay_entry(tournament=tournament, entry=entry)
        _freeze_payout_rows(tournament)
        if late:
            _count_late_entry(tournament, entry)
        full = _sit_and_go_registered(tournament)
    _after_commit_push(tournament.pk)
    if full:
        _start_full(tournament.pk)
    return entry


def _new_entry(tournament: Tournament, user, team: int | None) -> Entry:
    """The entry row this registration pays for: the player's first, the one they unregistered (registered
    again), or, once their last entry is out, a re-entry (a new row, numbered on)."""
    latest = tournament.entries.filter(user=user).order_by("-number").first()
    if latest is not None and latest.status in ACTIVE:
        raise TournamentError("already_registered", "You are registered already.")
    used = tournament.entries.filter(user=user, status__in=HOLDING).count()
    if used >= tournament.max_entries:
        if tournament.max_entries > 1:
            raise TournamentError("no_entries_left", f"You have used all {tournament.max_entries} of your entries.")
        raise TournamentError("already_registered", "You have entered this tournament already.")
    stack = tournament.starting_stack if tournament.status == Status.RUNNING else 0
    if latest is None:
        return Entry.objects.create(tournament=tournament, user=user, team=team, stack=stack)
    if latest.status == EntryStatus.UNREGISTERED:
        latest.status = EntryStatus.REGISTERED
        latest.registrations += 1
        latest.team = team
        latest.stack = stack
        latest.save(update_fields=["status", "registrations", "team", "stack"])
        return latest
    if latest.status != EntryStatus.OUT:  # refunded at the start (an odd bracket field) or the winner
        raise TournamentError("registration_closed", "Registration is not open.")
    # A re-entry: a new row; the ledger keys number on from the player's last registration.
    return Entry.objects.create(tournament=tournament, user=user, team=team, stack=stack, number=latest.number + 1,
                                registrations=latest.registrations + 1)


def _late_registration_open(tournament: Tournament, now: datetime | None = None) -> bool:
    from tournaments import selectors

    return selectors.late_registration_open(tournament=tournament, now=now)


def _count_late_entry(tournament: Tournament, entry: Entry) -> None:
    """A late entry counts in the field and the pool at once; every player already out ranks below it
    (it is still in), so their places move down one. [reading] Places of players out during late
    registration are final once it closes."""
    tournament.entrants += 1
    tournament.pool += entry.paid
    tournament.save(update_fields=["entrants", "pool"])
    tournament.entries.filter(status=EntryStatus.OUT, place__isnull=False).update(place=F("place") + 1)


def _freeze_payout_rows(tournament: Tournament) -> None:
    """The first registration freezes the split players register under (like the fee)."""
    if tournament.payout_rows is None:
        tournament.payout_rows = [[n, percents] for n, percents in tournament.payout_rows_now()]
        tournament.save(update_fields=["payout_rows"])


def _sit_and_go_registered(tournament: Tournament) -> bool:
    """A sit & go after a registration: full (start it), or the bots' wait runs from the first entry."""
    if not tournament.sit_and_go or tournament.status != Status.REGISTERING:
        return False
    count = tournament.entries.filter(status__in=ACTIVE).count()
    if tournament.max_entrants and count >= tournament.max_entrants:
        return True
    if tournament.fill_with_bots and tournament.bots_fill_at is None and count:
        tournament.bots_fill_at = timezone.now() + timedelta(seconds=tournament.fill_after_seconds)
        tournament.save(update_fields=["bots_fill_at"])
    return False


def _start_full(tournament_id: int) -> None:
    """Start a full sit & go now (after the registration committed: that registration stands whatever
    happens here); housekeeping starts a full one whose start failed."""
    try:
        start(tournament_id=tournament_id)
    except TournamentError as exc:  # e.g. started by a concurrent registration or housekeeping
        log.info("sit & go %s not started: %s", tournament_id, exc.code)
    except Exception:  # e.g. a database error: the timer's housekeeping starts it within a second
        log.exception("sit & go %s: the start failed", tournament_id)


def unregister(*, tournament_id: int, user) -> Entry:
    """Before the start: what the entry paid comes back in full (``Entry.paid``)."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        entry = tournament.entries.filter(user=user, status=EntryStatus.REGISTERED).first() if user else None
        if entry is None:
            raise TournamentError("not_registered", "You are not registered.")
        if tournament.status not in (Status.ANNOUNCED, Status.REGISTERING):
            raise TournamentError("already_started", "The tournament has started.")
        entry.status = EntryStatus.UNREGISTERED
        entry.save(update_fields=["status"])
        money.refund_entry(tournament=tournament, entry=entry)
        if tournament.bots_fill_at is not None and not tournament.entries.filter(status__in=ACTIVE).exists():
            tournament.bots_fill_at = None  # a sit & go nobody is waiting in: bots wait for the next player
            tournament.save(update_fields=["bots_fill_at"])
        if tournament.team_size > 1 and entry.team == entry.pk:
            # the team's founder leaves: the partner (if any) now leads the team
            partner = tournament.entries.filter(team=entry.pk, status__in=ACTIVE).exclude(pk=entry.pk).first()
            if partner is not None:
                tournament.entries.filter(pk=partner.pk).update(team=partner.pk)
    _after_commit_push(tournament.pk)
    return entry
