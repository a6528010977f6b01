"""Brackets (Lembar, Cherki, Baloot pairs): one rooms Table per match; the top advances."""

from __future__ import annotations

from gameworkers.engines import game_spec
from rooms.models import SeatStatus, TableStatus
from tournaments import logic
from tournaments.models import EntryStatus, Tournament, TournamentTable
from tournaments.services.base import ACTIVE, _round_tables, _units
from tournaments.services.payouts import _finish_locked


def _bracket_low(tournament: Tournament) -> int:
    """The fewest entrants a bracket table may have: a fixed-size game's size, else the room's minimum."""
    spec = game_spec(tournament.game)
    if spec.bracket_size is None:
        return max(spec.min_seats, tournament.room.min_seats)
    return tournament.table_size


def _create_matches(tournament: Tournament, round_number: int, groups: list[list[int]]) -> None:
    for number, group in enumerate(groups, start=1):
        TournamentTable.objects.create(tournament=tournament, number=number, round=round_number, players=group,
                                       winner=group[0] if len(group) == 1 else None)


def _unit_of_seat(tournament: Tournament, tt: TournamentTable, seat: int) -> int:
    if tournament.team_size > 1:
        return tt.players[seat % 2]
    return tt.players[seat]


def _advance_bracket(tournament: Tournament) -> list | None:
    tts = _round_tables(tournament)
    if tts is None:
        return None
    replay = []
    for tt in tts:
        if tt.winner is not None:
            continue
        table = tt.table
        if table is None:
            return None
        if table.status == TableStatus.FINISHED and table.result and not table.result.get("void"):
            ranks = table.result.get("ranks") or []
            scored = [(r, s) for s, r in enumerate(ranks) if isinstance(r, int)]
            best = min(scored)[1] if scored else 0  # ties at the top: the smallest seat (docs)
            tt.winner = _unit_of_seat(tournament, tt, best)
            tt.result = {"ranks": ranks}
        elif table.status == TableStatus.FINISHED:
            replay.append(tt)  # a void Cherki game: the match is played again
        else:
            still = list(table.seats.filter(status=SeatStatus.SEATED).order_by("number").values_list("number", flat=True))
            tt.winner = _unit_of_seat(tournament, tt, still[0] if still else 0)
            tt.result = {"stopped": True}
        tt.save(update_fields=["winner", "result"])
    if replay:
        for tt in replay:
            tt.table = None
            tt.save(update_fields=["table"])
        tournament.round_dealt = False
        tournament.save(update_fields=["round_dealt"])
        return []
    winners = [tt.winner for tt in sorted(tts, key=lambda t: t.number)]
    units = _units(tournament)
    losers = [u for tt in tts for u in tt.players if u != tt.winner]
    for unit in losers:
        for entry in units.get(unit, []):
            entry.status = EntryStatus.OUT
            entry.out_round = tournament.round
            entry.save(update_fields=["status", "out_round"])
    if len(winners) == 1:
        final = tts[0]
        ranks = (final.result or {}).get("ranks") or []
        unit_rank: dict[int, int] = {}
        for seat, rank in enumerate(ranks):
            if isinstance(rank, int):
                unit = _unit_of_seat(tournament, final, seat)
                unit_rank[unit] = min(rank, unit_rank.get(unit, rank))
        others = {u: r for u, r in unit_rank.items() if u != winners[0]}
        places = {winners[0]: 1}
        for unit, rank in others.items():
            places[unit] = 2 + sum(1 for r in others.values() if r < rank)
        for unit, place in places.items():
            for entry in tournament.entries.filter(status__in=[*ACTIVE, EntryStatus.OUT]):
                if entry.unit == unit:
                    entry.place = place
                    if place == 1:
                        entry.status = EntryStatus.WON
                    entry.save(update_fields=["place", "status"])
        _finish_locked(tournament)
        return []
    tournament.round += 1
    tournament.round_dealt = False
    tournament.save(update_fields=["round", "round_dealt"])
    _create_matches(tournament, tournament.round, logic.next_round(winners, k=tournament.table_size))
    return []
