"""Tournaments, entries and tournament tables (docs/tournaments.md)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils.translation import gettext_lazy as _

from rooms.models import Currency, Game, StakeKind

DEFAULT_SCHEDULE = {"base": 1, "double_every": 5}
BRACKET_SIZES = {"lembar": None, "cherki": 3, "baloot": 2}  # tables of k entrants (Lembar: the room's seats)


# What is owed: the entry each player pays, in which currency, and the rake off the pool (the prize
# split itself is fixed in ``logic.prize_table``). Frozen once the first player registered.
MONEY_FIELDS = ("currency", "entry_fee", "rake_bps")


def default_schedule() -> dict:
    return dict(DEFAULT_SCHEDULE)


class Status(models.TextChoices):
    ANNOUNCED = "announced", _("Announced")
    REGISTERING = "registering", _("Registering")
    RUNNING = "running", _("Running")
    FINISHED = "finished", _("Finished")
    CANCELLED = "cancelled", _("Cancelled")


class Tournament(models.Model):
    """An admin-scheduled tournament: a 31 freezeout, or a bracket for Lembar, Cherki and Baloot pairs."""

    name = models.CharField(_("name"), max_length=80)
    game = models.CharField(_("game"), max_length=16, choices=Game.choices, default=Game.OTUZBIR)
    room = models.ForeignKey("rooms.Room", on_delete=models.PROTECT, related_name="tournaments",
                             help_text=_("A casual room of the same game: its tables, timer and seats."))
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.ANNOUNCED, db_index=True)
    registration_opens_at = models.DateTimeField(_("registration opens"), null=True, blank=True)
    starts_at = models.DateTimeField(_("starts at"))
    repeat_every = models.DurationField(_("repeat every"), null=True, blank=True,
                                        help_text=_("Recurring: the next one is scheduled when this one starts."))
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices, default=Currency.CHIP)
    entry_fee = models.PositiveIntegerField(_("entry fee"), default=20)
    rake_bps = models.PositiveIntegerField(_("rake (basis points)"), default=0)
    starting_stack = models.PositiveIntegerField(_("starting stack"), default=100)
    ante_schedule = models.JSONField(_("ante schedule"), default=default_schedule, blank=True)
    seats_per_table = models.PositiveSmallIntegerField(_("seats per table"), default=7)
    min_entrants = models.PositiveIntegerField(_("minimum entrants"), default=2)
    max_entrants = models.PositiveIntegerField(_("maximum entrants"), null=True, blank=True)
    fill_with_bots = models.BooleanField(_("bots fill up to the minimum"), default=False)
    round = models.PositiveIntegerField(default=0)
    round_dealt = models.BooleanField(default=False)
    entrants = models.PositiveIntegerField(default=0)
    pool = models.PositiveIntegerField(default=0)
    next_created = models.BooleanField(default=False)
    cancel_reason = models.CharField(max_length=40, blank=True)
    # The last failed prize payout ("code: message"); cleared when the prizes are paid.
    payout_error = models.CharField(max_length=200, blank=True, default="")
    payout_failed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-starts_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(rake_bps__lte=10_000), name="tournament_rake_bps_max"),
            models.CheckConstraint(condition=models.Q(min_entrants__gte=2), name="tournament_min_entrants"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        """Refuses a change of fee, currency or rake once anyone registered (not only in the admin)."""
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
    def is_freezeout(self) -> bool:
        return self.game == Game.OTUZBIR

    @property
    def team_size(self) -> int:
        return 2 if self.game == Game.BALOOT else 1

    @property
    def table_size(self) -> int:
        """Bracket: entrants (teams) per table; freezeout: seats per table."""
        if self.is_freezeout:
            return self.seats_per_table
        return BRACKET_SIZES.get(self.game) or self.room.seats

    @property
    def money_locked(self) -> bool:
        """Fee, currency and rake are frozen once anyone registered (an entry row exists)."""
        return self.pk is not None and self.entries.exists()

    def _money_changes(self, *, lock: bool = False) -> list[str]:
        """The money fields that differ from the stored row, when that row already has entries."""
        if self.pk is None:
            return []
        rows = Tournament.objects.filter(pk=self.pk)
        if lock:
            rows = rows.select_for_update()  # registration takes this lock too: no entry slips in between
        stored = rows.values(*MONEY_FIELDS).first()
        if stored is None:
            return []
        changed = [f for f in MONEY_FIELDS if stored[f] != getattr(self, f)]
        if changed and not self.entries.exists():
            return []
        return changed

    def _money_locked_error(self, fields: list[str]) -> ValidationError:
        return ValidationError({f: ValidationError(
            _("Players have registered: the entry fee, currency and rake can no longer change."),
            code="money_locked") for f in fields})

    def clean(self) -> None:
        changed = self._money_changes()
        if changed:
            raise self._money_locked_error(changed)
        errors: dict[str, str] = {}
        room = self.room if self.room_id else None
        if room is not None:
            if room.game != self.game:
                errors["room"] = _("The room must be of the tournament's game.")
            if room.stake_kind != StakeKind.CASUAL:
                errors["room"] = _("Tournament tables play for tournament chips: pick a casual room.")
            if self.is_freezeout and not 2 <= (self.seats_per_table or 0) <= room.seats:
                errors["seats_per_table"] = _("Seats per table must lie between 2 and the room's seats.")
        if self.rake_bps is not None and self.rake_bps > 10_000:
            errors["rake_bps"] = _("Rake is in basis points, from 0 to 10,000.")
        if self.min_entrants is not None and self.min_entrants < 2:
            errors["min_entrants"] = _("A tournament needs at least two entrants.")
        if self.max_entrants is not None and self.min_entrants and self.max_entrants < self.min_entrants:
            errors["max_entrants"] = _("The maximum is below the minimum.")
        if self.is_freezeout:
            from gameworkers.engines.otuzbir import _normal_options

            try:
                _normal_options({"stacks": [self.starting_stack or 1] * 2, "ante_schedule": self.ante_schedule}, 2)
            except ValueError as exc:
                errors["ante_schedule"] = str(exc)
        if errors:
            raise ValidationError(errors)


class EntryStatus(models.TextChoices):
    REGISTERED = "registered", _("Registered")
    UNREGISTERED = "unregistered", _("Unregistered")
    PLAYING = "playing", _("Playing")
    OUT = "out", _("Out")
    WON = "won", _("Won")
    REFUNDED = "refunded", _("Refunded")


# Entries whose payment sits in the tournament escrow while the tournament is not over
# (unregistered and refunded entries got it back; finished and cancelled tournaments hold nothing).
HOLDING = (EntryStatus.REGISTERED, EntryStatus.PLAYING, EntryStatus.OUT, EntryStatus.WON)


class Entry(models.Model):
    """One player in one tournament (Baloot pairs: two entries sharing ``team``)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournament_entries")
    status = models.CharField(max_length=12, choices=EntryStatus.choices, default=EntryStatus.REGISTERED)
    registrations = models.PositiveIntegerField(default=1)  # numbers the entry/refund ledger keys
    paid = models.PositiveIntegerField(default=0)  # what the latest registration paid into the escrow
    team = models.PositiveIntegerField(null=True, blank=True)  # Baloot: the team's first entry id
    stack = models.IntegerField(default=0)
    table = models.ForeignKey("TournamentTable", null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="entries")
    out_round = models.PositiveIntegerField(null=True, blank=True)
    out_stack = models.IntegerField(null=True, blank=True)  # stack at the start of the hand it went out in
    out_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    place = models.PositiveIntegerField(null=True, blank=True)
    prize = models.PositiveIntegerField(default=0)
    registered_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["place", "-stack", "id"]
        constraints = [models.UniqueConstraint(fields=["tournament", "user"], name="tournament_entry_once")]

    def __str__(self) -> str:
        return f"{self.user} in {self.tournament}"

    @property
    def unit(self) -> int:
        """The bracket unit: the team for Baloot pairs, else the entry itself."""
        return self.team or self.pk


class TournamentTable(models.Model):
    """A tournament table across hands (31) or one bracket match; ``table`` is its current rooms Table."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveIntegerField()
    round = models.PositiveIntegerField(default=1)  # bracket round (31: the round it was dealt last)
    players = models.JSONField(default=list)  # 31: entry ids in seat order; bracket: units in seat order
    hands = models.PositiveIntegerField(default=0)  # 31: hands this table has counted
    ebe = models.PositiveIntegerField(null=True, blank=True)  # 31: the entry who deals next
    table = models.ForeignKey("rooms.Table", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    broken = models.BooleanField(default=False)
    winner = models.PositiveIntegerField(null=True, blank=True)  # bracket: the unit that advances
    result = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["round", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "round", "number"],
                                               name="tournament_table_number")]

    def __str__(self) -> str:
        return f"{self.tournament} table {self.number}"
