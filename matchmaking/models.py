"""Queue entries, formed matches, ratings and the per-table rating changes.

Invariants held by the database:
- one *active* queue entry (waiting or matching) per player (``queue_one_active_per_user``);
- one rating per (player, game), one rating change per (table, player): a finished table
  is rated at most once whatever signals are re-sent (``rating_change_once``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from rooms.models import Game, Room, Table

DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3


class EntryStatus(models.TextChoices):
    WAITING = "waiting", _("Waiting")
    MATCHING = "matching", _("Being seated")
    SEATED = "seated", _("Seated")
    LEFT = "left", _("Left the queue")
    REFUSED = "refused", _("Refused")


ACTIVE_STATUSES = (EntryStatus.WAITING, EntryStatus.MATCHING)


class MatchStatus(models.TextChoices):
    PENDING = "pending", _("Pending")
    SEATED = "seated", _("Seated")
    FAILED = "failed", _("Failed")


class Match(models.Model):
    """A group the matcher formed: its entries are seated at one new table (plus ``bots`` bots)."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="matches")
    status = models.CharField(max_length=8, choices=MatchStatus.choices, default=MatchStatus.PENDING)
    seat_count = models.PositiveSmallIntegerField()
    bots = models.PositiveSmallIntegerField(default=0)
    table = models.ForeignKey(Table, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    error_code = models.CharField(max_length=40, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)  # last hand-over to a seating task
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "matches"
        indexes = [models.Index(fields=["status", "created_at"], name="match_status_idx")]

    def __str__(self) -> str:
        return f"Match {self.pk} ({self.room.slug}, {self.status})"


class QueueEntry(models.Model):
    """One player waiting in one room's quick-play queue. Rows are kept (history, wait estimates)."""

    # Few indexes on purpose: a matcher pass rewrites thousands of these rows and every index costs
    # a write per row. (status, room, joined_at) serves the matcher and queue positions.
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="queue_entries", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="queue_entries")
    status = models.CharField(max_length=8, choices=EntryStatus.choices, default=EntryStatus.WAITING)
    # Entries sharing a non-empty party key are seated together (play again / rematch).
    party = models.CharField(max_length=40, blank=True, default="")
    rating = models.FloatField(default=DEFAULT_MU)  # the player's mu for the room's game when they joined
    joined_at = models.DateTimeField()
    # No database-level FK check: a matcher pass sets this on thousands of rows at once, always to a
    # match created in the same transaction, and 10,000 RI trigger runs cost more than the whole pass.
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="entries",
                              db_constraint=False)
    table = models.ForeignKey(Table, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                              db_index=False)
    ended_at = models.DateTimeField(null=True, blank=True)
    error_code = models.CharField(max_length=40, blank=True)
    error_message = models.CharField(max_length=200, blank=True)

    class Meta:
        verbose_name_plural = "queue entries"
        indexes = [models.Index(fields=["status", "room", "joined_at"], name="queue_status_room_idx"),
                   models.Index(fields=["room", "ended_at"], name="queue_room_ended_idx",
                                condition=models.Q(status="seated"))]
        constraints = [
            models.UniqueConstraint(fields=["user"], condition=models.Q(status__in=["waiting", "matching"]),
                                    name="queue_one_active_per_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.room.slug} ({self.status})"


class Rating(models.Model):
    """A player's (or bot's) OpenSkill Plackett-Luce rating for one game."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings")
    game = models.CharField(max_length=16, choices=Game.choices)
    mu = models.FloatField(default=DEFAULT_MU)
    sigma = models.FloatField(default=DEFAULT_SIGMA)
    ordinal = models.FloatField(default=0.0)  # mu - 3 sigma: the conservative figure leaderboards sort by
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="rating_one_per_game")]
        indexes = [models.Index(fields=["game", "-ordinal"], name="rating_board_idx")]

    def __str__(self) -> str:
        return f"{self.user} {self.game} {self.ordinal:.1f}"


class RatingChange(models.Model):
    """What one finished table did to one player's rating (the idempotency record)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="rating_changes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes")
    game = models.CharField(max_length=16, choices=Game.choices)
    rank = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "user"], name="rating_change_once")]

    def __str__(self) -> str:
        return f"{self.table_id} {self.user} {self.mu_before:.1f}->{self.mu_after:.1f}"
