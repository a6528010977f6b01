"""The tables' ledger invariant, added to ``manage.py ledger_check`` (``wallets.checks.register_check``)
from ``RoomsConfig.ready``: the ledger itself knows nothing of tables."""

from __future__ import annotations

from collections import defaultdict

from rooms.models import ENDED_STATUSES, Table
from wallets.models import Account, AccountKind


def ended_tables_with_escrow() -> list[str]:
    """No open escrow on an ended table: its pot was settled, stopped or refunded when it ended."""
    by_table: dict[int, list[Account]] = defaultdict(list)
    for account in Account.objects.filter(kind=AccountKind.TABLE_ESCROW).exclude(balance=0):
        by_table[int(account.owner_key.split(":", 1)[1])].append(account)
    ended = Table.objects.filter(pk__in=by_table, status__in=ENDED_STATUSES).values_list("pk", flat=True)
    return [f"table {table_id} has ended but its escrow {account.pk} holds {account.balance} {account.currency}"
            for table_id in sorted(ended) for account in by_table[table_id]]
