"""What the tournament services share: the row lock, the push after commit, entries by unit, the round's tables."""

from __future__ import annotations

from core.transactions import after_commit
from rooms.models import ENDED_STATUSES
from tournaments.errors import TournamentError
from tournaments.models import Entry, EntryStatus, Tournament, TournamentTable

# (user id, rooms table id, tournament table number): a human seated at a freshly dealt table.
SeatPush = tuple[int, int, int]

ACTIVE = (EntryStatus.REGISTERED, EntryStatus.PLAYING)


def _lock(tournament_id: int) -> Tournament:
    try:
        return Tournament.objects.select_for_update().select_related("room").get(pk=tournament_id)
    except (Tournament.DoesNotExist, ValueError, TypeError):
        raise TournamentError("no_such_tournament", "There is no such tournament.") from None


def _after_commit_push(tournament_id: int, moves: list[SeatPush] | None = None) -> None:
    def push() -> None:
        from tournaments import broadcast

        broadcast.tournament_changed(tournament_id, moves=moves or [])

    after_commit(push)


def _units(tournament: Tournament) -> dict[int, list[Entry]]:
    units: dict[int, list[Entry]] = {}
    for entry in tournament.entries.filter(status__in=ACTIVE).select_related("user").order_by("registered_at", "pk"):
        units.setdefault(entry.unit, []).append(entry)
    return units


def _round_tables(tournament: Tournament) -> list[TournamentTable] | None:
    tts = list(tournament.tables.filter(broken=False, round=tournament.round).select_related("table"))
    if tournament.is_freezeout:
        tts = [tt for tt in tts if tt.table is not None]
    for tt in tts:
        if tt.table is not None and tt.table.status not in ENDED_STATUSES:
            return None
    return tts
