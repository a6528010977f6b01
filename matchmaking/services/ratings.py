"""Ratings: OpenSkill (Plackett-Luce) updates from a finished table's ranks, once per table."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone
from openskill.models import PlackettLuce

from gameworkers.engines import game_spec
from matchmaking.models import Rating, RatingChange
from rooms.models import SeatStatus, Table, TableStatus

# ----- ratings -----------------------------------------------------------------------------------

MODEL = PlackettLuce()


def _teams(game: str, seats: dict[int, int], ranks: list) -> tuple[list[list[int]], list[int], dict[int, int]]:
    """(teams of user ids, team ranks, user -> rank) from the engine's per-seat ranks."""
    def rank_of(n: int) -> int:
        r = ranks[n] if n < len(ranks) else None
        return r if isinstance(r, int) and not isinstance(r, bool) and r > 0 else len(ranks) + 1

    spec = game_spec(game)  # partners (Baloot's 0 & 2 against 1 & 3) are rated as one side
    count = max(max(seats, default=-1) + 1, spec.min_seats)
    sides = [[n for n in side if n in seats] for side in spec.sides(count)]
    sides = [side for side in sides if side]
    teams = [[seats[n] for n in side] for side in sides]
    team_ranks = [min(rank_of(n) for n in side) for side in sides]
    user_rank = {u: r for team, r in zip(teams, team_ranks, strict=True) for u in team}
    return teams, team_ranks, user_rank


def rate_table(*, table_id: int) -> int:
    """Update the ratings of a finished table's players (bots too); returns how many changed.

    Idempotent: one RatingChange per (table, player) is unique, checked under the ratings' row
    locks, so a re-sent signal (or two workers at once) rates a table once.
    """
    table = Table.objects.select_related("room").filter(pk=table_id).first()
    if table is None or table.status != TableStatus.FINISHED or not isinstance(table.result, dict):
        return 0
    ranks = table.result.get("ranks")
    if not isinstance(ranks, list) or not ranks:
        return 0
    seats = {s.number: s.user_id for s in table.seats.exclude(status=SeatStatus.STOOD) if s.number < len(ranks)}
    if len(seats) < 2:
        return 0
    game = table.game
    teams, team_ranks, user_rank = _teams(game, seats, ranks)
    if len(teams) < 2:
        return 0
    users = sorted(user_rank)
    with transaction.atomic():
        Rating.objects.bulk_create([Rating(user_id=u, game=game) for u in users], ignore_conflicts=True)
        current = {r.user_id: r for r in Rating.objects.select_for_update().filter(user_id__in=users, game=game)
                   .order_by("user_id")}
        if RatingChange.objects.filter(table=table).exists():
            return 0
        model_teams = [[MODEL.rating(mu=current[u].mu, sigma=current[u].sigma) for u in team] for team in teams]
        rated = MODEL.rate(model_teams, ranks=team_ranks)
        changes = []
        for team, new_team in zip(teams, rated, strict=True):
            for u, new in zip(team, new_team, strict=True):
                old = current[u]
                changes.append(RatingChange(table=table, user_id=u, game=game, rank=user_rank[u], mu_before=old.mu,
                                            sigma_before=old.sigma, mu_after=new.mu, sigma_after=new.sigma))
                old.mu, old.sigma, old.ordinal = new.mu, new.sigma, new.mu - 3 * new.sigma
                old.games += 1
                old.updated_at = timezone.now()
        try:
            with transaction.atomic():
                RatingChange.objects.bulk_create(changes)
        except IntegrityError:
            return 0
        Rating.objects.bulk_update(list(current.values()), ["mu", "sigma", "ordinal", "games", "updated_at"])
    return len(changes)
