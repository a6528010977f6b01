"""Reads of balances and history (no writes here).

What a posting was for is read from its idempotency key (docs/economy.md, "Idempotency keys"): every key
names its cause (``table:42:entry:seat7``, ``tournament:5:prizes``, ``arena:3:entry:7:1`` ...), so the wallet
page and a table's result panel can say it in words and link the table, tournament or arena without any
extra column.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.paginator import Page, Paginator
from django.db.models import CharField, Max, Q, QuerySet, Sum, Value
from django.db.models.functions import Cast, Concat
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.cache import cache
from wallets.models import Account, AccountKind, Currency, Entry, LedgerTransaction, TableTerms, TxKind, WalletSettings
from wallets.services import welcome_real_granted, welcome_real_waits_for_email
from wallets.table_money import ANTE, CASUAL, CHERKI_MIN_POINTS, PER_POINT, POT

CURRENCY_ORDER = [Currency.CHIP, Currency.MUTIARA, Currency.KELERENG]
HISTORY_PAGE_SIZE = 25
LARGEST_POT_DAYS = 7
LARGEST_POT_CACHE_S = 300  # the lobby asks on every load; a pot a few minutes old is news enough


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


# ----- what a posting was for -------------------------------------------------------------------

@dataclass(frozen=True)
class Cause:
    """A posting's cause as its key names it; ``hand`` is the 31 hand number in the key (from 0)."""

    code: str
    table_id: int | None = None
    tournament_id: int | None = None
    hand: int | None = None
    arena_id: int | None = None


# The key formats of wallets.services, wallets.table_money, tournaments.money and arenas.money (their
# docstrings). Arenas fund no bots: their bots sit at casual tables.
_KEYS = [
    (re.compile(r"^user:\d+:welcome$"), "welcome"),
    (re.compile(r"^user:\d+:welcome:real$"), "welcome_real"),
    (re.compile(r"^table:(?P<table>\d+):entry:seat\d+$"), "entry"),
    (re.compile(r"^table:(?P<table>\d+):refund:seat\d+$"), "refund"),
    (re.compile(r"^table:(?P<table>\d+):botfund:seat\d+$"), "bot_funding"),
    (re.compile(r"^table:(?P<table>\d+):settle$"), "settle"),
    (re.compile(r"^table:(?P<table>\d+):stop$"), "stop"),
    (re.compile(r"^table:(?P<table>\d+):hand:(?P<hand>\d+)$"), "hand"),
    (re.compile(r"^table:(?P<table>\d+):hand:(?P<hand>\d+):bailout:user\d+$"), "bailout"),
    (re.compile(r"^tournament:(?P<tournament>\d+):entry:\d+:\d+$"), "tournament_entry"),
    (re.compile(r"^tournament:(?P<tournament>\d+):refund:\d+:\d+$"), "tournament_refund"),
    (re.compile(r"^tournament:(?P<tournament>\d+):botfund:\d+:\d+$"), "bot_funding"),
    (re.compile(r"^tournament:(?P<tournament>\d+):cancel$"), "tournament_cancel"),
    (re.compile(r"^tournament:(?P<tournament>\d+):prizes$"), "tournament_prize"),
    (re.compile(r"^arena:(?P<arena>\d+):entry:\d+:\d+$"), "arena_entry"),
    (re.compile(r"^arena:(?P<arena>\d+):refund:\d+:\d+$"), "arena_refund"),
    (re.compile(r"^arena:(?P<arena>\d+):cancel$"), "arena_cancel"),
    (re.compile(r"^arena:(?P<arena>\d+):prizes$"), "arena_prize"),
]


def cause_of(key: str) -> Cause:
    """The cause a posting's key names; ``Cause("other")`` for a key of no known format."""
    for pattern, code in _KEYS:
        match = pattern.match(key or "")
        if match is None:
            continue
        found = {name: int(value) for name, value in match.groupdict().items() if value is not None}
        return Cause(code, table_id=found.get("table"), tournament_id=found.get("tournament"), hand=found.get("hand"),
                     arena_id=found.get("arena"))
    return Cause("other")


