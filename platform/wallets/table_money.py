"""Money rules hooked into the table lifecycle (economy.md; readings in docs/economy.md).

The table services in ``rooms.services`` call these inside the transaction that holds the
table's row lock, so a money failure rolls the whole transition back. Each raises
``wallets.errors.WalletError`` (stable ``code``) to refuse a transition.

Interface (kept stable for rooms.services):
    on_sit(*, table, seat)            entry into the pot escrow / minimum balance check
    on_stand(*, table, seat)          standing up before the start: entry back in full
    on_forfeit(*, table, seat)        leaving after the start or removal: the entry stays in the pot
    on_start(*, table)                nothing moves; freezes the table's money terms
    on_hand_over(*, table, event)     31: one hand's contributions, payout, rake, bailouts
    on_finish(*, table, result)       settle a table finished by the rules
    on_stop(*, table)                 stopped/never started: entries back to players still in,
                                      forfeits to the platform

Idempotency keys (one posting each, whatever retries happen):
    table:<id>:entry:seat<seat pk>        table:<id>:refund:seat<seat pk>
    table:<id>:botfund:seat<seat pk>      table:<id>:settle        table:<id>:stop
    table:<id>:hand:<d>                   table:<id>:hand:<d>:bailout:user<user pk>
Seat primary keys (not seat numbers) name seats: numbers are compacted at the start.
"""

from __future__ import annotations

from wallets import services
from wallets.errors import WalletError
from wallets.models import Account, AccountKind, Currency, Entry, LedgerTransaction, TableTerms, TxKind
from wallets.services import Leg

CASUAL, POT, PER_POINT, ANTE = "casual", "pot", "per_point", "ante"
CHERKI_MIN_POINTS = 100  # sitting at Cherki needs 100 × the value per point


def terms_for(table) -> TableTerms:
    """The table's frozen money terms (created from its room at the first money event)."""
    terms = TableTerms.objects.filter(table_id=table.pk).first()
    if terms is not None:
        return terms
    room = table.room
    stake = room.stake
    rake = room.rake_bps
    if room.stake_kind == ANTE:
        # The engine was given its ante and rake at table_open: money follows the engine.
        stake = int(table.options.get("ante", stake))
        rake = int(table.options.get("rake_bps", rake))
    services.check_amount(stake, what="The stake")
    services.check_rake_bps(rake)
    currency = room.currency if room.stake_kind != CASUAL else ""
    if room.stake_kind != CASUAL:
        services.check_currency(currency)
    return TableTerms.objects.create(table_id=table.pk, stake_kind=room.stake_kind, currency=currency,
                                     stake=stake, rake_bps=rake)


def _seat_by_number(table) -> dict[int, object]:
    """Engine seat -> Seat row among seats that took part (stood seats never did)."""
    return {s.number: s for s in table.seats.exclude(status="stood").select_related("user")}


def _entry_tx(table, seat) -> LedgerTransaction | None:
    return LedgerTransaction.objects.filter(key=f"table:{table.pk}:entry:seat{seat.pk}").first()


def _paid_in(tx: LedgerTransaction) -> tuple[Account, Account, int]:
    """(player wallet, escrow, amount) of an entry posting."""
    entries = list(Entry.objects.filter(transaction=tx).select_related("account"))
    escrow = next(e for e in entries if e.account.kind == AccountKind.TABLE_ESCROW)
    payer = next(e for e in entries if e.account.kind == AccountKind.PLAYER)
    return payer.account, escrow.account, escrow.amount


def _escrows(table) -> list[Account]:
    return list(Account.objects.filter(kind=AccountKind.TABLE_ESCROW, owner_key=f"table:{table.pk}")
                .order_by("pk"))


# ----- sit, stand, forfeit, start ---------------------------------------------------------------

