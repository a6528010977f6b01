"""The double-entry ledger: accounts with cached balances, immutable transactions and their legs.

Rules of record: ../shared/spec/economy.md; the readings taken here are in docs/economy.md.
Only ``wallets.services.post_transaction`` writes LedgerTransaction/Entry rows and balances.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Currency(models.TextChoices):
    # Same codes as rooms.models.Currency (a room's currency names a wallet currency).
    MUTIARA = "MUT", _("Mutiara")
    KELERENG = "KEL", _("Kelereng")
    CHIP = "CHP", _("Chip")


class AccountKind(models.TextChoices):
    PLAYER = "player", _("Player wallet")
    TABLE_ESCROW = "table", _("Table pot escrow")
    TOURNAMENT_ESCROW = "tournament", _("Tournament prize pool")
    ARENA_ESCROW = "arena", _("Arena prize pool")  # owner_key "arena:<id>" (arenas/money.py)
    REVENUE = "revenue", _("Platform revenue")
    ISSUANCE = "issuance", _("Platform issuance")


class TxKind(models.TextChoices):
    WELCOME = "welcome", _("Welcome grant")
    BOT_FUNDING = "bot_funding", _("Bot funding")
    ENTRY = "entry", _("Entry")
    REFUND = "refund", _("Refund")
    SETTLE = "settle", _("Settlement")
    STOP = "stop", _("Stopped table")
    HAND = "hand", _("31 hand")
    BAILOUT = "bailout", _("Bailout")
    ADJUSTMENT = "adjustment", _("Adjustment")


class Account(models.Model):
    """One owner's balance in one currency.

    ``owner_key`` names the owner generally ("user:7", "table:42", "tournament:5", "platform"),
    so later owners (tournaments) need no schema change; ``user`` is set for player wallets.
    ``balance`` caches the sum of the account's entries, kept in the posting transaction.
    """

    kind = models.CharField(max_length=12, choices=AccountKind.choices)
    currency = models.CharField(max_length=3, choices=Currency.choices)
    owner_key = models.CharField(max_length=64)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                             related_name="wallet_accounts")
    balance = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["kind", "owner_key", "currency"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "owner_key", "currency"], name="wallet_account_unique"),
            # Issuance is the negative side by design; a Chip player wallet may dip below zero only
            # inside a 31 hand's posting (the bailout in the same transaction brings it back).
            models.CheckConstraint(
                condition=models.Q(balance__gte=0) | models.Q(kind="issuance")
                | models.Q(kind="player", currency="CHP"),
                name="wallet_account_balance_nonnegative",
            ),
            models.CheckConstraint(condition=models.Q(currency__in=["MUT", "KEL", "CHP"]),
                                   name="wallet_account_currency_known"),
            models.CheckConstraint(
                condition=(models.Q(kind="player") & models.Q(user__isnull=False))
                | (~models.Q(kind="player") & models.Q(user__isnull=True)),
                name="wallet_account_user_iff_player",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.owner_key} {self.currency}"


class ImmutableQuerySet(models.QuerySet):
    """Ledger rows are written once: bulk update/delete are refused."""

    def update(self, **kwargs):  # type: ignore[override]
        raise TypeError("ledger rows are immutable")

    def delete(self):  # type: ignore[override]
        raise TypeError("ledger rows are immutable")


class LedgerTransaction(models.Model):
    """One posting. Its legs sum to zero per currency; ``key`` makes a retry post nothing new."""

    key = models.CharField(max_length=200, unique=True)
    kind = models.CharField(max_length=12, choices=TxKind.choices)
    memo = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    objects = ImmutableQuerySet.as_manager()

    class Meta:
        ordering = ["-pk"]
        verbose_name = _("ledger transaction")

    def __str__(self) -> str:
        return self.key

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None and not kwargs.get("force_insert"):
            raise TypeError("ledger transactions are immutable")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise TypeError("ledger transactions are immutable")


class RevenueReport(LedgerTransaction):
    """No data of its own: the admin's revenue report (``wallets.reports``, shown by ``wallets.admin``)
    hangs on this proxy so that it has its own permission ("Can view revenue report", given to the
    staff who may see the platform's takings) and its own link on the admin index."""

    class Meta:
        proxy = True
        default_permissions = ("view",)
        verbose_name = _("revenue report")
        verbose_name_plural = _("revenue report")


class Entry(models.Model):
    """One leg: ``amount`` (never zero) added to ``account`` (negative = debit)."""

    transaction = models.ForeignKey(LedgerTransaction, on_delete=models.PROTECT, related_name="entries")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="entries")
    amount = models.BigIntegerField()

    objects = ImmutableQuerySet.as_manager()

    class Meta:
        ordering = ["pk"]
        verbose_name_plural = _("entries")
        constraints = [models.CheckConstraint(condition=~models.Q(amount=0), name="wallet_entry_nonzero")]

    def __str__(self) -> str:
        return f"{self.account} {self.amount:+d}"

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None and not kwargs.get("force_insert"):
            raise TypeError("ledger entries are immutable")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise TypeError("ledger entries are immutable")


class WalletSettings(models.Model):
    """Admin-editable economy settings (a single row, pk=1)."""

    welcome_chip = models.PositiveIntegerField(_("welcome grant: Chip"), default=1000)
    welcome_mutiara = models.PositiveIntegerField(_("welcome grant: Mutiara"), default=100)
    welcome_kelereng = models.PositiveIntegerField(_("welcome grant: Kelereng"), default=100)
    bailout_to = models.PositiveIntegerField(_("31 bailout brings a balance back to"), default=500)
    bot_float = models.PositiveIntegerField(
        _("bot top-up float"), default=0,
        help_text=_("Extra amount added when a bot wallet is topped up to pay an entry or meet a minimum."))

    class Meta:
        verbose_name = _("wallet settings")
        verbose_name_plural = _("wallet settings")
        constraints = [models.CheckConstraint(condition=models.Q(pk=1), name="wallet_settings_singleton")]

    def __str__(self) -> str:
        return str(_("Wallet settings"))

    def save(self, *args, **kwargs) -> None:
        self.pk = 1
        super().save(*args, **kwargs)

    @classmethod
    def load(cls) -> WalletSettings:
        obj, _created = cls.objects.get_or_create(pk=1)
        return obj


class TableTerms(models.Model):
    """The money terms a table plays under, frozen at its first money event.

    An admin may edit a room while its tables run; a table keeps the stake, currency and rake it
    opened with, so refunds and payouts always match what was paid in.
    """

    table = models.OneToOneField("rooms.Table", on_delete=models.PROTECT, related_name="money_terms")
    stake_kind = models.CharField(max_length=12)
    currency = models.CharField(max_length=3, blank=True)
    stake = models.PositiveIntegerField()
    rake_bps = models.PositiveIntegerField()

    class Meta:
        verbose_name_plural = _("table terms")
        constraints = [models.CheckConstraint(condition=models.Q(rake_bps__lte=10_000), name="table_terms_rake_max")]

    def __str__(self) -> str:
        return f"table {self.table_id}: {self.stake_kind} {self.stake} {self.currency} rake {self.rake_bps}"