# economy.md, pot tables: the documented rule, as players read it (the wallet page, a table's result).
MUTIARA_PRIZE_RULE = _("Pot prizes are always paid in Kelereng, also when the pot was in Mutiara: the platform "
                       "takes a Mutiara pot whole and pays the prize (the pot less the rake) in Kelereng, "
                       "1 Kelereng for 1 Mutiara.")

PURPOSES = {
    "welcome": _("Welcome grant"),
    "welcome_real": _("Welcome grant: Mutiara and Kelereng"),
    "entry": _("Entry into the pot"),
    "refund": _("Entry back: you stood up before the start"),
    "stop": _("Entry back: the table was stopped"),
    "prize": _("Prize"),
    "prize_mutiara": _("Prize of a Mutiara pot, paid in Kelereng (1 Kelereng per Mutiara)"),
    "cherki_won": _("Cherki: points won"),
    "cherki_lost": _("Cherki: points lost"),
    "hand": _("31 hand %(hand)s: ante and raises"),
    "hand_won": _("31 hand %(hand)s: pot won"),
    "bailout": _("Bailout after 31 hand %(hand)s: Chip back up, the debt written off"),
    "bot_funding": _("Bot funding"),
    "tournament_entry": _("Tournament entry"),
    "tournament_refund": _("Tournament entry back: unregistered"),
    "tournament_cancel": _("Tournament entry back: the tournament was cancelled"),
    "tournament_prize": _("Tournament prize"),
    "arena_entry": _("Arena entry"),
    "arena_refund": _("Arena entry back: withdrawn"),
    "arena_cancel": _("Arena entry back: the arena was cancelled"),
    "arena_prize": _("Arena prize"),
}


def _purpose(cause: Cause, *, kind: str, received: int, terms: TableTerms | None) -> tuple[str, str]:
    """(purpose code, words) of one posting as the user saw it (``received``: what came in to them)."""
    code = cause.code
    if code == "settle":
        if terms is not None and terms.stake_kind == PER_POINT:
            code = "cherki_won" if received else "cherki_lost"
        else:
            code = "prize_mutiara" if terms is not None and terms.currency == Currency.MUTIARA else "prize"
    elif code == "hand" and received:
        code = "hand_won"
    text = PURPOSES.get(code)
    if text is None:  # a key of no known format (an admin adjustment ...): the posting's kind says it
        return "other", str(TxKind(kind).label) if kind in TxKind.values else kind
    return code, str(text) % {"hand": (cause.hand or 0) + 1}


def _pots(transaction_ids) -> dict[int, tuple[str, int, int]]:
    """Transaction id -> (escrow currency, pot, rake) for the postings that empty a pot (a settlement,
    a 31 hand). Rake = the pot less what the players received from it: a Kelereng pot's rake goes to
    revenue, a Mutiara pot goes there whole and its prize is issued in Kelereng, and both read the same."""
    out: dict[int, int] = defaultdict(int)
    paid_out: dict[int, int] = defaultdict(int)
    currency: dict[int, str] = {}
    for tx_id, kind, cur, amount in (Entry.objects.filter(transaction_id__in=list(transaction_ids))
                                     .filter(Q(account__kind=AccountKind.TABLE_ESCROW, amount__lt=0)
                                             | Q(account__kind=AccountKind.PLAYER, amount__gt=0))
                                     .values_list("transaction_id", "account__kind", "account__currency", "amount")):
        if kind == AccountKind.TABLE_ESCROW:
            out[tx_id] -= amount
            currency[tx_id] = cur
        else:
            paid_out[tx_id] += amount
    # A pot nobody received anything from was forfeited whole to the platform: that is no rake.
    return {tx_id: (currency[tx_id], pot, pot - paid_out[tx_id] if paid_out[tx_id] else 0)
            for tx_id, pot in out.items()}


# ----- the wallet page: one currency's history -------------------------------------------------

