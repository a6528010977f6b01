"""Tournament invariants for ``manage.py ledger_check`` (registered in ``TournamentsConfig.ready``).

1. A tournament's escrow holds exactly what its live entries paid (``Entry.paid`` of entries in
   ``HOLDING``) while it is not over, and nothing once it finished or was cancelled.
2. A finished tournament whose entrants paid something has its ``tournament:<id>:prizes`` posting.
3. A tournament whose prize payout failed (``payout_error``) and is not finished is stuck.
4. No tournament escrow holds money in another currency than its tournament's, or for no tournament.

1-3 are read in one statement (one snapshot: a registration committing meanwhile cannot show up
as a false breach).
"""

from __future__ import annotations

from django.db.models import BigIntegerField, Exists, OuterRef, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from tournaments.models import HOLDING, Entry, Status, Tournament
from wallets.checks import owner_key, stray_escrows
from wallets.models import Account, AccountKind, LedgerTransaction

ENDED = (Status.FINISHED, Status.CANCELLED)


def _key(*suffix: str):
    return owner_key("tournament", *suffix)


def escrow_problems() -> list[str]:
    problems: list[str] = []
    escrow = Account.objects.filter(kind=AccountKind.TOURNAMENT_ESCROW, owner_key=_key(),
                                    currency=OuterRef("currency")).values("balance")[:1]
    held = (Entry.objects.filter(tournament=OuterRef("pk"), status__in=HOLDING).order_by()
            .values("tournament").annotate(total=Sum("paid")).values("total")[:1])
    rows = Tournament.objects.order_by("pk").annotate(
        escrow=Coalesce(Subquery(escrow), Value(0), output_field=BigIntegerField()),
        held=Coalesce(Subquery(held), Value(0), output_field=BigIntegerField()),
        prizes_paid=Exists(LedgerTransaction.objects.filter(key=_key(":prizes"))),
    ).values_list("pk", "status", "currency", "escrow", "held", "prizes_paid", "payout_error", "payout_failed_at")
    currencies: dict[int, str] = {}
    for pk, status, currency, balance, held_total, prizes_paid, payout_error, failed_at in rows:
        currencies[pk] = currency
        owed = 0 if status in ENDED else held_total
        if balance != owed:
            what = f"its live entries paid {owed}" if status not in ENDED else "it should hold nothing"
            problems.append(f"tournament {pk} ({status}): its escrow holds {balance} {currency}, {what}")
        if status == Status.FINISHED and held_total and not prizes_paid:
            problems.append(f"tournament {pk} finished without paying its prizes: no posting "
                            f"tournament:{pk}:prizes for the {held_total} {currency} its entrants paid")
        if payout_error and status != Status.FINISHED:
            when = f" at {failed_at:%Y-%m-%d %H:%M:%S}" if failed_at else ""
            problems.append(f"tournament {pk} ({status}) is stuck: its prize payout failed{when} ({payout_error})")
    problems += stray_escrows(kind=AccountKind.TOURNAMENT_ESCROW, what="tournament", currencies=currencies)
    return problems
