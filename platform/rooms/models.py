from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from gameworkers.engines import STAKE_KINDS, game_spec, game_specs, get_engine

# One choice per registered engine, named by its spec (seats, stakes and the rest come from there too).
Game = models.TextChoices("Game", [(spec.name.upper(), (spec.name, spec.label)) for spec in game_specs()])


class Currency(models.TextChoices):
    MUTIARA = "MUT", _("Mutiara")
    KELERENG = "KEL", _("Kelereng")
    CHIP = "CHP", _("Chip")


class StakeKind(models.TextChoices):
    CASUAL = "casual", _("Casual (free)")
    POT = "pot", _("Entry into a pot")  # Lembar, Baloot
    PER_POINT = "per_point", _("Chip per point")  # Cherki
    ANTE = "ante", _("Chip ante per hand")  # 31


assert set(StakeKind.values) == set(STAKE_KINDS)

# The rake a new room takes when the operator leaves it empty (economy.md: "default 500 = 5% for pot
# tables, 0 where the seed names none"; the Lembar seed's "bawaan 5%"). Existing rooms keep theirs.
DEFAULT_RAKE_BPS = {StakeKind.POT: 500}


class Room(models.Model):
    """An admin-configured place to play: game, variant options, seats, timer and stake."""

    name = models.CharField(_("name"), max_length=60)
    slug = models.SlugField(unique=True)
    game = models.CharField(_("game"), max_length=16, choices=Game.choices)
    seats = models.PositiveSmallIntegerField(_("seats"))
    min_seats = models.PositiveSmallIntegerField(_("minimum seats to start"), default=2)
    options = models.JSONField(_("variant options"), default=dict, blank=True)
    turn_seconds = models.PositiveSmallIntegerField(_("turn timer (s)"), default=20)
    stake_kind = models.CharField(_("stake"), max_length=12, choices=StakeKind.choices, default=StakeKind.CASUAL)
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices, blank=True)
    stake = models.PositiveIntegerField(_("entry / value per point / ante"), default=0)
    rake_bps = models.PositiveIntegerField(
        _("rake (basis points)"), default=None, blank=True,
        help_text=_("Basis points of each pot (500 = 5 per cent). Left empty, a new room takes the default: 500 on "
                    "pot tables, 0 otherwise."))
    bots_only = models.BooleanField(_("you against bots"), default=False)
    fill_delay_seconds = models.PositiveIntegerField(_("bot fill delay (s)"), default=30)
    time_bank_seconds = models.PositiveSmallIntegerField(
        _("time bank per player (s)"), default=30,
        help_text=_("Extra seconds each player may spend over the turn timer, in all, per game, before an "
                    "automatic move is made for them (0: none)."))
    spectator_delay_seconds = models.PositiveSmallIntegerField(
        _("spectator delay (s)"), null=True, blank=True,
        help_text=_("How far behind the play spectators watch. Empty: no delay at free tables, "
                    "a short one at staked tables."))
    is_open = models.BooleanField(_("open"), default=True)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["game", "position", "id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(rake_bps__lte=10_000), name="room_rake_bps_max"),
            models.CheckConstraint(condition=models.Q(seats__gte=2, seats__lte=7), name="room_seats_range"),
            models.CheckConstraint(
                condition=models.Q(stake_kind="casual", stake=0) | ~models.Q(stake_kind="casual"),
                name="room_casual_is_free",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_game_display()} · {self.name}"

    def save(self, *args, **kwargs) -> None:
        if self.rake_bps is None:  # left empty: the default for the stake (DEFAULT_RAKE_BPS)
            self.rake_bps = DEFAULT_RAKE_BPS.get(self.stake_kind, 0)
        super().save(*args, **kwargs)

    def clean(self) -> None:
        errors: dict[str, str] = {}
        if self.game not in Game.values:
            raise ValidationError({"game": _("Choose one of the games.")})
        spec = game_spec(self.game)
        low, high = spec.min_seats, spec.max_seats
        if self.seats is not None and not low <= self.seats <= high:
            errors["seats"] = _("%(game)s is played with %(low)s to %(high)s players.") % {
                "game": self.get_game_display(), "low": low, "high": high}
        if self.min_seats is not None and self.seats is not None and not low <= self.min_seats <= self.seats:
            errors["min_seats"] = _("The minimum must lie between %(low)s and the seat count.") % {"low": low}
        if self.rake_bps is not None and not 0 <= self.rake_bps <= 10_000:
            errors["rake_bps"] = _("Rake is in basis points, from 0 to 10,000.")
        if self.stake_kind not in spec.stake_kinds:
            errors["stake_kind"] = _("This stake does not exist for this game.")
        if self.stake_kind == StakeKind.CASUAL:
            if self.stake:
                errors["stake"] = _("Casual tables are free.")
        else:
            if not self.stake:
                errors["stake"] = _("Set the entry, value per point or ante.")
            if self.stake_kind == StakeKind.POT and self.currency not in (Currency.MUTIARA, Currency.KELERENG):
                errors["currency"] = _("Pot tables are paid in Mutiara or Kelereng.")
            if self.stake_kind in (StakeKind.PER_POINT, StakeKind.ANTE) and self.currency != Currency.CHIP:
                errors["currency"] = _("This stake is paid in Chip.")
        if not isinstance(self.options, dict):
            errors["options"] = _("Options must be a JSON object.")
        elif "rules" in self.options:
            # The rules revision is the engine's: new tables always play the current one, and only
            # an old table's stored options name an earlier one (so its proof still verifies).
            errors["options"] = _("The rules revision is not a room option; new tables play the current rules.")
        elif self.seats is not None and low <= self.seats <= high:
            try:  # the engine's own check, so a bad variant fails here and not when a table opens
                get_engine(self.game).normal_options(self.options, self.seats)
            except (TypeError, ValueError) as exc:
                errors["options"] = _("These options are not valid for this game: %(reason)s") % {"reason": exc}
        if errors:
            raise ValidationError(errors)

    STAKED_SPECTATOR_DELAY_S = 20  # spectators' delay at a staked table whose room leaves it empty

    @property
    def spectator_delay_s(self) -> int:
        """How many seconds behind the play spectators watch (the one rule, docs/protocol.md): the room's
        setting, or when it is empty none at a free table and ``STAKED_SPECTATOR_DELAY_S`` at a staked one,
        so nobody watching can pass a player what happens in real time."""
        if self.spectator_delay_seconds is not None:
            return self.spectator_delay_seconds
        return 0 if self.stake_kind == StakeKind.CASUAL else self.STAKED_SPECTATOR_DELAY_S

    @property
    def reconnect_grace_s(self) -> int:
        """The grace a player whose connection drops gets at this room's tables (a deployment setting,
        ``RECONNECT_GRACE_S``; read here so the rules panel can state it beside the time bank)."""
        return settings.RECONNECT_GRACE_S

    @property
    def stake_label(self) -> str:
        if self.stake_kind == StakeKind.CASUAL:
            return str(_("Free"))
        currency = self.get_currency_display()
        if self.stake_kind == StakeKind.POT:
            return str(_("Entry %(amount)s %(currency)s")) % {"amount": self.stake, "currency": currency}
        if self.stake_kind == StakeKind.PER_POINT:
            return str(_("%(amount)s %(currency)s per point")) % {"amount": self.stake, "currency": currency}
        return str(_("Ante %(amount)s %(currency)s")) % {"amount": self.stake, "currency": currency}


class TableStatus(models.TextChoices):
    OPEN = "open", _("Open")
    RUNNING = "running", _("Running")
    FINISHED = "finished", _("Finished")
    STOPPED = "stopped", _("Stopped")


ENDED_STATUSES = (TableStatus.FINISHED, TableStatus.STOPPED)


class StopReason(models.TextChoices):
    HOST = "host", _("Stopped by the host")
    STAFF = "staff", _("Stopped by staff")
    ROOM_CLOSED = "room_closed", _("The room closed")
    DESERTED = "deserted", _("No human player left")
    NEVER_STARTED = "never_started", _("Never started")


class Table(models.Model):
    """One game at a room: secret seed, public commitment, engine state, version and deadline.

    ``version`` counts applied steps (+1 for every move and every system step, such as closing a
    Lembar catch window) and is the optimistic-concurrency token every move must carry. It is not
    the engine's move count (``state["move_count"]``, the moves numbered in the log and in
    ``TableMove``), which skips system steps. The seed never leaves the server before the table has
    ended, and is kept sealed (``rooms.seeds``): ``seed_sealed`` in the row, no ``seed`` in a running
    table's ``state`` (the move path hands the engine a state with the seed opened).
    """

    room = models.ForeignKey(Room, on_delete=models.PROTECT, related_name="tables")
    status = models.CharField(max_length=10, choices=TableStatus.choices, default=TableStatus.OPEN)
    seed_sealed = models.CharField(max_length=255)
    commitment = models.CharField(max_length=64)
    committed_at = models.DateTimeField()
    options = models.JSONField(default=dict, blank=True)  # the engine options this table runs with
    state = models.JSONField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0)
    # The deadline the players see; the timer finds due tables through TableDeadline (same value).
    deadline_at = models.DateTimeField(null=True, blank=True)
    deadline_seat = models.SmallIntegerField(null=True, blank=True)
    host = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="hosted_tables")
    is_private = models.BooleanField(default=False)
    invite_code = models.CharField(max_length=16, blank=True)  # compared after the lock, never looked up
    seat_count = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    stop_reason = models.CharField(max_length=16, choices=StopReason.choices, blank=True)
    result = models.JSONField(null=True, blank=True)
    last_event_seq = models.PositiveIntegerField(default=0)  # saves a MAX() query per event
    # The seats not stood up, as frames show them plus each occupant's user id: rewritten on every
    # seat change so that a move, a frame or a socket never queries seats (rooms.services.seating._refresh_seating).
    seating = models.JSONField(default=list, blank=True)

    class Meta:
        # No index on a column a move changes (the deadline's is on TableDeadline): a move's update of
        # this row is then a HOT update, with no new entry in any of its indexes.
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(status="running") | models.Q(state__isnull=False),
                name="table_running_has_state",
            ),
        ]

    def __str__(self) -> str:
        return f"Table {self.pk} ({self.room.name}, {self.status})"

    @property
    def game(self) -> str:
        return self.room.game

    @property
    def ended(self) -> bool:
        return self.status in ENDED_STATUSES

    @property
    def seed(self) -> bytes:
        """The seed, opened: for the engine on the move path and for the reveal once the table has ended."""
        from rooms.seeds import unseal

        return unseal(self.seed_sealed)

    @property
    def seed_hex(self) -> str:
        return self.seed.hex()


