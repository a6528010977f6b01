"""Starting a tournament: bots fill it (or too few entrants cancel it), the seat draw, the first deal."""

from __future__ import annotations

import secrets

from django.db import transaction
from django.utils import timezone

from tournaments import logic, money
from tournaments.errors import TournamentError
from tournaments.models import Entry, EntryStatus, Status, Tournament, TournamentTable
from tournaments.services.base import ACTIVE, _lock, _units
from tournaments.services.brackets import _bracket_low, _create_matches
from tournaments.services.cancelling import _cancel_locked
from tournaments.services.rounds import deal
from tournaments.services.schedule import _open_next_sit_and_go, _schedule_next

# ----- start ---------------------------------------------------------------------------------------

def _add_bots(tournament: Tournament, needed: int) -> None:
    from accounts.models import User

    taken = tournament.entries.values_list("user_id", flat=True)
    bots = list(User.objects.filter(is_bot=True, is_active=True).exclude(pk__in=list(taken))
                .order_by("pk")[:needed])
    for bot in bots:
        entry = Entry.objects.create(tournament=tournament, user=bot)
        if tournament.team_size > 1:
            entry.team = entry.pk
            entry.save(update_fields=["team"])
        money.pay_entry(tournament=tournament, entry=entry)


def start(*, tournament_id: int) -> Tournament:
    """Close registration: too few entrants cancels (bots fill first when allowed); else deal."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        if tournament.status not in (Status.ANNOUNCED, Status.REGISTERING):
            raise TournamentError("not_registering", "This tournament cannot start now.")
        if tournament.team_size > 1:
            _complete_teams(tournament)
        units = _units(tournament)
        count = len(units)  # registered players (teams), before any bot
        if tournament.sit_and_go and tournament.fill_with_bots and tournament.max_entrants:
            # a sit & go fills every empty seat (its maximum counts players, as registration does)
            missing = tournament.max_entrants - tournament.entries.filter(status__in=ACTIVE).count()
            if missing > 0:
                _add_bots(tournament, missing)
                if tournament.team_size > 1:
                    _complete_teams(tournament)
                units = _units(tournament)
        if len(units) < tournament.min_entrants and tournament.fill_with_bots:
            _add_bots(tournament, (tournament.min_entrants - len(units)) * tournament.team_size)
            if tournament.team_size > 1:
                _complete_teams(tournament)
            units = _units(tournament)
        if tournament.needs_odd_field and len(units) % 2 == 0 and units:
            # Tables of exactly three reach one winner only from an odd count: a bot takes the seat
            # (or, without bots, the latest registration is refunded).
            if tournament.fill_with_bots:
                _add_bots(tournament, 1)
            else:
                last = tournament.entries.filter(status__in=ACTIVE).order_by("-registered_at", "-pk").first()
                last.status = EntryStatus.REFUNDED
                last.save(update_fields=["status"])
                money.refund_entry(tournament=tournament, entry=last)
            units = _units(tournament)
        if len(units) < max(2, tournament.min_entrants):
            _cancel_locked(tournament, "too_few_entrants",
                           {"registered": count, "minimum": max(2, tournament.min_entrants),
                            "bots": max(0, len(units) - count)})
            return tournament
        entries = [e for members in units.values() for e in members]
        Entry.objects.filter(pk__in=[e.pk for e in entries]).update(status=EntryStatus.PLAYING,
                                                                   stack=tournament.starting_stack)
        tournament.status = Status.RUNNING
        tournament.started_at = timezone.now()
        tournament.entrants = len(entries)
        tournament.pool = sum(e.paid for e in entries)  # what they paid, whatever the fee says now
        tournament.round = 1
        tournament.round_dealt = False
        order = list(units)
        secrets.SystemRandom().shuffle(order)  # the seat draw
        if tournament.is_freezeout:
            for state in logic.seat_players(order, seats=tournament.seats_per_table):
                TournamentTable.objects.create(tournament=tournament, number=state.id, round=0,
                                               players=state.players, hands=0)
                Entry.objects.filter(pk__in=state.players).update(
                    table=TournamentTable.objects.get(tournament=tournament, number=state.id))
        else:
            order = list(units)  # brackets: byes go to the earliest registrations
            try:
                groups = logic.first_round(order, k=tournament.table_size, low=_bracket_low(tournament))
            except logic.LogicError as exc:
                raise TournamentError(exc.code, exc.message) from None
            _create_matches(tournament, 1, groups)
        tournament.bots_fill_at = None
        tournament.save()
        _schedule_next(tournament)
        _open_next_sit_and_go(tournament)
    deal(tournament_id=tournament.pk)
    return tournament


def _complete_teams(tournament: Tournament) -> None:
    """Baloot: a team still missing its partner is refunded at the start (or filled by a bot)."""
    from accounts.models import User

    for unit, members in _units(tournament).items():
        if len(members) >= 2:
            continue
        if tournament.fill_with_bots:
            taken = tournament.entries.values_list("user_id", flat=True)
            bot = User.objects.filter(is_bot=True, is_active=True).exclude(pk__in=list(taken)).order_by("pk").first()
            if bot is not None:
                entry = Entry.objects.create(tournament=tournament, user=bot, team=unit)
                money.pay_entry(tournament=tournament, entry=entry)
                continue
        for entry in members:
            entry.status = EntryStatus.REFUNDED
            entry.save(update_fields=["status"])
            money.refund_entry(tournament=tournament, entry=entry)
