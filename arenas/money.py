"""Arena money, only through the ledger's public services (economy.md; docs/arenas.md).

Keys (one posting each, whatever retries happen):
    arena:<id>:entry:<user>:<n>     the entry into the arena escrow (n-th registration of that player)
    arena:<id>:refund:<user>:<n>    withdrawn before the start: what that registration paid, back
    arena:<id>:cancel               cancelled (or nobody finished a game): every entry back
    arena:<id>:prizes               finished: rake to revenue, prizes by final standing
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from arenas.errors import ArenaError
from wallets import services
from wallets.errors import WalletError
from wallets.models import TxKind
from wallets.services import Leg


def escrow(arena):
    """The arena's escrow account (kind ``arena``, owner ``arena:<id>``), created on first use."""
    return services.arena_escrow(arena_id=arena.pk, currency=arena.currency)


@contextmanager
def _ledger() -> Iterator[None]:
    """A refused posting becomes an ArenaError with the wallet's code and details."""
    try:
        yield
    except WalletError as exc:
        raise ArenaError(exc.code, exc.message, details=exc.details) from exc


def pay_entry(*, arena, player) -> None:
    """The entry fee from the player's wallet into the escrow; ``player.paid`` records the amount."""
    fee = arena.entry_fee
    player.paid = fee
    player.save(update_fields=["paid"])
    if not fee:
        return
    user = player.user
    with _ledger():
        services.release_welcome_if_due(user=user)
        services.post_transaction(
            key=f"arena:{arena.pk}:entry:{user.pk}:{player.registrations}",
            legs=[Leg(services.wallet(user=user, currency=arena.currency), -fee), Leg(escrow(arena), fee)],
            memo=f"Entry, arena {arena.pk}", kind=TxKind.ENTRY)


def refund_entry(*, arena, player) -> None:
    """What this registration paid (``player.paid``, not today's fee) back to the player."""
    amount = player.paid
    if not amount:
        return
    with _ledger():
        services.post_transaction(
            key=f"arena:{arena.pk}:refund:{player.user_id}:{player.registrations}",
            legs=[Leg(escrow(arena), -amount), Leg(services.wallet(user=player.user, currency=arena.currency), amount)],
            memo=f"Withdrew from arena {arena.pk}", kind=TxKind.REFUND)


def refund_all(*, arena, players: list) -> int:
    """Every entry back (a cancelled arena, or one where nobody finished a game); returns the total."""
    account = escrow(arena)
    account.refresh_from_db(fields=["balance"])
    owed = sum(p.paid for p in players)
    if owed != account.balance:
        raise ArenaError("pool_mismatch", f"Entries {owed} do not match the escrow {account.balance}.")
    if not owed:
        return 0
    with _ledger():
        legs = [Leg(account, -owed)]
        legs += [Leg(services.wallet(user=p.user, currency=arena.currency), p.paid)
                 for p in sorted(players, key=lambda p: p.pk) if p.paid]
        services.post_transaction(key=f"arena:{arena.pk}:cancel", legs=legs, kind=TxKind.REFUND,
                                  memo=f"Arena {arena.pk}: entries back")
    return owed


def pay_prizes(*, arena, rake: int, prizes: dict) -> None:
    """``prizes``: ArenaPlayer -> amount; with ``rake`` they must empty the escrow exactly."""
    payouts = [(player.user, amount) for player, amount in sorted(prizes.items(), key=lambda item: item[0].pk)]
    with _ledger():
        services.settle_escrow(escrow=escrow(arena), rake=rake, payouts=payouts, key=f"arena:{arena.pk}:prizes",
                               memo=f"Arena {arena.pk}: prizes and rake")