class TableDeadline(models.Model):
    """The timer's entry of a table: when its deadline falls (``Table.deadline_at``, written with it in the
    same statement), for which table version, and when the timer handed it out.

    Its own narrow row so that the due index moves here: the table's row changes its deadline on every
    move, and an indexed column changing would rule out a HOT update of that wide row (every index of
    the table rewritten on every move). No deadline (an ended table, a game with no timer): ``due_at``
    is null and the row is not in the due index."""

    table = models.OneToOneField(Table, on_delete=models.CASCADE, primary_key=True, related_name="due")
    due_at = models.DateTimeField(null=True, blank=True)
    version = models.PositiveIntegerField(help_text="the table version whose deadline this is")
    enqueued_at = models.DateTimeField(null=True, blank=True, help_text="when the timer handed it out")

    class Meta:
        indexes = [models.Index(fields=["due_at"], name="table_deadline_due_idx",
                                condition=models.Q(due_at__isnull=False))]

    def __str__(self) -> str:
        return f"{self.table_id} due {self.due_at} (v{self.version})"


class SeatStatus(models.TextChoices):
    SEATED = "seated", _("Seated")
    STOOD = "stood", _("Stood up before the start")
    LEFT = "left", _("Left the game")
    REMOVED = "removed", _("Removed after timeouts")


