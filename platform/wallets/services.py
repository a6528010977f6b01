"""Wallet services: the only code that moves value.

``post_transaction`` is the single writer of ledger rows and balances; every other service
(grants, bot funding, bailouts, the table money in ``table_money``) builds legs and calls it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import F

from wallets.errors import WalletError
from wallets.models import Account, AccountKind, Currency, Entry, LedgerTransaction, TxKind, WalletSettings

PLATFORM = "platform"
MAX_AMOUNT = 10**15  # far above any sane balance; keeps sums inside a signed 64-bit column
BPS = 10_000


@dataclass(frozen=True)
class Leg:
    """``amount`` added to ``account`` (negative = out of it)."""

    account: Account
    amount: int


def _whole(value: object, what: str) -> int:
    # bool is an int subclass: True must never be read as 1 coin.
    if isinstance(value, bool) or not isinstance(value, int):
        raise WalletError("bad_amount", f"{what} must be a whole number, not {value!r}.")
    if abs(value) > MAX_AMOUNT:
        raise WalletError("bad_amount", f"{what} is out of range.")
    return value


def check_currency(currency: object) -> str:
    if not isinstance(currency, str) or currency not in Currency.values:
        raise WalletError("bad_currency", f"Unknown currency {currency!r}.")
    return currency


def check_amount(amount: object, *, what: str = "The amount") -> int:
    """A non-negative whole number of coins."""
    value = _whole(amount, what)
    if value < 0:
        raise WalletError("bad_amount", f"{what} must not be negative.")
    return value


def check_rake_bps(rake_bps: object) -> int:
    if isinstance(rake_bps, bool) or not isinstance(rake_bps, int) or not 0 <= rake_bps <= BPS:
        raise WalletError("bad_rake", "The rake is in basis points, a whole number from 0 to 10,000.")
    return rake_bps


def rake_of(*, pot: int, rake_bps: int) -> int:
    """``floor(pot × rake_bps / 10000)``."""
    return check_amount(pot, what="The pot") * check_rake_bps(rake_bps) // BPS


def split_evenly(*, amount: int, seats: Iterable[int]) -> dict[int, int]:
    """Even shares; the remainder goes to the smallest seat number."""
    ordered = sorted(set(seats))
    if not ordered:
        raise WalletError("no_recipients", "Nobody to pay.")
    share, remainder = divmod(check_amount(amount), len(ordered))
    shares = dict.fromkeys(ordered, share)
    shares[ordered[0]] += remainder
    return shares


# ----- accounts ------------------------------------------------------------------------------

def _account(*, kind: str, owner_key: str, currency: str, user=None) -> Account:
    check_currency(currency)
    account = Account.objects.filter(kind=kind, owner_key=owner_key, currency=currency).first()
    if account is not None:
        return account
    try:
        with transaction.atomic():
            return Account.objects.create(kind=kind, owner_key=owner_key, currency=currency, user=user)
    except IntegrityError:  # created concurrently
        return Account.objects.get(kind=kind, owner_key=owner_key, currency=currency)


def wallet(*, user, currency: str) -> Account:
    return _account(kind=AccountKind.PLAYER, owner_key=f"user:{user.pk}", currency=currency, user=user)


def table_escrow(*, table_id: int, currency: str) -> Account:
    return _account(kind=AccountKind.TABLE_ESCROW, owner_key=f"table:{table_id}", currency=currency)


def tournament_escrow(*, tournament_id: int, currency: str) -> Account:
    return _account(kind=AccountKind.TOURNAMENT_ESCROW, owner_key=f"tournament:{tournament_id}", currency=currency)


def arena_escrow(*, arena_id: int, currency: str) -> Account:
    return _account(kind=AccountKind.ARENA_ESCROW, owner_key=f"arena:{arena_id}", currency=currency)


def settle_escrow(*, escrow: Account, rake: int, payouts: list[tuple[object, int]], key: str,
                  memo: str) -> LedgerTransaction | None:
    """Empty an escrow exactly (a tournament's or an arena's prizes): ``rake`` to revenue, each (user, amount)
    to that user's wallet, in one posting. ``pool_mismatch`` (500: a bug, nothing posted) when they do not
    add up to the escrow's balance."""
    escrow.refresh_from_db(fields=["balance"])
    total = rake + sum(amount for _, amount in payouts)
    if total != escrow.balance:
        raise WalletError("pool_mismatch", f"Prizes {total} do not match the escrow {escrow.balance}.")
    if not total:
        return None
    legs = [Leg(escrow, -total)]
    if rake:
        legs.append(Leg(revenue(currency=escrow.currency), rake))
    legs += [Leg(wallet(user=user, currency=escrow.currency), amount) for user, amount in payouts if amount]
    return post_transaction(key=key, legs=legs, kind=TxKind.SETTLE, memo=memo)


