"""Reads: the tournament list, standings with level and next ante, the bracket, the live snapshot."""

from __future__ import annotations

from gameworkers.engines.otuzbir import _normal_options, ante_for
from tournaments.models import Entry, EntryStatus, Status, Tournament, TournamentTable


def tournament_list() -> list[Tournament]:
    return list(Tournament.objects.select_related("room").order_by("-starts_at", "-id")[:100])


def _schedule(tournament: Tournament) -> dict:
    return _normal_options({"stacks": [1, 1], "ante_schedule": tournament.ante_schedule}, 2)


def level_of(*, tournament: Tournament) -> dict:
    """The ante now (at the table with the highest hand count) and the next ante with hands to go."""
    hands = max(tournament.tables.filter(broken=False).values_list("hands", flat=True), default=0)
    options = _schedule(tournament)
    ante = ante_for(options, hands)
    ahead = 1
    while ahead < 10_000 and ante_for(options, hands + ahead) == ante:
        ahead += 1
    return {"hand": hands, "ante": ante, "next_ante": ante_for(options, hands + ahead) if ahead < 10_000 else ante,
            "hands_to_next": ahead if ahead < 10_000 else None}


def standings(*, tournament: Tournament) -> list[dict]:
    rows = []
    tables = {tt.pk: tt for tt in tournament.tables.all()}
    for entry in tournament.entries.exclude(status__in=[EntryStatus.UNREGISTERED]).select_related("user"):
        tt = tables.get(entry.table_id)
        rows.append({"entry": entry.pk, "player": entry.user.public_name, "bot": entry.user.is_bot,
                     "status": entry.status, "stack": entry.stack, "place": entry.place, "prize": entry.prize,
                     "team": entry.team, "table": tt.table_id if tt else None, "table_number": tt.number if tt else None})
    live = (EntryStatus.PLAYING, EntryStatus.WON)
    rows.sort(key=lambda r: (r["status"] not in live, r["place"] or 10**9, -r["stack"], r["entry"]))
    return rows


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


def live_snapshot(*, tournament_id: int) -> dict:
    tournament = Tournament.objects.select_related("room").get(pk=tournament_id)
    frame = {"type": "tournament.standings", "tournament": tournament.pk, "status": tournament.status,
             "round": tournament.round, "entrants": tournament.entrants or active_count(tournament=tournament),
             "pool": tournament.pool}
    if tournament.is_freezeout:
        frame["level"] = level_of(tournament=tournament)
        frame["standings"] = standings(tournament=tournament)[:200]
        frame["tables"] = [{"number": tt.number, "table": tt.table_id, "players": len(tt.players), "hands": tt.hands}
                           for tt in tournament.tables.filter(broken=False).order_by("number")]
    else:
        frame["bracket"] = bracket(tournament=tournament)
        frame["standings"] = standings(tournament=tournament)[:200]
    return frame


def active_count(*, tournament: Tournament) -> int:
    return tournament.entries.filter(status__in=[EntryStatus.REGISTERED, EntryStatus.PLAYING]).count()


def entry_of(*, tournament: Tournament, user) -> Entry | None:
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return tournament.entries.filter(user=user).first()


__all__ = ["Status", "TournamentTable", "bracket", "level_of", "live_snapshot", "standings", "tournament_list"]
