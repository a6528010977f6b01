"""Arena invariants for ``manage.py ledger_check`` (registered in ``ArenasConfig.ready``).

1. An arena's escrow holds exactly what its players' current registrations paid (``paid`` of players
   in ``HOLDING``) while it is scheduled or running, and nothing once it finished or was cancelled.
2. A finished arena whose players paid has its ``arena:<id>:prizes`` posting; a cancelled one its
   ``arena:<id>:cancel`` posting.
3. An arena whose prize payout failed (``payout_error``) and is not over is stuck.
4. No arena escrow holds money in another currency than its arena's, or for no arena.

1-3 are read in one statement (one snapshot: a join committing meanwhile is no false breach).
"""

from __future__ import annotations

from django.db.models import BigIntegerField, Exists, OuterRef, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from arenas.models import ENDED, HOLDING, Arena, ArenaPlayer, Status
from wallets.checks import owner_key, stray_escrows
from wallets.models import Account, AccountKind, LedgerTransaction


def _key(*suffix: str):
    return owner_key("arena", *suffix)


def escrow_problems() -> list[str]:
    problems: list[str] = []
    escrow = Account.objects.filter(kind=AccountKind.ARENA_ESCROW, owner_key=_key(),
                                    currency=OuterRef("currency")).values("balance")[:1]
    held = (ArenaPlayer.objects.filter(arena=OuterRef("pk"), status__in=HOLDING).order_by()
            .values("arena").annotate(total=Sum("paid")).values("total")[:1])
    rows = Arena.objects.order_by("pk").annotate(
        escrow=Coalesce(Subquery(escrow), Value(0), output_field=BigIntegerField()),
        held=Coalesce(Subquery(held), Value(0), output_field=BigIntegerField()),
        prizes_paid=Exists(LedgerTransaction.objects.filter(key=_key(":prizes"))),
        refunded=Exists(LedgerTransaction.objects.filter(key=_key(":cancel"))),
    ).values_list("pk", "status", "currency", "escrow", "held", "prizes_paid", "refunded", "payout_error")
    currencies: dict[int, str] = {}
    for pk, status, currency, balance, held_total, prizes_paid, refunded, payout_error in rows:
        currencies[pk] = currency
        owed = 0 if status in ENDED else held_total
        if balance != owed:
            what = f"its players paid {owed}" if status not in ENDED else "it should hold nothing"
            problems.append(f"arena {pk} ({status}): its escrow holds {balance} {currency}, {what}")
        if status == Status.FINISHED and held_total and not prizes_paid:
            problems.append(f"arena {pk} finished without paying its prizes: no posting arena:{pk}:prizes "
                            f"for the {held_total} {currency} its players paid")
        if status == Status.CANCELLED and held_total and not refunded:
            problems.append(f"arena {pk} was cancelled without its refund posting arena:{pk}:cancel")
        if payout_error and status not in ENDED:
            problems.append(f"arena {pk} ({status}) is stuck: its prize payout failed ({payout_error})")
    problems += stray_escrows(kind=AccountKind.ARENA_ESCROW, what="arena", currencies=currencies)
    return problems