def on_sit(*, table, seat) -> None:
    terms = terms_for(table)
    user = seat.user
    if terms.stake_kind == CASUAL:
        return
    currency = terms.currency
    needed = terms.stake * (CHERKI_MIN_POINTS if terms.stake_kind == PER_POINT else 1)
    services.release_welcome_if_due(user=user)
    if user.is_bot:
        services.fund_bot(user=user, currency=currency, needed=needed, key=f"table:{table.pk}:botfund:seat{seat.pk}")
    if terms.stake_kind == POT:
        if terms.stake:
            services.post_transaction(
                key=f"table:{table.pk}:entry:seat{seat.pk}",
                legs=[Leg(services.wallet(user=user, currency=currency), -terms.stake),
                      Leg(services.table_escrow(table_id=table.pk, currency=currency), terms.stake)],
                memo=f"Entry, table {table.pk}", kind=TxKind.ENTRY)
        return
    # Cherki and 31 take nothing at the sit; they check the balance the table can cost.
    have = services.balance_of(user=user, currency=currency)
    if have < needed:
        raise WalletError("insufficient_funds",
                          f"Sitting here needs at least {needed} {Currency(currency).label}; you have {have}.")


def on_stand(*, table, seat) -> None:
    """Standing up before the start: the entry actually paid comes back in full."""
    tx = _entry_tx(table, seat)
    if tx is None:
        return
    payer, escrow, amount = _paid_in(tx)
    services.post_transaction(key=f"table:{table.pk}:refund:seat{seat.pk}",
                              legs=[Leg(escrow, -amount), Leg(payer, amount)],
                              memo=f"Refund, stood up at table {table.pk}", kind=TxKind.REFUND)


def on_forfeit(*, table, seat) -> None:
    """Leaving after the start or removal: the entry stays in the pot; nothing moves now."""


def on_start(*, table) -> None:
    terms_for(table)  # a table that starts with no money event yet (casual) still gets its terms


# ----- 31 hands ---------------------------------------------------------------------------------

def on_hand_over(*, table, event: dict) -> None:
    """31: contributions into the pot, the pot less rake to the winner, rake to revenue, then bailouts."""
    terms = terms_for(table)
    if terms.stake_kind != ANTE:
        return
    hand = event["hand"]
    contributions = [services.check_amount(c, what="A contribution") for c in event["contributions"]]
    payouts = [services.check_amount(p, what="A payout") for p in event["payouts"]]
    pot = services.check_amount(event["pot"], what="The pot")
    rake = services.check_amount(event["rake"], what="The rake")
    if sum(contributions) != pot or sum(payouts) + rake != pot:
        raise WalletError("bad_hand", f"Hand {hand} of table {table.pk} does not add up.")
    seats = _seat_by_number(table)
    escrow = services.table_escrow(table_id=table.pk, currency=Currency.CHIP)
    legs: list[Leg] = []
    players = []
    for number, amount in enumerate(contributions):
        if amount:
            legs.append(Leg(services.wallet(user=seats[number].user, currency=Currency.CHIP), -amount))
            players.append(seats[number].user)
    if pot:
        legs.append(Leg(escrow, pot))
        legs.append(Leg(escrow, -pot))
    for number, amount in enumerate(payouts):
        if amount:
            legs.append(Leg(services.wallet(user=seats[number].user, currency=Currency.CHIP), amount))
    if rake:
        legs.append(Leg(services.revenue(currency=Currency.CHIP), rake))
    if legs:
        services.post_transaction(key=f"table:{table.pk}:hand:{hand}", legs=legs, allow_negative_chip=True,
                                  memo=f"31 hand {hand}, table {table.pk}: pot {pot}, rake {rake}",
                                  kind=TxKind.HAND)
    for user in players:
        services.bailout(user=user, key=f"table:{table.pk}:hand:{hand}:bailout:user{user.pk}")


# ----- finish and stop --------------------------------------------------------------------------

def _first_place_still_in(table, result: dict) -> list[int]:
    """First-place engine seats whose player is still in (a seat that left or was removed forfeited)."""
    seats = _seat_by_number(table)
    return sorted(n for n in result.get("winners", []) if n in seats and seats[n].status == "seated")