def revenue(*, currency: str) -> Account:
    return _account(kind=AccountKind.REVENUE, owner_key=PLATFORM, currency=currency)


def issuance(*, currency: str) -> Account:
    return _account(kind=AccountKind.ISSUANCE, owner_key=PLATFORM, currency=currency)


def may_go_negative(account: Account) -> bool:
    """Issuance always; a Chip player wallet only inside one posting (a 31 hand, see post_transaction)."""
    return account.kind == AccountKind.ISSUANCE


# ----- the posting ---------------------------------------------------------------------------

def post_transaction(*, key: str, legs: list[Leg], memo: str = "", kind: str = TxKind.ADJUSTMENT,
                     allow_negative_chip: bool = False) -> LedgerTransaction:
    """Post ``legs`` atomically under the idempotency ``key``; a repeated key returns the first posting.

    Legs must be whole non-zero amounts summing to zero per currency. Accounts are locked in id
    order (no deadlocks between postings); cached balances move in the same transaction and a
    balance may end below zero only on issuance, or on a Chip player wallet when
    ``allow_negative_chip`` (a 31 hand: the DB constraint allows exactly that account type).
    """
    if not isinstance(key, str) or not key or len(key) > 200:
        raise WalletError("bad_key", "An idempotency key is a non-empty string of at most 200 characters.")
    if kind not in TxKind.values:
        raise WalletError("bad_kind", f"Unknown transaction kind {kind!r}.")
    if not isinstance(legs, list | tuple) or not legs:
        raise WalletError("bad_legs", "A posting needs legs.")
    sums: dict[str, int] = defaultdict(int)
    deltas: dict[int, int] = defaultdict(int)
    for leg in legs:
        if not isinstance(leg, Leg) or not isinstance(leg.account, Account) or leg.account.pk is None:
            raise WalletError("bad_legs", "Each leg is a Leg(account, amount) with a saved account.")
        amount = _whole(leg.amount, "A leg amount")
        if amount == 0:
            raise WalletError("bad_amount", "A leg amount must not be zero.")
        sums[check_currency(leg.account.currency)] += amount
        deltas[leg.account.pk] += amount
    unbalanced = {c: s for c, s in sums.items() if s}
    if unbalanced:
        raise WalletError("unbalanced", f"Legs must sum to zero per currency; off by {unbalanced}.")

    existing = LedgerTransaction.objects.filter(key=key).first()
    if existing is not None:
        return _same_posting(existing, deltas)
    with transaction.atomic():
        try:
            # Claiming the key first: a concurrent poster of the same key waits here on the
            # unique index and then sees ours.
            with transaction.atomic():
                tx = LedgerTransaction.objects.create(key=key, kind=kind, memo=memo[:200])
        except IntegrityError:
            return _same_posting(LedgerTransaction.objects.get(key=key), deltas)
        locked = {a.pk: a for a in Account.objects.select_for_update().filter(pk__in=deltas).order_by("pk")}
        for pk, delta in sorted(deltas.items()):
            account = locked[pk]
            after = account.balance + delta
            negative_ok = may_go_negative(account) or (
                allow_negative_chip and account.kind == AccountKind.PLAYER and account.currency == Currency.CHIP)
            if after < 0 and not negative_ok:
                raise WalletError("insufficient_funds",
                                  f"Not enough {account.get_currency_display()}: {account.balance} available.")
            if abs(after) > MAX_AMOUNT:
                raise WalletError("bad_amount", "That balance would be out of range.")
        for pk, delta in sorted(deltas.items()):
            if delta:
                Account.objects.filter(pk=pk).update(balance=F("balance") + delta)
        Entry.objects.bulk_create([Entry(transaction=tx, account_id=leg.account.pk, amount=leg.amount)
                                   for leg in legs])
    return tx


