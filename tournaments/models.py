"""Tournaments, entries and tournament tables (docs/tournaments.md)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils.translation import gettext_lazy as _

from gameworkers.engines import game_spec, get_engine
from rooms.models import Currency, Game, StakeKind
from tournaments import logic

DEFAULT_SCHEDULE = {"base": 1, "double_every": 5}


# What is owed: the entry each player pays, in which currency, the rake off the pool and the payout
# structure that splits it. Frozen once the first player registered (the structure's rows are copied
# onto the tournament then: ``Tournament.payout_rows``).
MONEY_FIELDS = ("currency", "entry_fee", "rake_bps", "payout_structure")


def default_schedule() -> dict:
    return dict(DEFAULT_SCHEDULE)


class LevelsBy(models.TextChoices):
    HANDS = "hands", _("Hands (the schedule's count)")
    MINUTES = "minutes", _("Minutes since the start")


class PayoutStructure(models.Model):
    """Prize percentages by number of entrants: rows "from N entrants: p1, p2, ..." (``PayoutRow``).
    A tournament naming none uses the default one (created by migration 0004: the seeds' 70/30 from
    4 entrants, the winner taking all below)."""

    name = models.CharField(_("name"), max_length=80, unique=True)
    is_default = models.BooleanField(_("default"), default=False,
                                     help_text=_("Used by every tournament that names no payout structure."))

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["is_default"], condition=models.Q(is_default=True),
                                               name="payout_structure_one_default")]
        verbose_name = _("payout structure")

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        # One default: making this one the default takes it from the other (instead of an integrity error).
        with transaction.atomic(using=kwargs.get("using")):
            if self.is_default:
                PayoutStructure.objects.filter(is_default=True).exclude(pk=self.pk).update(is_default=False)
            super().save(*args, **kwargs)

    def as_rows(self) -> list[tuple[int, list[int]]]:
        """``[(from_entrants, [hundredths of a percent per place]), ...]`` for ``logic``."""
        return [(row.from_entrants, logic.parse_percents(row.percents)) for row in self.rows.order_by("from_entrants")]


class PayoutRow(models.Model):
    structure = models.ForeignKey(PayoutStructure, on_delete=models.CASCADE, related_name="rows")
    from_entrants = models.PositiveIntegerField(_("from entrants"))
    percents = models.CharField(_("percentages per place"), max_length=400,
                                help_text=_("Best place first, e.g. \"50, 30, 20\"; whole numbers or two decimals, "
                                            "adding up to 100."))

    class Meta:
        ordering = ["structure", "from_entrants"]
        constraints = [models.UniqueConstraint(fields=["structure", "from_entrants"], name="payout_row_once")]
        verbose_name = _("payout row")

    def __str__(self) -> str:
        return f"{self.from_entrants}+: {self.percents}"

    def clean(self) -> None:
        try:
            values = logic.parse_percents(self.percents or "")
            if self.from_entrants is not None and len(values) > self.from_entrants:
                raise logic.LogicError("too_many_places", "more places than entrants", places=len(values),
                                       n=self.from_entrants)
        except logic.LogicError as exc:
            raise ValidationError({"percents": payout_error(exc)}) from None
        self.percents = ", ".join(logic.format_percent(v) for v in values)  # stored normalised: "70, 30"


# The admin's wording of ``logic``'s payout refusals (the pure module has no translations).
PAYOUT_ERRORS = {
    "no_percents": _("List the percentage of each paid place, best first, e.g. 70, 30."),
    "bad_percent": _("Each percentage is above 0, a whole number or with at most two decimals."),
    "bad_sum": _("The percentages add up to %(sum)s %%, not 100 %%."),
    "bad_order": _("Each place pays no more than the place above it."),
    "too_many_places": _("This row pays %(places)s places but may have only %(n)s entrants."),
    "duplicate_row": _("Two rows start at the same number of entrants."),
    "no_small_row": _("Add a row from 1 or 2 entrants: every tournament needs a split."),
}


def payout_error(exc: logic.LogicError) -> ValidationError:
    message = PAYOUT_ERRORS.get(exc.code)
    if message is None:
        return ValidationError(exc.message, code=exc.code)
    return ValidationError(message, code=exc.code, params=exc.params or None)


def default_payout_rows() -> list[tuple[int, list[int]]]:
    """The default structure's rows; without one, the seeds' split (``logic.DEFAULT_ROWS``)."""
    structure = PayoutStructure.objects.filter(is_default=True).first()
    rows = structure.as_rows() if structure is not None else []
    return rows or [(n, list(p)) for n, p in logic.DEFAULT_ROWS]


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
    starts_at = models.DateTimeField(_("starts at"), blank=True,
                                     help_text=_("A sit & go: leave empty, it starts when full."))
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
    fill_with_bots = models.BooleanField(_("bots fill up to the minimum"), default=True)
    # 31: the pause between one hand's settlement and the next deal, so players read the hand result
    # before the next hand's turn timer runs (hand for hand: every table waits the same).
    hand_pause_seconds = models.PositiveSmallIntegerField(
        _("pause between hands (s)"), default=3,
        help_text=_("31: players see the hand result this long before the next hand is dealt."))
    payout_structure = models.ForeignKey(
        PayoutStructure, null=True, blank=True, on_delete=models.PROTECT, related_name="tournaments",
        verbose_name=_("payout structure"), help_text=_("Empty: the default payout structure."))
    # The structure's rows as they stood at the first registration: what the players registered under
    # (an edit of the structure afterwards changes later tournaments only).
    payout_rows = models.JSONField(null=True, blank=True, editable=False)
    sit_and_go = models.BooleanField(
        _("sit & go"), default=False,
        help_text=_("Starts as soon as the maximum number of entrants has registered (no start time); "
                    "a new one with the same settings opens for registration at once."))
    fill_after_seconds = models.PositiveIntegerField(
        _("sit & go: bots fill after (s)"), default=60,
        help_text=_("With bots filling: this long after the first registration, bots take the empty seats "
                    "and the sit & go starts."))
    bots_fill_at = models.DateTimeField(null=True, blank=True, editable=False)  # sit & go: when bots fill
    late_registration_level = models.PositiveSmallIntegerField(
        _("late registration until level"), null=True, blank=True,
        help_text=_("31: players may still register while the ante level is at most this (the late entrant "
                    "gets the starting stack at the next hand). Empty: none."))
    max_entries = models.PositiveSmallIntegerField(
        _("entries per player"), default=1,
        help_text=_("Above 1: an eliminated player may re-enter, paying the entry again, while late "
                    "registration is open."))
    levels_by = models.CharField(_("ante levels change by"), max_length=8, choices=LevelsBy.choices,
                                 default=LevelsBy.HANDS)
    level_minutes = models.PositiveSmallIntegerField(
        _("minutes per level"), default=10,
        help_text=_("Levels by minutes: each level of the ante schedule lasts this long, counted from the start."))
    round = models.PositiveIntegerField(default=0)
    round_dealt = models.BooleanField(default=False)
    entrants = models.PositiveIntegerField(default=0)
    pool = models.PositiveIntegerField(default=0)
    next_created = models.BooleanField(default=False)
    cancel_reason = models.CharField(max_length=40, blank=True)
    # Why it was cancelled, in numbers the page words (e.g. {"registered": 1, "minimum": 4, "refunded": 1}).
    cancel_detail = models.JSONField(null=True, blank=True)
    next_deal_at = models.DateTimeField(null=True, blank=True)  # 31: the next hand is dealt from then on
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
            models.CheckConstraint(condition=models.Q(max_entries__gte=1), name="tournament_max_entries"),
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
        return game_spec(self.game).tournament == "freezeout"

    @property
    def team_size(self) -> int:
        return game_spec(self.game).team_size

    @property
    def table_size(self) -> int:
        """Bracket: entrants (teams) per table; freezeout: seats per table."""
        if self.is_freezeout:
            return self.seats_per_table
        return game_spec(self.game).bracket_size or self.room.seats

    @property
    def needs_odd_field(self) -> bool:
        """Bracket tables of a fixed odd size (Cherki's three) reach one winner only from an odd count."""
        size = game_spec(self.game).bracket_size
        return not self.is_freezeout and size is not None and size % 2 == 1

    @property
    def money_locked(self) -> bool:
        """Fee, currency and rake are frozen once anyone registered (an entry row exists)."""
        return self.pk is not None and self.entries.exists()

    @property
    def levels_by_minutes(self) -> bool:
        return self.levels_by == LevelsBy.MINUTES

    def payout_rows_now(self) -> list[tuple[int, list[int]]]:
        """The rows that split the prizes: frozen at the first registration, else the tournament's
        structure's, else the default structure's."""
        if self.payout_rows:
            return [(int(n), [int(p) for p in percents]) for n, percents in self.payout_rows]
        if self.payout_structure_id is not None:
            rows = self.payout_structure.as_rows()
            if rows:
                return rows
        return default_payout_rows()

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
        changed = [f for f in MONEY_FIELDS if stored[f] != getattr(self, self._meta.get_field(f).attname)]
        if changed and not self.entries.exists():
            return []
        return changed

    def _money_locked_error(self, fields: list[str]) -> ValidationError:
        def message(field: str):
            if field == "payout_structure":
                return _("Players have registered: the payout structure can no longer change.")
            return _("Players have registered: the entry fee, currency and rake can no longer change.")

        return ValidationError({f: ValidationError(message(f), code="money_locked") for f in fields})

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
            try:
                get_engine(self.game).normal_options(
                    {"stacks": [self.starting_stack or 1] * 2, "ante_schedule": self.ante_schedule}, 2)
            except ValueError as exc:
                errors["ante_schedule"] = str(exc)
        if self.starts_at is None:
            if self.sit_and_go:
                from django.utils import timezone

                self.starts_at = timezone.now()  # it starts when full; this only orders the lists
            else:
                errors["starts_at"] = _("Set the start time (only a sit & go starts when full instead).")
        errors.update(self._format_errors())
        if errors:
            raise ValidationError(errors)

    def _format_errors(self) -> dict[str, ValidationError]:
        """Sit & go, late registration, re-entry and levels by minutes: what each needs, and what a
        bracket (drawn once, at the start, with no ante) cannot have."""
        errors: dict[str, ValidationError] = {}

        def refuse(field: str, message, code: str) -> None:
            errors.setdefault(field, ValidationError(message, code=code))

        if self.sit_and_go:
            if not self.max_entrants:
                refuse("max_entrants", _("A sit & go starts when the maximum has registered: set the maximum."),
                       "sit_and_go_needs_maximum")
            if self.repeat_every:
                refuse("repeat_every", _("A sit & go opens the next one by itself when it starts: leave this empty."),
                       "sit_and_go_repeats_itself")
        if not self.is_freezeout:
            if self.late_registration_level is not None:
                refuse("late_registration_level", _("Late registration does not apply to brackets: the bracket "
                                                    "is drawn once, at the start."), "not_applicable")
            if (self.max_entries or 1) > 1:
                refuse("max_entries", _("Re-entry does not apply to brackets: a lost match is the end."),
                       "not_applicable")
            if self.levels_by == LevelsBy.MINUTES:
                refuse("levels_by", _("Brackets have no ante levels."), "not_applicable")
        elif (self.max_entries or 1) > 1 and self.late_registration_level is None:
            refuse("max_entries", _("Re-entry is open while late registration is: set the late registration "
                                    "level too."), "reentry_needs_late_registration")
        if self.late_registration_level is not None and self.late_registration_level < 1:
            refuse("late_registration_level", _("Levels are counted from 1."), "bad_level")
        if self.levels_by == LevelsBy.MINUTES and not self.level_minutes:
            refuse("level_minutes", _("A level lasts at least one minute."), "bad_level_minutes")
        return errors


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
    number = models.PositiveSmallIntegerField(default=1)  # the player's n-th entry (re-entry: 2, 3, ...)
    # Numbers the entry/refund ledger keys; it carries on across a player's entries (unique keys).
    registrations = models.PositiveIntegerField(default=1)
    paid = models.PositiveIntegerField(default=0)  # what the latest registration paid into the escrow
    team = models.PositiveIntegerField(null=True, blank=True)  # Baloot: the team's first entry id
    stack = models.IntegerField(default=0)
    table = models.ForeignKey("TournamentTable", null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="entries")
    out_round = models.PositiveIntegerField(null=True, blank=True)
    out_stack = models.IntegerField(null=True, blank=True)  # stack at the start of the hand it went out in
    out_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    out_table = models.PositiveIntegerField(null=True, blank=True)  # the rooms Table id of that hand
    place = models.PositiveIntegerField(null=True, blank=True)
    prize = models.PositiveIntegerField(default=0)
    registered_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["place", "-stack", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user", "number"], name="tournament_entry_number"),
            # one live entry per player: a re-entry is a new row once the last one is out
            models.UniqueConstraint(fields=["tournament", "user"], name="tournament_entry_live_once",
                                    condition=models.Q(status__in=["registered", "playing"])),
        ]

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
