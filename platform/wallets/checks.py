"""Ledger invariants (economy.md), checked by ``manage.py ledger_check`` and by the tests.

The ledger's own invariants live here; an app that keeps money in escrow accounts of its own (e.g.
tables, tournaments) adds the invariants of its escrows with ``register_check`` from its ``AppConfig.ready``,
so the ledger never imports the apps built on it.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db.models import Sum

from wallets.models import Account, AccountKind, Entry

_app_checks: list[Callable[[], list[str]]] = []


def register_check(check: Callable[[], list[str]]) -> None:
    """Add an app's escrow invariants to ``ledger_problems`` (once; returns readable breach lines)."""
    if check not in _app_checks:
        _app_checks.append(check)


def owner_key(prefix: str, *suffix: str):
    """``<prefix>:<pk of the outer row><suffix...>`` in SQL: an escrow's owner key or a posting's key."""
    from django.db.models import CharField, OuterRef, Value
    from django.db.models.functions import Cast, Concat

    return Concat(Value(f"{prefix}:"), Cast(OuterRef("pk"), output_field=CharField()), *map(Value, suffix),
                  output_field=CharField())


def stray_escrows(*, kind: str, what: str, currencies: dict[int, str]) -> list[str]:
    """Escrows of ``kind`` holding money for no ``what`` (owner ``<what>:<id>``, ``currencies`` = id ->
    currency of each that exists), or in another currency than theirs."""
    problems = []
    for account in Account.objects.filter(kind=kind).exclude(balance=0).order_by("pk"):
        raw = account.owner_key.partition(":")[2]
        owner = int(raw) if raw.isdigit() else None
        if owner not in currencies:
            problems.append(f"escrow {account.pk} ({account}) holds {account.balance} for no {what}")
        elif currencies[owner] != account.currency:
            problems.append(f"escrow {account.pk} ({account}) holds {account.balance} {account.currency}, but "
                            f"{what} {owner} plays in {currencies[owner]}")
    return problems


def ledger_problems() -> list[str]:
    """Every breach of an invariant, as a readable line; an empty list means the ledger is sound."""
    problems: list[str] = []
    # 1. Each transaction's legs sum to zero per currency.
    for row in (Entry.objects.values("transaction_id", "transaction__key", "account__currency")
                .annotate(total=Sum("amount")).exclude(total=0)):
        problems.append(f"transaction {row['transaction_id']} ({row['transaction__key']}) is off by "
                        f"{row['total']} {row['account__currency']}")
    # 2. Each currency's balances sum to zero (issuance is the negative side).
    for row in Account.objects.values("currency").annotate(total=Sum("balance")).exclude(total=0):
        problems.append(f"balances in {row['currency']} sum to {row['total']}, not 0")
    # 3. Each cached balance equals the sum of its entries.
    sums = dict(Entry.objects.values("account_id").annotate(total=Sum("amount")).values_list("account_id", "total"))
    for account in Account.objects.all().only("pk", "kind", "owner_key", "currency", "balance"):
        expected = sums.get(account.pk, 0)
        if account.balance != expected:
            problems.append(f"account {account.pk} ({account}) caches {account.balance}, its entries sum to {expected}")
    # 4. No negative balance outside issuance (Chip wallets dip only inside a 31 hand's posting).
    for account in Account.objects.filter(balance__lt=0).exclude(kind=AccountKind.ISSUANCE):
        problems.append(f"account {account.pk} ({account}) is negative: {account.balance}")
    # 5. The escrows of the apps built on the ledger (rooms' tables, tournaments: docs/tournaments.md;
    #    arenas: docs/arenas.md).
    for check in _app_checks:
        problems.extend(check())
    return problems
