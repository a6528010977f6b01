"""Arenas: a timed window in which joined players are paired again as soon as their game ends
(docs/arenas.md). An arena plays in a casual room of its game; its entry fees (optional) sit in the
arena escrow until the prizes are paid by final standing."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils.translation import gettext_lazy as _

from gameworkers.engines import game_spec
from rooms.models import Currency, Game, StakeKind

# What is owed: the entry, its currency, the rake and the prize split. Frozen at the first join.
MONEY_FIELDS = ("currency", "entry_fee", "rake_bps", "payouts")
DEFAULT_PAYOUTS = [50, 30, 20]
MAX_PAYOUT_PLACES = 20


def default_payouts() -> list[int]:
    return list(DEFAULT_PAYOUTS)


class Status(models.TextChoices):
    SCHEDULED = "scheduled", _("Scheduled")
    RUNNING = "running", _("Running")
    FINISHED = "finished", _("Finished")
    CANCELLED = "cancelled", _("Cancelled")


ENDED = (Status.FINISHED, Status.CANCELLED)


def payout_problem(payouts: object) -> str | None:
    """Why ``payouts`` is not a prize split (whole percentages per place, best first, summing to 100)."""
    if not isinstance(payouts, list) or not payouts:
        return str(_("Give the prize split as a list of percentages, e.g. [50, 30, 20]."))
    if len(payouts) > MAX_PAYOUT_PLACES:
        return str(_("At most %(n)s paid places.") % {"n": MAX_PAYOUT_PLACES})
    if any(isinstance(p, bool) or not isinstance(p, int) or p < 0 for p in payouts):
        return str(_("Each percentage is a whole number, 0 or more."))
    if sum(payouts) != 100:
        return str(_("The percentages must add up to 100."))
    if payouts != sorted(payouts, reverse=True):
        return str(_("A better place never gets less than a worse one."))
    return None


class Arena(models.Model):
    """A Lichess-style arena for any of the four games: during ``starts_at``..``ends_at`` joined
    players are paired as soon as their game ends; points per result with a streak bonus."""

    name = models.CharField(_("name"), max_length=80)
    game = models.CharField(_("game"), max_length=16, choices=Game.choices)
    room = models.ForeignKey("rooms.Room", on_delete=models.PROTECT, related_name="arenas",
                             help_text=_("A casual room of the same game: its tables, turn timer and seats."))
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.SCHEDULED, db_index=True)
    starts_at = models.DateTimeField(_("starts at"))
    duration_minutes = models.PositiveIntegerField(_("duration (minutes)"), default=60)
    ends_at = models.DateTimeField(editable=False)  # starts_at + duration, kept by save()
    repeat_every = models.DurationField(_("repeat every"), null=True, blank=True,
                                        help_text=_("Recurring: the next one is scheduled when this one starts."))
    table_seats = models.PositiveSmallIntegerField(
        _("players per game"), null=True, blank=True,
        help_text=_("Empty: the room's seats. Bots take the seats no waiting player fills."))
    bot_fill_seconds = models.PositiveSmallIntegerField(
        _("bots fill after (s)"), default=10,
        help_text=_("A player who has waited this long for a game gets bots in the free seats."))
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices, default=Currency.CHIP)
    entry_fee = models.PositiveIntegerField(_("entry fee"), default=0)
    rake_bps = models.PositiveIntegerField(_("rake (basis points)"), default=0)
    payouts = models.JSONField(_("prize split (% per place)"), default=default_payouts, blank=True)
    next_created = models.BooleanField(default=False)
    cancel_reason = models.CharField(max_length=40, blank=True)
    pool = models.PositiveIntegerField(default=0)  # the prize pool paid out at the finish
    payout_error = models.CharField(max_length=200, blank=True, default="")
    payout_failed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-starts_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(rake_bps__lte=10_000), name="arena_rake_bps_max"),
            models.CheckConstraint(condition=models.Q(duration_minutes__gte=1), name="arena_duration_min"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        """Keeps ``ends_at``; refuses a change of what is owed once anyone joined (not only in the admin)."""
        if self.starts_at is not None and self.duration_minutes:
            self.ends_at = self.starts_at + self.duration
            if kwargs.get("update_fields") is not None and {"starts_at", "duration_minutes"} & set(kwargs["update_fields"]):
                kwargs["update_fields"] = {*kwargs["update_fields"], "ends_at"}
        update_fields = kwargs.get("update_fields")
        if self.pk is None or (update_fields is not None and not set(update_fields) & set(MONEY_FIELDS)):
            super().save(*args, **kwargs)
            return
        with transaction.atomic(using=kwargs.get("using")):
            changed = self._money_changes(lock=True)
            if changed:
                raise self._money_locked_error(changed)
            super().save(*args, **kwargs)

    @property
    def seats(self) -> int:
        """Players per game (bots included)."""
        return self.table_seats or self.room.seats

    @property
    def duration(self) -> timedelta:
        return timedelta(minutes=self.duration_minutes)

    @property
    def money_locked(self) -> bool:
        return self.pk is not None and self.players.exists()

    def _money_changes(self, *, lock: bool = False) -> list[str]:
        if self.pk is None:
            return []
        rows = Arena.objects.filter(pk=self.pk)
        if lock:
            rows = rows.select_for_update()  # joining takes this lock too: no entry slips in between
        stored = rows.values(*MONEY_FIELDS).first()
        if stored is None:
            return []
        changed = [f for f in MONEY_FIELDS if stored[f] != getattr(self, f)]
        if changed and not self.players.exists():
            return []
        return changed

    def _money_locked_error(self, fields: list[str]) -> ValidationError:
        return ValidationError({f: ValidationError(
            _("Players have joined: the entry fee, currency, rake and prize split can no longer change."),
            code="money_locked") for f in fields})

    def clean(self) -> None:
        changed = self._money_changes()
        if changed:
            raise self._money_locked_error(changed)
        errors: dict[str, str] = {}
        room = self.room if self.room_id else None
        if self.game not in Game.values:
            errors["game"] = _("Choose one of the games.")
        elif room is not None:
            if room.game != self.game:
                errors["room"] = _("The room must be of the arena's game.")
            elif room.stake_kind != StakeKind.CASUAL:
                errors["room"] = _("Arena games are free: pick a casual room (the entry fee is the arena's).")
            elif self.table_seats is not None:
                spec = game_spec(self.game)
                if not (spec.allows_seats(self.table_seats) and room.min_seats <= self.table_seats <= room.seats):
                    errors["table_seats"] = _("Players per game must lie between the room's minimum and its seats.")
        if self.rake_bps is not None and self.rake_bps > 10_000:
            errors["rake_bps"] = _("Rake is in basis points, from 0 to 10,000.")
        if not self.duration_minutes:
            errors["duration_minutes"] = _("An arena lasts at least a minute.")
        if self.repeat_every is not None and self.repeat_every < timedelta(minutes=self.duration_minutes or 1):
            errors["repeat_every"] = _("The next arena cannot start before this one ends.")
        problem = payout_problem(self.payouts)
        if problem:
            errors["payouts"] = problem
        if errors:
            raise ValidationError(errors)


class PlayerStatus(models.TextChoices):
    ACTIVE = "active", _("Playing")
    PAUSED = "paused", _("Paused")
    WITHDRAWN = "withdrawn", _("Withdrawn")


# Players whose entry sits in the arena escrow until the finish (a withdrawal before the start refunds).
HOLDING = (PlayerStatus.ACTIVE, PlayerStatus.PAUSED)


class ArenaPlayer(models.Model):
    """One human in one arena: score, streak, current game. Bots are never arena players."""

    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="arena_players")
    status = models.CharField(max_length=10, choices=PlayerStatus.choices, default=PlayerStatus.ACTIVE)
    registrations = models.PositiveIntegerField(default=1)  # numbers the entry/refund ledger keys
    paid = models.PositiveIntegerField(default=0)  # what the current registration paid into the escrow
    score = models.PositiveIntegerField(default=0)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    streak = models.PositiveIntegerField(default=0)  # wins in a row; from 2 on, results count double
    sheet = models.JSONField(default=list, blank=True)  # [[points, doubled 0/1], ...] in game order
    table = models.ForeignKey("rooms.Table", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    waiting_since = models.DateTimeField(null=True, blank=True)  # set while active and between games
    last_opponents = models.JSONField(default=list, blank=True)  # user ids of the last game's humans
    note = models.CharField(max_length=40, blank=True)  # why the arena paused the player (e.g. left_game)
    place = models.PositiveIntegerField(null=True, blank=True)
    prize = models.PositiveIntegerField(default=0)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-score", "joined_at", "id"]
        constraints = [models.UniqueConstraint(fields=["arena", "user"], name="arena_player_once")]
        indexes = [models.Index(fields=["arena", "status", "waiting_since"], name="arena_waiting_idx")]

    def __str__(self) -> str:
        return f"{self.user} in {self.arena}"

    @property
    def on_fire(self) -> bool:
        from arenas.logic import FIRE_AFTER

        return self.streak >= FIRE_AFTER


class ArenaGame(models.Model):
    """One game of an arena: its rooms table and who sat where (``players[seat]``: an ArenaPlayer id,
    or None for a bot). ``scored`` is claimed once (a conditional update), so a game counts once."""

    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="games")
    table = models.OneToOneField("rooms.Table", on_delete=models.PROTECT, related_name="arena_game")
    players = models.JSONField(default=list)
    scored = models.BooleanField(default=False)
    points = models.JSONField(null=True, blank=True)  # per seat, as counted (None: bot or void)
    created_at = models.DateTimeField(auto_now_add=True)
    scored_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["arena", "scored"], name="arena_game_pending_idx")]

    def __str__(self) -> str:
        return f"{self.arena} game on table {self.table_id}"