def _settle_pot(table, terms: TableTerms, result: dict) -> None:
    legs: list[Leg] = []
    winners = _first_place_still_in(table, result)
    seats = _seat_by_number(table)
    for escrow in _escrows(table):
        escrow.refresh_from_db(fields=["balance"])
        pot = escrow.balance
        if not pot:
            continue
        rake = services.rake_of(pot=pot, rake_bps=terms.rake_bps)
        prize = pot - rake
        legs.append(Leg(escrow, -pot))
        if not winners:
            # Every first place forfeited: the whole pot is the platform's (like forfeits on a stop).
            legs.append(Leg(services.revenue(currency=escrow.currency), pot))
            continue
        if escrow.currency == Currency.KELERENG:
            if rake:
                legs.append(Leg(services.revenue(currency=Currency.KELERENG), rake))
            source = None
        else:
            # A Mutiara pot goes whole to revenue; the prize is issued in Kelereng 1:1.
            legs.append(Leg(services.revenue(currency=escrow.currency), pot))
            source = services.issuance(currency=Currency.KELERENG)
        if prize:
            if source is not None:
                legs.append(Leg(source, -prize))
            for number, share in services.split_evenly(amount=prize, seats=winners).items():
                if share:
                    legs.append(Leg(services.wallet(user=seats[number].user, currency=Currency.KELERENG), share))
    if legs:
        services.post_transaction(key=f"table:{table.pk}:settle", legs=legs, kind=TxKind.SETTLE,
                                  memo=f"Pot settled, table {table.pk}")


def _settle_cherki(table, terms: TableTerms, result: dict) -> None:
    """Each opponent pays the winning total × value; the winner gets twice it (void: nothing)."""
    if not result.get("settled") or result.get("winner") is None:
        return
    seats = _seat_by_number(table)
    deltas = result["deltas"]
    if sum(deltas) != 0:
        raise WalletError("bad_result", f"Cherki deltas of table {table.pk} do not sum to zero.")
    legs: list[Leg] = []
    shortfall = 0
    owed = {number: services.check_amount(abs(points), what="Cherki points") * terms.stake
            for number, points in enumerate(deltas)}
    accounts = {number: services.wallet(user=seats[number].user, currency=Currency.CHIP)
                for number, amount in owed.items() if amount}
    # Every account of the posting locked now, in id order as post_transaction locks them: a loser's
    # balance is read under its lock, so what it can pay cannot shrink before the posting (which would
    # then refuse it and leave the game unable to finish).
    balances = dict(Account.objects.select_for_update().filter(pk__in=[a.pk for a in accounts.values()])
                    .order_by("pk").values_list("pk", "balance"))
    for number, account in accounts.items():
        amount = owed[number]
        if deltas[number] < 0:
            paid = min(amount, max(balances[account.pk], 0))
            shortfall += amount - paid  # a loser who cannot pay in full: the platform covers the rest
            if paid:
                legs.append(Leg(account, -paid))
        else:
            legs.append(Leg(account, amount))
    if shortfall:
        legs.append(Leg(services.issuance(currency=Currency.CHIP), -shortfall))
    if legs:
        services.post_transaction(key=f"table:{table.pk}:settle", legs=legs, kind=TxKind.SETTLE,
                                  memo=f"Cherki settled at {terms.stake} per point, table {table.pk}")


def on_finish(*, table, result: dict) -> None:
    # A human's first finished game earns the real-value part of their welcome grant (economy.md).
    for seat in table.seats.select_related("user").filter(user__is_bot=False):
        services.grant_welcome_real(user=seat.user)
    terms = terms_for(table)
    if terms.stake_kind == POT:
        _settle_pot(table, terms, result)
    elif terms.stake_kind == PER_POINT:
        _settle_cherki(table, terms, result)
    # 31: every hand was posted at its hand_over; casual: nothing moves.


def on_stop(*, table) -> None:
    """Entries back to players still in; what is left (forfeited entries) to the platform."""
    escrows = _escrows(table)
    if not escrows:
        return
    legs: list[Leg] = []
    refunded: dict[int, int] = {}
    for seat in table.seats.filter(status="seated").order_by("pk"):
        tx = _entry_tx(table, seat)
        if tx is None:
            continue
        payer, escrow, amount = _paid_in(tx)
        legs += [Leg(escrow, -amount), Leg(payer, amount)]
        refunded[escrow.pk] = refunded.get(escrow.pk, 0) + amount
    for escrow in escrows:
        escrow.refresh_from_db(fields=["balance"])
        rest = escrow.balance - refunded.get(escrow.pk, 0)
        if rest < 0:
            raise WalletError("escrow_short", f"The pot of table {table.pk} holds less than its entries.")
        if rest:
            legs += [Leg(escrow, -rest), Leg(services.revenue(currency=escrow.currency), rest)]
    if legs:
        services.post_transaction(key=f"table:{table.pk}:stop", legs=legs, kind=TxKind.STOP,
                                  memo=f"Table {table.pk} stopped: entries back, forfeits to the platform")