def wallet_history(*, user, currency: str, page: object = 1, per_page: int = HISTORY_PAGE_SIZE) -> dict:
    """One currency of the user's wallet: balance and a page of postings, newest first.

    A row is one posting (a 31 hand's ante and payout are two legs of one posting: one row with both),
    with what it was for, the table, tournament or arena it belongs to, and the balance right after it. An
    account's entries are written while its row is locked, so their ids follow the order the balance
    moved in: the balance after a row is the sum of the account's entries up to its last one.
    """
    if currency not in Currency.values:
        currency = Currency.CHIP
    account = Account.objects.filter(kind=AccountKind.PLAYER, user=user, currency=currency).first()
    grouped = (Entry.objects.filter(account=account).values("transaction_id")
               .annotate(net=Sum("amount"), out=Sum("amount", filter=Q(amount__lt=0)),
                         got=Sum("amount", filter=Q(amount__gt=0)), last=Max("pk"))
               .order_by("-last")) if account is not None else Entry.objects.none()
    page_obj: Page = Paginator(grouped, per_page).get_page(page)
    groups = list(page_obj.object_list)
    rows: list[dict] = []
    if groups:
        after = Entry.objects.filter(account=account, pk__lte=groups[0]["last"]).aggregate(s=Sum("amount"))["s"] or 0
        txs = LedgerTransaction.objects.in_bulk([g["transaction_id"] for g in groups])
        causes = {tx_id: cause_of(tx.key) for tx_id, tx in txs.items()}
        terms = {t.table_id: t for t in TableTerms.objects.filter(
            table_id__in={c.table_id for c in causes.values() if c.table_id is not None})}
        pots = _pots(tx_id for tx_id, tx in txs.items() if tx.kind in (TxKind.HAND, TxKind.SETTLE))
        for group in groups:
            tx = txs[group["transaction_id"]]
            cause = causes[tx.pk]
            received = group["got"] or 0
            code, text = _purpose(cause, kind=tx.kind, received=received, terms=terms.get(cause.table_id))
            _cur, pot, rake = pots.get(tx.pk, ("", 0, 0))
            rows.append({"id": tx.pk, "at": tx.created_at, "amount": group["net"], "paid": -(group["out"] or 0),
                         "received": received, "balance_after": after, "purpose": code, "text": text,
                         "table_id": cause.table_id, "tournament_id": cause.tournament_id, "arena_id": cause.arena_id,
                         "pot": pot, "rake": rake, "memo": tx.memo})
            after -= group["net"]
    return {"currency": currency, "label": str(Currency(currency).label),
            "balance": account.balance if account is not None else 0, "page": page_obj, "rows": rows}


# ----- one table's money, for the player who looks at its result --------------------------------

