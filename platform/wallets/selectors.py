"""Reads of balances and history (no writes here)."""

from __future__ import annotations

from django.db.models import QuerySet

from wallets.models import Account, AccountKind, Currency, Entry, TxKind

CURRENCY_ORDER = [Currency.CHIP, Currency.MUTIARA, Currency.KELERENG]


def balances(*, user) -> list[dict]:
    """The user's three balances in display order: [{currency, label, amount}]."""
    have = dict(Account.objects.filter(kind=AccountKind.PLAYER, user=user).values_list("currency", "balance"))
    return [{"currency": c.value, "label": str(c.label), "amount": have.get(c.value, 0)} for c in CURRENCY_ORDER]


def bailout_count(*, user) -> int:
    return Entry.objects.filter(account__kind=AccountKind.PLAYER, account__user=user,
                                transaction__kind=TxKind.BAILOUT).count()


def history(*, user) -> QuerySet[Entry]:
    """The user's ledger legs, newest first."""
    return (Entry.objects.filter(account__kind=AccountKind.PLAYER, account__user=user)
            .select_related("transaction", "account").order_by("-transaction__created_at", "-pk"))


def profile_section(user) -> dict:
    """Profile context (accounts.selectors.PROFILE_SECTIONS): balances and the bailout count."""
    return {"balances": balances(user=user), "bailout_count": bailout_count(user=user)}
