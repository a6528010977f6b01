"""Reads for account pages. Other apps register profile sections (balances, ratings)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from accounts.models import User

# Each provider returns extra context for the profile page; apps append theirs at ready().
PROFILE_SECTIONS: list[Callable[[User], dict]] = []


def profile_context(*, user: User) -> dict:
    context: dict = {"profile_user": user}
    for provider in PROFILE_SECTIONS:
        context.update(provider(user))
    return context


# The apps built on accounts (rooms, tournaments, wallets) are imported inside the functions below: they
# import accounts themselves, and these reads are the account's view of them.

def has_finished_game(*, user: User) -> bool:
    """Whether the player sat at a table that finished by the rules (the welcome grant's first condition)."""
    from rooms.models import Seat, TableStatus

    return Seat.objects.filter(user=user, table__status=TableStatus.FINISHED).exists()


def deletion_blockers(*, user: User) -> list[dict]:
    """What keeps the player from deleting their account: each open or running table they hold a seat
    at, and each tournament not over where they are registered or still playing (docs/accounts.md).
    ``{"kind": "table"|"tournament", "id", "name", "status"}``, tables first."""
    from rooms.models import Seat, SeatStatus, TableStatus
    from tournaments.models import Entry, EntryStatus, Status

    blockers = [{"kind": "table", "id": seat.table_id, "name": seat.table.room.name, "status": seat.table.status}
                for seat in Seat.objects.filter(user=user, status=SeatStatus.SEATED,
                                                table__status__in=[TableStatus.OPEN, TableStatus.RUNNING])
                .select_related("table__room").order_by("table_id")]
    blockers += [{"kind": "tournament", "id": entry.tournament_id, "name": entry.tournament.name,
                  "status": entry.status}
                 for entry in Entry.objects.filter(
                     user=user, status__in=[EntryStatus.REGISTERED, EntryStatus.PLAYING],
                     tournament__status__in=[Status.ANNOUNCED, Status.REGISTERING, Status.RUNNING])
                 .select_related("tournament").order_by("tournament_id")]
    return blockers


def welcome_status(*, user: User) -> dict:
    """Where the player's welcome Mutiara and Kelereng stand, for the profile page: the rule in force
    (``requires_email``, ``delay_h``), the amounts, ``granted``; else what they still wait for
    (``needs_email``; ``needs_play``: no finished game yet and ``hours_left`` of the delay)."""
    from wallets.models import WalletSettings
    from wallets.services import welcome_real_granted, welcome_real_waits_for_email

    conf = WalletSettings.load()
    status = {"mutiara": conf.welcome_mutiara, "kelereng": conf.welcome_kelereng,
              "requires_email": bool(settings.WELCOME_REQUIRES_VERIFIED_EMAIL),
              "delay_h": settings.WELCOME_REAL_VALUE_DELAY_H,
              "granted": welcome_real_granted(user=user), "needs_email": False, "needs_play": False,
              "hours_left": 0}
    if status["granted"] or user.is_bot or not (conf.welcome_mutiara or conf.welcome_kelereng):
        return status
    status["needs_email"] = welcome_real_waits_for_email(user=user)
    due = user.date_joined + timedelta(hours=settings.WELCOME_REAL_VALUE_DELAY_H)
    if timezone.now() < due and not has_finished_game(user=user):
        status["needs_play"] = True
        status["hours_left"] = max(1, round((due - timezone.now()).total_seconds() / 3600))
    return status
