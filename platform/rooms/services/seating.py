"""A table's seating: ``Table.seating``, the seat rows as a list every move and frame reads."""

from __future__ import annotations

from rooms.models import Seat, SeatStatus, Table
from rooms.services.clock import CLOCK_KEYS


def _refresh_seating(table: Table) -> None:
    """Recompute ``table.seating`` from the seat rows (the caller holds the row lock and saves the row).
    The clock's keys (time bank, grace) live only in the seating: they are carried over."""
    clock = {e["user_id"]: {k: e[k] for k in CLOCK_KEYS if k in e} for e in table.seating}
    table.seating = [{**_seating_entry(s), **clock.get(s.user_id, {})} for s in
                     table.seats.exclude(status=SeatStatus.STOOD).select_related("user").order_by("number")]


def _seating_entry(seat: Seat) -> dict:
    user = seat.user
    return {"seat": seat.number, "user_id": user.pk, "player": user.public_name, "username": user.username,
            "bot": user.is_bot, "style": user.bot_style if user.is_bot else "", "status": seat.status,
            "timeouts": seat.consecutive_timeouts}


def _save_seating(table: Table) -> None:
    Table.objects.filter(pk=table.pk).update(seating=table.seating, last_event_seq=table.last_event_seq,
                                             version=table.version)