def _same_posting(tx: LedgerTransaction, deltas: dict[int, int]) -> LedgerTransaction:
    """A repeated key is a retry of the same posting: the first one stands. The same key with other
    legs is a caller's mistake that would otherwise lose the second posting without a word."""
    posted: dict[int, int] = defaultdict(int)
    for account_id, amount in tx.entries.values_list("account_id", "amount"):
        posted[account_id] += amount
    if {pk: d for pk, d in posted.items() if d} != {pk: d for pk, d in deltas.items() if d}:
        raise WalletError("key_reused", f"The key {tx.key!r} was already used for a different posting.")
    return tx


def transfer(*, key: str, source: Account, target: Account, amount: int, memo: str = "",
             kind: str = TxKind.ADJUSTMENT) -> LedgerTransaction:
    """Move ``amount`` (> 0) from ``source`` to ``target`` (same currency)."""
    amount = check_amount(amount)
    if amount == 0:
        raise WalletError("bad_amount", "A transfer moves at least 1.")
    if source.currency != target.currency:
        raise WalletError("currency_mismatch", "A transfer stays in one currency.")
    return post_transaction(key=key, legs=[Leg(source, -amount), Leg(target, amount)], memo=memo, kind=kind)


def balance_of(*, user, currency: str) -> int:
    account = Account.objects.filter(kind=AccountKind.PLAYER, owner_key=f"user:{user.pk}",
                                     currency=check_currency(currency)).only("balance").first()
    return account.balance if account is not None else 0


# ----- grants, bots, bailouts -----------------------------------------------------------------

WELCOME_FIELDS = {Currency.CHIP: "welcome_chip", Currency.MUTIARA: "welcome_mutiara",
                  Currency.KELERENG: "welcome_kelereng"}


REAL_VALUE = (Currency.MUTIARA, Currency.KELERENG)  # welcome currencies an account earns, not gets


def _welcome_legs(currencies, user) -> list[Leg]:
    conf = WalletSettings.load()
    legs: list[Leg] = []
    for currency in currencies:
        amount = check_amount(getattr(conf, WELCOME_FIELDS[currency]))
        if amount:
            legs += [Leg(issuance(currency=currency), -amount), Leg(wallet(user=user, currency=currency), amount)]
    return legs


def grant_welcome(*, user) -> LedgerTransaction | None:
    """The welcome grant from issuance, once per user (admin-configured amounts: a repeat after the
    amounts changed returns the first grant, it does not post the difference). Chip comes at once; the
    real-value currencies (Mutiara, Kelereng) come with it only for bots and when
    ``WELCOME_REAL_VALUE_DELAY_H`` is 0 and no verified e-mail is required, otherwise later
    (``grant_welcome_real``), so accounts made by the dozen cannot feed their welcome Kelereng into a
    pot another account wins (economy.md)."""
    from django.conf import settings

    key = f"user:{user.pk}:welcome"
    granted = LedgerTransaction.objects.filter(key=key).first()
    if granted is not None:
        return granted
    at_once = user.is_bot or (settings.WELCOME_REAL_VALUE_DELAY_H <= 0 and not welcome_real_waits_for_email(user=user))
    legs = _welcome_legs(WELCOME_FIELDS if at_once else [Currency.CHIP], user)
    for currency in Currency.values:
        wallet(user=user, currency=currency)  # every player has all three wallets, even at 0
    if not legs:
        return None
    return post_transaction(key=key, legs=legs, memo="Welcome grant", kind=TxKind.WELCOME)