class Seat(models.Model):
    """A player (or bot) in one seat of a table. A row is never deleted: standing up closes it."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats")
    status = models.CharField(max_length=8, choices=SeatStatus.choices, default=SeatStatus.SEATED)
    joined_at = models.DateTimeField(auto_now_add=True)
    left_at = models.DateTimeField(null=True, blank=True)
    consecutive_timeouts = models.PositiveSmallIntegerField(default=0)
    bot_style = models.CharField(max_length=40, blank=True)

    class Meta:
        ordering = ["table", "number"]
        constraints = [
            # At most one occupant per seat and one seat per user among seats not stood up.
            models.UniqueConstraint(fields=["table", "number"], condition=~models.Q(status="stood"),
                                    name="seat_one_occupant"),
            models.UniqueConstraint(fields=["table", "user"], condition=~models.Q(status="stood"),
                                    name="seat_one_per_user"),
        ]

    def __str__(self) -> str:
        return f"{self.table_id}#{self.number} {self.user}"

    @property
    def is_bot(self) -> bool:
        return self.user.is_bot

    @property
    def in_game(self) -> bool:
        return self.status == SeatStatus.SEATED


class TableMove(models.Model):
    """The engine's move log, one row per numbered move (a system step such as closing a Lembar catch
    window is no move and has no row): append-only, private until the table ends.

    It lives here rather than in ``Table.state`` so that a move rewrites a few KB, not the whole
    history; the proof document and replays re-assemble the log from these rows.
    """

    # db_index off: the (table, seq) constraint's index serves lookups by table, one index less per row.
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="moves", db_index=False)
    seq = models.PositiveIntegerField()
    seat = models.SmallIntegerField(null=True, blank=True)
    move = models.JSONField()
    now_ms = models.BigIntegerField()

    class Meta:
        ordering = ["table", "seq"]
        constraints = [models.UniqueConstraint(fields=["table", "seq"], name="table_move_seq_unique")]

    def __str__(self) -> str:
        return f"{self.table_id}/{self.seq} seat {self.seat}"

    def as_entry(self) -> dict:
        """The engine's log entry."""
        return {"seq": self.seq, "seat": self.seat, "move": self.move, "now_ms": self.now_ms}


class TableEvent(models.Model):
    """Append-only, numbered per table. ``payload`` is public (safe for every viewer)."""

    # db_index off: the (table, seq) constraint's index serves lookups by table, one index less per row.
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="events", db_index=False)
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=32)
    payload = models.JSONField(default=dict)
    version = models.PositiveIntegerField(help_text="the table version after this event")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table", "seq"]
        constraints = [models.UniqueConstraint(fields=["table", "seq"], name="table_event_seq_unique")]

    def __str__(self) -> str:
        return f"{self.table_id}/{self.seq} {self.kind}"