def table_money_for(*, user, table_id: int) -> dict:
    """The user's own money movement at one table: every posting of theirs (entry, antes and raises,
    payouts, refunds, bailouts) and per currency what they paid in, got back, won, and the net; with the
    rake the platform took from the table's pots (public: it follows from the pots).

    ``{"table_id", "lines": [{purpose, text, currency, amount, paid, received, at}], "totals": [{currency,
    label, paid, back, won, bailouts, net, rake}], "mutiara_pot": bool}``; the net leaves bailouts out
    (a gift, not a result). Found through the table's escrow accounts and exact keys, never a key scan.
    """
    owner = f"table:{int(table_id)}"
    escrows = Account.objects.filter(kind=AccountKind.TABLE_ESCROW, owner_key=owner).values("pk")
    tx_ids = set(Entry.objects.filter(account_id__in=escrows).values_list("transaction_id", flat=True))
    keys = dict(LedgerTransaction.objects.filter(Q(pk__in=tx_ids) | Q(key=f"{owner}:settle"))
                .values_list("pk", "key"))
    causes = [cause_of(key) for key in keys.values()]
    bailouts = [f"{owner}:hand:{c.hand}:bailout:user{user.pk}" for c in causes if c.code == "hand"]
    keys.update(LedgerTransaction.objects.filter(key__in=bailouts).values_list("pk", "key"))
    legs = list(Entry.objects.filter(transaction_id__in=list(keys), account__kind=AccountKind.PLAYER,
                                     account__user=user).select_related("transaction", "account").order_by("pk"))
    terms = TableTerms.objects.filter(table_id=int(table_id)).first()
    by_tx: dict[int, list[Entry]] = defaultdict(list)
    for leg in legs:
        by_tx[leg.transaction_id].append(leg)
    lines: list[dict] = []
    totals: dict[str, dict] = {}

    def total(currency: str) -> dict:
        return totals.setdefault(currency, {"currency": currency, "label": str(Currency(currency).label), "paid": 0,
                                            "back": 0, "won": 0, "bailouts": 0, "net": 0, "rake": 0})

    for tx_legs in by_tx.values():
        tx = tx_legs[0].transaction
        cause = cause_of(tx.key)
        per_currency: dict[str, list[int]] = defaultdict(list)
        for leg in tx_legs:
            per_currency[leg.account.currency].append(leg.amount)
        for currency, amounts in per_currency.items():
            paid = -sum(a for a in amounts if a < 0)
            received = sum(a for a in amounts if a > 0)
            code, text = _purpose(cause, kind=tx.kind, received=received, terms=terms)
            lines.append({"purpose": code, "text": text, "currency": currency, "amount": received - paid,
                          "paid": paid, "received": received, "at": tx.created_at})
            row = total(currency)
            if cause.code == "bailout":
                row["bailouts"] += received
                continue
            row["paid"] += paid
            row["net"] += received - paid
            row["back" if cause.code in ("refund", "stop") else "won"] += received
    for currency, _pot, rake in _pots(tx_id for tx_id, key in keys.items()
                                      if cause_of(key).code in ("hand", "settle")).values():
        if rake and by_tx:
            total(currency)["rake"] += rake
    order = {c.value: i for i, c in enumerate(CURRENCY_ORDER)}
    return {"table_id": int(table_id), "lines": lines,
            "totals": sorted(totals.values(), key=lambda t: order.get(t["currency"], 9)),
            "mutiara_pot": terms is not None and terms.stake_kind == POT and terms.currency == Currency.MUTIARA}


# ----- what a room costs, and how to get more ---------------------------------------------------

def sit_requirement(*, room) -> tuple[str, int] | None:
    """(currency, amount) a seat in ``room`` needs in the wallet, as ``table_money.on_sit`` checks it:
    a pot's entry, 100 × Cherki's value per point, 31's ante (the engine's, from the room's options
    when set there); None for a free room."""
    if room.stake_kind == CASUAL or not room.stake:
        return None
    if room.stake_kind == POT:
        return room.currency, room.stake
    if room.stake_kind == PER_POINT:
        return room.currency, room.stake * CHERKI_MIN_POINTS
    if room.stake_kind == ANTE:
        return room.currency, int((room.options or {}).get("ante", room.stake))
    return None


def welcome_real_pending(*, user) -> bool:
    """The Mutiara and Kelereng of the user's welcome grant have not come yet."""
    return not user.is_bot and not welcome_real_granted(user=user)


def funds_for(*, user, room) -> dict | None:
    """What a seat in ``room`` needs against what the user has: ``{currency, needed, balance,
    welcome_pending}`` (``welcome_pending``: short, and the welcome Mutiara and Kelereng are still to
    come); None for a free room."""
    need = sit_requirement(room=room)
    if need is None:
        return None
    currency, needed = need
    have = Account.objects.filter(kind=AccountKind.PLAYER, user=user, currency=currency).values_list(
        "balance", flat=True).first() or 0
    return {"currency": currency, "needed": needed, "balance": have,
            "welcome_pending": have < needed and currency != Currency.CHIP and welcome_real_pending(user=user)}


def shortfall(*, user, room) -> dict | None:
    """None when the user can take a seat in ``room`` as far as money goes; else ``funds_for``."""
    funds = funds_for(user=user, room=room)
    return funds if funds is not None and funds["balance"] < funds["needed"] else None


