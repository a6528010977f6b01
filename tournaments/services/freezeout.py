"""The 31 freezeout after each hand: busts ranked, late entries seated, tables balanced (``logic.balance``)."""

from __future__ import annotations

from datetime import datetime

from rooms.models import SeatStatus, Table, TableStatus
from tournaments import logic
from tournaments.models import Entry, EntryStatus, Tournament, TournamentTable
from tournaments.services.base import _round_tables
from tournaments.services.payouts import _finish_locked


def _advance_freezeout(tournament: Tournament) -> list | None:
    tts = _round_tables(tournament)
    if tts is None:
        return None
    entries = {e.pk: e for e in tournament.entries.filter(status=EntryStatus.PLAYING)}
    # late entries and re-entries registered while the hand was played: seated now, with the starting stack
    waiting = list(tournament.entries.filter(status=EntryStatus.REGISTERED).order_by("registered_at", "pk"))
    busts: list[logic.Bust] = []
    states: list[logic.TableState] = []
    out_tables: dict[int, int] = {}  # entry -> the rooms table of the hand it went out in
    for tt in tts:
        table: Table = tt.table
        out_tables.update(dict.fromkeys(tt.players, table.pk))
        seated = [p for p in tt.players if p in entries]
        out: set[int] = set()
        ebe = tt.ebe
        if table.status == TableStatus.FINISHED and table.result:
            result = table.result
            left = result.get("left") or [False] * len(seated)
            moments = _leave_moments(table)
            for seat, player in enumerate(seated):
                entry = entries[player]
                start_stack = entry.stack
                entry.stack = int(result["stacks"][seat])
                if result["eliminated"][seat] is not None:
                    # a leaver went out at its leave, not at the hand's end (spec: ranks below)
                    left_at = moments.get(seat, (0, 0)) if left[seat] else None
                    busts.append(logic.Bust(player, start_stack, seat, left_at))
                    out.add(player)
            tt.hands += int(result.get("hands_played", 1))
            engine_ebe = (table.state or {}).get("ebe")
            if isinstance(engine_ebe, int) and 0 <= engine_ebe < len(seated):
                ebe = seated[engine_ebe]
        else:  # stopped: the hand is void; players who left or were removed are out with their stack
            gone = dict(table.seats.exclude(status__in=[SeatStatus.SEATED, SeatStatus.STOOD])
                        .values_list("number", "left_at"))
            moments = _leave_moments(table)
            for seat, player in enumerate(seated):
                if seat in gone:
                    # out at the moment it left (the engine's record; else the seat's own time)
                    left_at = moments.get(seat) or (_ms(gone[seat]), 0)
                    busts.append(logic.Bust(player, entries[player].stack, seat, left_at))
                    out.add(player)
        staying = [p for p in seated if p not in out]
        ebe = logic.pass_ebe(seated, ebe, staying) if ebe is not None else None
        tt.players, tt.ebe = staying, ebe
        states.append(logic.TableState(tt.number, staying, tt.hands, ebe))
    alive = [p for p in entries if p not in {b.player for b in busts}] + [e.pk for e in waiting]
    places = logic.rank_busts(busts, remaining=len(alive))
    for entry in waiting:
        entry.status, entry.stack = EntryStatus.PLAYING, tournament.starting_stack
        entries[entry.pk] = entry
    for bust in busts:
        entry = entries[bust.player]
        entry.status = EntryStatus.OUT
        entry.place = places[bust.player]
        entry.out_round = tournament.round
        entry.out_stack = bust.start_stack
        entry.out_seat = bust.seat
        entry.out_table = out_tables.get(bust.player)
        entry.table = None
    by_number = {tt.number: tt for tt in tts}
    moves: list[tuple[int, int]] = []
    if len(alive) <= 1:
        for player in alive:
            entries[player].status = EntryStatus.WON
            entries[player].place = 1
            entries[player].table = None
        for tt in tts:
            tt.broken = len(tt.players) == 0
    else:
        if waiting:  # a free seat each, or new tables; the balancing below evens them out
            last = max(tournament.tables.values_list("number", flat=True), default=0)
            states = logic.seat_late(states, [e.pk for e in waiting], seats=tournament.seats_per_table,
                                     next_id=last + 1)
        result = logic.balance(states, seats=tournament.seats_per_table)
        new = {s.id: s for s in result.tables}
        for number, tt in by_number.items():
            if number in new:
                tt.players, tt.hands, tt.ebe = new[number].players, new[number].hands, new[number].ebe
                for player in tt.players:
                    entries[player].table = tt
            else:
                tt.broken = True
                tt.players = []
        for number, state in new.items():
            if number not in by_number:  # a new table for late entrants: dealt with the next hand
                tt = TournamentTable.objects.create(tournament=tournament, number=number, round=0,
                                                    players=state.players, hands=state.hands, ebe=state.ebe)
                for player in state.players:
                    entries[player].table = tt
        moves = [(m.player, m.to_table) for m in result.moves]
    Entry.objects.bulk_update(list(entries.values()),
                              ["status", "stack", "place", "out_round", "out_stack", "out_seat", "out_table", "table"])
    TournamentTable.objects.bulk_update(tts, ["players", "hands", "ebe", "broken"])
    if len(alive) <= 1:
        _finish_locked(tournament)
    else:
        tournament.round += 1
        tournament.round_dealt = False
        tournament.save(update_fields=["round", "round_dealt"])
    return moves


def _leave_moments(table: Table) -> dict[int, tuple[int, int]]:
    """Seat -> ``(now_ms, seq)`` of its leave move, as the 31 engine recorded it (the result of a
    finished table, the state of a stopped one); seats without a record are left out."""
    record = (table.result or {}).get("left_at") or (table.state or {}).get("left_at") or []
    moments: dict[int, tuple[int, int]] = {}
    for seat, moment in enumerate(record):
        if isinstance(moment, dict):
            moments[seat] = (int(moment["ms"]), int(moment["seq"]))
    return moments


def _ms(when: datetime | None) -> int:
    return int(when.timestamp() * 1000) if when is not None else 0
