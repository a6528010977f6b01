"""Creating tournaments, opening registration, the next occurrence of a recurring one or a sit & go."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from rooms.models import Room, StakeKind
from tournaments.errors import TournamentError
from tournaments.models import LevelsBy, PayoutStructure, Status, Tournament
from tournaments.services.base import _after_commit_push, _lock

# ----- admin: create, schedule ------------------------------------------------------------------

def tournament_create(*, name: str, room: Room, starts_at: datetime | None = None, game: str | None = None,
                      registration_opens_at: datetime | None = None, repeat_every: timedelta | None = None,
                      entry_fee: int = 20, rake_bps: int = 0, starting_stack: int = 100,
                      ante_schedule: dict | list | None = None, seats_per_table: int | None = None,
                      min_entrants: int = 2, max_entrants: int | None = None,
                      fill_with_bots: bool = True, hand_pause_seconds: int = 3,
                      payout_structure: PayoutStructure | None = None, sit_and_go: bool = False,
                      fill_after_seconds: int = 60, late_registration_level: int | None = None,
                      max_entries: int = 1, levels_by: str = LevelsBy.HANDS, level_minutes: int = 10) -> Tournament:
    """Schedule a tournament (announced; registering at once when registration opens now or earlier).

    A sit & go has no start time of its own (``starts_at`` defaults to now): it starts when
    ``max_entrants`` have registered, or when bots fill it ``fill_after_seconds`` after the first
    registration (``fill_with_bots``)."""
    from django.core.exceptions import ValidationError

    if starts_at is None and sit_and_go:
        starts_at = timezone.now()  # it starts when full; this only orders the lists
    tournament = Tournament(
        name=name, room=room, game=game or room.game, starts_at=starts_at,
        registration_opens_at=registration_opens_at, repeat_every=repeat_every, entry_fee=entry_fee,
        rake_bps=rake_bps, starting_stack=starting_stack,
        ante_schedule=ante_schedule if ante_schedule is not None else {"base": 1, "double_every": 5},
        seats_per_table=seats_per_table or min(7, room.seats), min_entrants=min_entrants,
        max_entrants=max_entrants, fill_with_bots=fill_with_bots, hand_pause_seconds=hand_pause_seconds,
        payout_structure=payout_structure, sit_and_go=sit_and_go, fill_after_seconds=fill_after_seconds,
        late_registration_level=late_registration_level, max_entries=max_entries, levels_by=levels_by,
        level_minutes=level_minutes,
    )
    try:
        tournament.full_clean()
    except ValidationError as exc:
        raise TournamentError("bad_tournament", "; ".join(f"{k}: {' '.join(v)}" for k, v in
                                                          exc.message_dict.items())) from None
    if registration_opens_at is None or registration_opens_at <= timezone.now():
        tournament.status = Status.REGISTERING
    tournament.save()
    return tournament


def open_registration(*, tournament_id: int) -> Tournament:
    with transaction.atomic():
        tournament = _lock(tournament_id)
        if tournament.status != Status.ANNOUNCED:
            raise TournamentError("not_announced", "Registration is open already or over.")
        tournament.status = Status.REGISTERING
        tournament.save(update_fields=["status"])
    _after_commit_push(tournament.pk)
    return tournament


# The settings a recurring tournament or a sit & go hands to the next one (not its state, nor the
# frozen payout rows: the next one freezes its own at its first registration).
SETTINGS = ("name", "game", "room", "repeat_every", "currency", "entry_fee", "rake_bps", "starting_stack",
            "ante_schedule", "seats_per_table", "min_entrants", "max_entrants", "fill_with_bots",
            "hand_pause_seconds", "payout_structure", "sit_and_go", "fill_after_seconds",
            "late_registration_level", "max_entries", "levels_by", "level_minutes")


def _schedule_next(tournament: Tournament) -> None:
    """Recurring tournaments: the next occurrence, once, when this one starts or is cancelled."""
    if not tournament.repeat_every or tournament.next_created:
        return
    fields = {name: getattr(tournament, name) for name in SETTINGS}
    opens = tournament.registration_opens_at + tournament.repeat_every if tournament.registration_opens_at else None
    Tournament.objects.create(
        **fields, starts_at=tournament.starts_at + tournament.repeat_every, registration_opens_at=opens,
        status=Status.REGISTERING if opens is None or opens <= timezone.now() else Status.ANNOUNCED)
    tournament.next_created = True
    tournament.save(update_fields=["next_created"])


def _open_next_sit_and_go(tournament: Tournament) -> None:
    """A sit & go that starts opens the next one with the same settings at once, once. [decided] One
    cancelled by staff opens none: the operator is stopping it."""
    if not tournament.sit_and_go or tournament.next_created:
        return
    Tournament.objects.create(**{name: getattr(tournament, name) for name in SETTINGS}, starts_at=timezone.now(),
                              status=Status.REGISTERING)
    tournament.next_created = True
    tournament.save(update_fields=["next_created"])


def casual_room_check(room: Room) -> None:
    if room.stake_kind != StakeKind.CASUAL:
        raise TournamentError("room_not_casual", "Tournament tables play in a casual room.")