def welcome_real_waits_for_email(*, user) -> bool:
    """Whether the real-value welcome still waits for a verified e-mail address
    (``WELCOME_REQUIRES_VERIFIED_EMAIL``; never for bots). No query: the flag is on the user row."""
    from django.conf import settings

    return (bool(settings.WELCOME_REQUIRES_VERIFIED_EMAIL) and not user.is_bot
            and not getattr(user, "email_verified", False))


def welcome_real_granted(*, user) -> bool:
    """Whether the account already holds its welcome Mutiara and Kelereng (with the first grant or later)."""
    # One query, asked at every finish and sit.
    return Entry.objects.filter(transaction__key__in=[f"user:{user.pk}:welcome:real", f"user:{user.pk}:welcome"],
                                account__kind=AccountKind.PLAYER, account__currency__in=REAL_VALUE).exists()


def grant_welcome_real(*, user) -> LedgerTransaction | None:
    """The Mutiara and Kelereng of the welcome grant, once: after the account's first finished game
    (``table_money.on_finish``) or once the delay has passed (``release_welcome_if_due``), and only
    with a verified e-mail when that is required (the verification releases it then). None when they
    were already granted (with the first grant or earlier here), still wait for the e-mail, or the
    amounts are 0."""
    if welcome_real_waits_for_email(user=user) or welcome_real_granted(user=user):
        return None
    legs = _welcome_legs(REAL_VALUE, user)
    if not legs:
        return None
    return post_transaction(key=f"user:{user.pk}:welcome:real", legs=legs,
                            memo="Welcome grant (Mutiara and Kelereng)", kind=TxKind.WELCOME)


def release_welcome_if_due(*, user, played: bool = False) -> None:
    """Grant the real-value welcome if the account is old enough or ``played`` (the caller knows it
    finished a game: an e-mail verified after the first game), checked where money is first needed (a
    sit, a tournament entry) and when the e-mail is verified."""
    from django.conf import settings
    from django.utils import timezone

    if user.is_bot or getattr(user, "date_joined", None) is None:
        return
    if played or timezone.now() - user.date_joined >= timedelta(hours=settings.WELCOME_REAL_VALUE_DELAY_H):
        grant_welcome_real(user=user)


def fund_bot(*, user, currency: str, needed: int, key: str) -> LedgerTransaction | None:
    """Top a bot's wallet up from issuance so it holds at least ``needed`` (bots never block a table)."""
    needed = check_amount(needed, what="The needed balance")
    if not user.is_bot:
        raise WalletError("not_a_bot", "Only bot wallets are funded by the platform.")
    account = wallet(user=user, currency=currency)
    account.refresh_from_db(fields=["balance"])
    short = needed - account.balance
    if short <= 0:
        return None
    amount = short + WalletSettings.load().bot_float
    return post_transaction(key=key, legs=[Leg(issuance(currency=currency), -amount), Leg(account, amount)],
                            memo=f"Bot funding {amount} {currency}", kind=TxKind.BOT_FUNDING)


def bailout(*, user, key: str) -> LedgerTransaction | None:
    """After a 31 hand: a Chip balance at 0 or below goes back to the bailout level (debt written off)."""
    account = wallet(user=user, currency=Currency.CHIP)
    account.refresh_from_db(fields=["balance"])
    if account.balance > 0:
        return None
    amount = WalletSettings.load().bailout_to - account.balance
    return post_transaction(key=key, legs=[Leg(issuance(currency=Currency.CHIP), -amount), Leg(account, amount)],
                            memo=f"Bailout to {amount + account.balance} Chip", kind=TxKind.BAILOUT)
