from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from gameworkers.engines import ENGINE_NAMES


class Game(models.TextChoices):
    LEMBAR = "lembar", "Lembar"
    BALOOT = "baloot", "Baloot"
    CHERKI = "cherki", "Cherki"
    OTUZBIR = "otuzbir", "31 (Otuz bir)"


assert set(Game.values) == set(ENGINE_NAMES)

# Seats each game allows (rules of record).
SEAT_RANGE = {"lembar": (2, 6), "baloot": (4, 4), "cherki": (3, 3), "otuzbir": (2, 7)}


class Currency(models.TextChoices):
    MUTIARA = "MUT", _("Mutiara")
    KELERENG = "KEL", _("Kelereng")
    CHIP = "CHP", _("Chip")


class StakeKind(models.TextChoices):
    CASUAL = "casual", _("Casual (free)")
    POT = "pot", _("Entry into a pot")  # Lembar, Baloot
    PER_POINT = "per_point", _("Chip per point")  # Cherki
    ANTE = "ante", _("Chip ante per hand")  # 31

ALLOWED_STAKES = {
    "lembar": {StakeKind.CASUAL, StakeKind.POT},
    "baloot": {StakeKind.CASUAL, StakeKind.POT},
    "cherki": {StakeKind.CASUAL, StakeKind.PER_POINT},
    "otuzbir": {StakeKind.CASUAL, StakeKind.ANTE},
}


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
    rake_bps = models.PositiveIntegerField(_("rake (basis points)"), default=0)
    bots_only = models.BooleanField(_("you against bots"), default=False)
    fill_delay_seconds = models.PositiveIntegerField(_("bot fill delay (s)"), default=30)
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

    def clean(self) -> None:
        errors: dict[str, str] = {}
        low, high = SEAT_RANGE.get(self.game, (2, 7))
        if self.seats is not None and not low <= self.seats <= high:
            errors["seats"] = _("%(game)s is played with %(low)s to %(high)s players.") % {
                "game": self.get_game_display(), "low": low, "high": high}
        if self.min_seats is not None and self.seats is not None and not low <= self.min_seats <= self.seats:
            errors["min_seats"] = _("The minimum must lie between %(low)s and the seat count.") % {"low": low}
        if self.rake_bps is not None and not 0 <= self.rake_bps <= 10_000:
            errors["rake_bps"] = _("Rake is in basis points, from 0 to 10,000.")
        if self.stake_kind not in ALLOWED_STAKES.get(self.game, set()):
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
        if errors:
            raise ValidationError(errors)

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
