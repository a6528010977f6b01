"""Tournament money, only through the ledger's public services (economy.md, docs/tournaments.md).

Keys (one posting each, whatever retries happen):
    tournament:<id>:entry:<user>:<n>     entry into the tournament escrow (n-th registration)
    tournament:<id>:refund:<user>:<n>    unregistering before the start: what that entry paid, back
    tournament:<id>:botfund:<user>:<n>   a bot's wallet topped up from issuance before its entry
    tournament:<id>:cancel               cancelled: entries back (all, or those still in), rest to revenue
    tournament:<id>:prizes               finished: rake to revenue, prizes to the places
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from tournaments.errors import TournamentError
from wallets import services
from wallets.errors import WalletError
from wallets.models import TxKind
from wallets.services import Leg

log = logging.getLogger(__name__)


def _escrow(tournament):
    return services.tournament_escrow(tournament_id=tournament.pk, currency=tournament.currency)


@contextmanager
def _ledger() -> Iterator[None]:
    """A refused posting becomes a TournamentError with the wallet's code and details."""
    try:
        yield
    except WalletError as exc:
        raise TournamentError(exc.code, exc.message, details=exc.details) from exc


def pay_entry(*, tournament, entry) -> None:
    """The entry fee from the player's wallet into the escrow; ``entry.paid`` records the amount."""
    fee = tournament.entry_fee
    entry.paid = fee
    entry.save(update_fields=["paid"])
    if not fee:
        return
    user = entry.user
    n = entry.registrations
    with _ledger():
        services.release_welcome_if_due(user=user)
        if user.is_bot:
            services.fund_bot(user=user, currency=tournament.currency, needed=fee,
                              key=f"tournament:{tournament.pk}:botfund:{user.pk}:{n}")
        services.post_transaction(
            key=f"tournament:{tournament.pk}:entry:{user.pk}:{n}",
            legs=[Leg(services.wallet(user=user, currency=tournament.currency), -fee), Leg(_escrow(tournament), fee)],
            memo=f"Entry, tournament {tournament.pk}", kind=TxKind.ENTRY)


def refund_entry(*, tournament, entry) -> None:
    """What this entry paid (``entry.paid``, not today's fee) from the escrow back to the player."""
    amount = entry.paid
    if not amount:
        return
    user = entry.user
    try:
        with _ledger():
            services.post_transaction(
                key=f"tournament:{tournament.pk}:refund:{user.pk}:{entry.registrations}",
                legs=[Leg(_escrow(tournament), -amount),
                      Leg(services.wallet(user=user, currency=tournament.currency), amount)],
                memo=f"Unregistered from tournament {tournament.pk}", kind=TxKind.REFUND)
    except TournamentError as exc:
        if exc.code != "insufficient_funds":
            raise
        # Only the escrow is debited here: it holds less than the entries it owes (ledger_check says why).
        log.error("tournament %s: escrow cannot refund entry %s (%s)", tournament.pk, entry.pk, exc.message)
        raise TournamentError("escrow_short", "The prize pool cannot pay this entry back now; staff must "
                              "check the tournament.") from exc


def cancel(*, tournament, refund_entries: list) -> None:
    """What each of ``refund_entries`` paid goes back; whatever else the escrow holds goes to the platform."""
    escrow = _escrow(tournament)
    escrow.refresh_from_db(fields=["balance"])
    legs: list[Leg] = []
    refunded = sum(entry.paid for entry in refund_entries)
    if refunded > escrow.balance:
        raise TournamentError("escrow_short", "The tournament escrow holds less than its entries.")
    with _ledger():
        for entry in refund_entries:
            if entry.paid:
                legs.append(Leg(services.wallet(user=entry.user, currency=tournament.currency), entry.paid))
        rest = escrow.balance - refunded
        if rest:
            legs.append(Leg(services.revenue(currency=tournament.currency), rest))
        if escrow.balance:
            legs.append(Leg(escrow, -escrow.balance))
            services.post_transaction(key=f"tournament:{tournament.pk}:cancel", legs=legs, kind=TxKind.REFUND,
                                      memo=f"Tournament {tournament.pk} cancelled: entries back")


def pay_prizes(*, tournament, rake: int, prizes: dict) -> None:
    """``prizes``: entry -> amount; with ``rake`` they must empty the escrow exactly."""
    payouts = [(entry.user, amount) for entry, amount in sorted(prizes.items(), key=lambda item: item[0].pk)]
    with _ledger():
        services.settle_escrow(escrow=_escrow(tournament), rake=rake, payouts=payouts,
                               key=f"tournament:{tournament.pk}:prizes", memo=f"Tournament {tournament.pk}: prizes and rake")
