"""Admin: the ledger is read-only (per account and per transaction); wallet settings are editable.

Rooms' money fields (stake, currency, rake) are edited on the Room admin and validated by Room.clean.
"""

from __future__ import annotations

from django.contrib import admin

from wallets.models import Account, Entry, LedgerTransaction, TableTerms, WalletSettings


class ReadOnlyAdmin(admin.ModelAdmin):
    """View only: ledger rows change only through wallets.services.post_transaction."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class AccountEntryInline(ReadOnlyInline):
    """An account's ledger: each leg with its transaction, newest first."""

    model = Entry
    fk_name = "account"
    fields = ("transaction", "tx_kind", "amount", "tx_created_at")
    readonly_fields = fields
    ordering = ("-pk",)

    @admin.display(description="kind")
    def tx_kind(self, entry: Entry) -> str:
        return entry.transaction.kind

    @admin.display(description="posted")
    def tx_created_at(self, entry: Entry):
        return entry.transaction.created_at

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("transaction")


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "owner_key", "user", "currency", "balance", "created_at")
    list_filter = ("kind", "currency")
    search_fields = ("owner_key", "user__username")
    inlines = [AccountEntryInline]


class TransactionEntryInline(ReadOnlyInline):
    model = Entry
    fk_name = "transaction"
    fields = ("account", "amount")
    readonly_fields = fields


@admin.register(LedgerTransaction)
class LedgerTransactionAdmin(ReadOnlyAdmin):
    list_display = ("id", "key", "kind", "memo", "created_at")
    list_filter = ("kind",)
    search_fields = ("key", "memo")
    inlines = [TransactionEntryInline]


@admin.register(TableTerms)
class TableTermsAdmin(ReadOnlyAdmin):
    list_display = ("table", "stake_kind", "stake", "currency", "rake_bps")


@admin.register(WalletSettings)
class WalletSettingsAdmin(admin.ModelAdmin):
    list_display = ("__str__", "welcome_chip", "welcome_mutiara", "welcome_kelereng", "bailout_to", "bot_float")

    def has_add_permission(self, request) -> bool:
        return not WalletSettings.objects.exists()

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