def funding_help(*, currency: str) -> str:
    """How a player gets more of ``currency``, by the rules of docs/economy.md (in the active language)."""
    if currency == Currency.CHIP:
        return gettext("Chip: when a 31 hand leaves your Chip balance at 0 or below, a bailout brings it back "
                       "to %(bailout)s Chip (the debt is written off). You can also win Chip at 31 and Cherki "
                       "tables you can afford.") % {"bailout": WalletSettings.load().bailout_to}
    if currency == Currency.MUTIARA:
        return gettext("Mutiara: it comes only with the welcome grant; pot prizes are paid in Kelereng.")
    return gettext("Kelereng: win pot tables (every pot prize is paid in Kelereng, also for Mutiara pots).")


def welcome_pending_help() -> str:
    """When the welcome grant's Mutiara and Kelereng come (docs/economy.md, welcome grant)."""
    hours = {"hours": settings.WELCOME_REAL_VALUE_DELAY_H}
    if getattr(settings, "WELCOME_REQUIRES_VERIFIED_EMAIL", False):
        return gettext("The Mutiara and Kelereng of your welcome grant come once you have verified your e-mail "
                       "address, after your first finished game or %(hours)s hours after you signed up.") % hours
    return gettext("The Mutiara and Kelereng of your welcome grant come after your first finished game or "
                   "%(hours)s hours after you signed up.") % hours


# ----- the realistic range of a 31 room --------------------------------------------------------

def largest_pots(*, room_ids, days: int = LARGEST_POT_DAYS) -> dict[int, int]:
    """Room id -> the largest 31 pot (Chip) its tables posted in the last ``days`` days (rooms without
    one are left out). A hand's pot is its escrow leg in (``table:<id>:hand:<d>``); cached per room."""
    ids = sorted({int(r) for r in room_ids})
    keys = {room_id: f"wallets:largest-pot:{room_id}:{days}" for room_id in ids}
    cached = cache.get_many(list(keys.values()))
    found = {room_id: cached[key] for room_id, key in keys.items() if key in cached}
    since = timezone.now() - timedelta(days=days)
    fresh = {}
    for room_id in (r for r in ids if r not in found):
        escrows = (TableTerms.objects.filter(table__room_id=room_id, stake_kind=ANTE)
                   .filter(Q(table__ended_at__isnull=True) | Q(table__ended_at__gte=since))
                   .annotate(owner=Concat(Value("table:"), Cast("table_id", CharField()), output_field=CharField()))
                   .values("owner"))
        fresh[room_id] = Entry.objects.filter(
            account__kind=AccountKind.TABLE_ESCROW, account__owner_key__in=escrows, amount__gt=0,
            transaction__kind=TxKind.HAND, transaction__created_at__gte=since).aggregate(m=Max("amount"))["m"] or 0
    if fresh:
        cache.set_many({keys[room_id]: pot for room_id, pot in fresh.items()}, timeout=LARGEST_POT_CACHE_S)
    return {room_id: pot for room_id, pot in {**found, **fresh}.items() if pot}


def welcome_status(*, user, played: bool) -> dict:
    """Where the player's welcome Mutiara and Kelereng stand, for the profile page: the rule in force
    (``requires_email``, ``delay_h``), the amounts, ``granted``; else what they still wait for
    (``needs_email``; ``needs_play``: no finished game yet (``played``, which the tables know) and
    ``hours_left`` of the delay)."""
    conf = WalletSettings.load()
    status = {"mutiara": conf.welcome_mutiara, "kelereng": conf.welcome_kelereng,
              "requires_email": bool(settings.WELCOME_REQUIRES_VERIFIED_EMAIL),
              "delay_h": settings.WELCOME_REAL_VALUE_DELAY_H,
              "granted": welcome_real_granted(user=user), "needs_email": False, "needs_play": False,
              "hours_left": 0}
    if status["granted"] or user.is_bot or not (conf.welcome_mutiara or conf.welcome_kelereng):
        return status
    status["needs_email"] = welcome_real_waits_for_email(user=user)
    due = user.date_joined + timedelta(hours=settings.WELCOME_REAL_VALUE_DELAY_H)
    if timezone.now() < due and not played:
        status["needs_play"] = True
        status["hours_left"] = max(1, round((due - timezone.now()).total_seconds() / 3600))
    return status
