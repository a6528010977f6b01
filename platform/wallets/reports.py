"""The operators' revenue report, computed from the ledger alone (docs/operators.md). Reads only.

Five sections, each a list of plain dict rows (the admin page and its CSV files show the same rows):
- ``revenue_rows``: every leg posted to the platform's revenue accounts, counted once, by day, source
  (the room of the table, the tournament or the arena), game and currency, split into rake, forfeits,
  converted (a Mutiara pot taken whole while its prize was issued in Kelereng) and other (e.g. adjustments);
- ``tournament_rows``: per tournament, entry fees in, refunds, prizes, rake, forfeits and the change of
  its escrow; ``arena_rows``: the same per arena;
- ``bot_rows``: per bot wallet and currency, its welcome grant, the platform's top-ups and the result
  of its play (the platform's result: economy.md, "their results are the platform's");
- ``writeoff_rows``: 31 bailouts (Chip issued and the debt written off) and Cherki shortfalls covered by
  issuance, by day and room.
What a posting was for comes from its idempotency key (docs/economy.md, "Idempotency keys"); the split
of a pot's settlement into rake and forfeits also reads the table's frozen terms (``TableTerms``).
Days are calendar days in the current time zone; a period is at most ``MAX_DAYS`` long.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

from django.apps import apps
from django.db.models import OuterRef, Subquery, Sum
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.errors import ServiceError
from wallets.models import AccountKind, Currency, Entry, LedgerTransaction, TableTerms, TxKind

MAX_DAYS = 366
DEFAULT_DAYS = 30
CHUNK = 500  # ids per IN (...) query

RAKE, FORFEITS, CONVERTED, OTHER = "rake", "forfeits", "converted", "other"
CATEGORIES = (RAKE, FORFEITS, CONVERTED, OTHER)

_TABLE_KEY = re.compile(r"^table:(\d+):(.+)$")
_TOURNAMENT_KEY = re.compile(r"^tournament:(\d+):(.+)$")
_ARENA_KEY = re.compile(r"^arena:(\d+):(.+)$")
_HAND = re.compile(r"^hand:\d+$")


class ReportError(ServiceError):
    """A report asked for with a bad period (``bad_date``, ``bad_range``, ``range_too_long``)."""


# ----- the period ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Period:
    """Whole days, ``start`` to ``end`` inclusive, in the current time zone."""

    start: date
    end: date

    def bounds(self) -> tuple[datetime, datetime]:
        """``[start 00:00, the day after end 00:00)`` as aware datetimes."""
        tz = timezone.get_current_timezone()
        return (datetime.combine(self.start, time.min, tzinfo=tz),
                datetime.combine(self.end + timedelta(days=1), time.min, tzinfo=tz))

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1


def _date(value: object, what: str) -> date | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise ReportError("bad_date", gettext("The %(what)s date must be written YYYY-MM-DD.") % {"what": what})


def period(*, start: object = None, end: object = None, today: date | None = None) -> Period:
    """The period asked for: by default the last ``DEFAULT_DAYS`` days up to today."""
    last = _date(end, gettext("end")) or today or timezone.localdate()
    first = _date(start, gettext("start")) or last - timedelta(days=DEFAULT_DAYS - 1)
    if first > last:
        raise ReportError("bad_range", gettext("The start date is after the end date."))
    if (last - first).days + 1 > MAX_DAYS:
        raise ReportError("range_too_long", gettext("A report covers at most %(days)d days.") % {"days": MAX_DAYS})
    return Period(start=first, end=last)


def _in(period_: Period, prefix: str = "transaction__") -> dict[str, datetime]:
    low, high = period_.bounds()
    return {f"{prefix}created_at__gte": low, f"{prefix}created_at__lt": high}


def _day(moment: datetime) -> date:
    return timezone.localtime(moment).date()


def _chunks(ids: Iterable[int]) -> Iterator[list[int]]:
    ids = sorted(set(ids))
    for i in range(0, len(ids), CHUNK):
        yield ids[i:i + CHUNK]


# ----- names of tables' rooms, tournaments and arenas (lazy: the ledger imports no app built on it) ----

def _rooms_of(table_ids: Iterable[int]) -> dict[int, dict]:
    """table id -> {"id", "name", "game"} of its room."""
    Table = apps.get_model("rooms", "Table")
    rooms: dict[int, dict] = {}
    for chunk in _chunks(table_ids):
        for table_id, room_id, name, game in Table.objects.filter(pk__in=chunk).values_list(
                "pk", "room_id", "room__name", "room__game"):
            rooms[table_id] = {"id": room_id, "name": name, "game": game}
    return rooms


def _named(app: str, model_name: str, ids: Iterable[int]) -> dict[int, dict]:
    """id -> {"name", "game"} of a tournament or an arena (empty when its app is not installed)."""
    if not apps.is_installed(app):
        return {}
    model = apps.get_model(app, model_name)
    found: dict[int, dict] = {}
    for chunk in _chunks(ids):
        for pk, name, game in model.objects.filter(pk__in=chunk).values_list("pk", "name", "game"):
            found[pk] = {"name": name, "game": game}
    return found


def _tournaments(ids: Iterable[int]) -> dict[int, dict]:
    return _named("tournaments", "Tournament", ids)


def _arenas(ids: Iterable[int]) -> dict[int, dict]:
    return _named("arenas", "Arena", ids)


# ----- revenue ------------------------------------------------------------------------------------

@dataclass
class RevenueLine:
    """One leg posted to a revenue account, and what it was: ``parts`` (category -> amount) sum to
    ``amount``. A Mutiara pot's leg, for example, is its rake plus the part converted to Kelereng."""

    entry_id: int
    key: str
    day: date
    currency: str
    amount: int
    source: str  # "table", "tournament", "arena" or "other"
    source_id: int | None
    parts: dict[str, int] = field(default_factory=dict)


@dataclass
class _Settlement:
    table_id: int = 0
    pot: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # escrow paid out, per currency
    issued_kel: int = 0  # Kelereng issued to pay a Mutiara pot's prize
    paid: bool = False  # a player was paid something


def _settlements(period_: Period) -> dict[int, _Settlement]:
    """The legs of every pot or Cherki settlement in the period that paid revenue, per transaction."""
    txs = LedgerTransaction.objects.filter(key__startswith="table:", key__endswith=":settle",
                                           entries__account__kind=AccountKind.REVENUE, **_in(period_, "")).values("pk")
    found: dict[int, _Settlement] = defaultdict(_Settlement)
    for tx_id, key, kind, currency, amount in Entry.objects.filter(transaction_id__in=Subquery(txs)).values_list(
            "transaction_id", "transaction__key", "account__kind", "account__currency", "amount"):
        s = found[tx_id]
        s.table_id = int(_TABLE_KEY.match(key).group(1))
        if kind == AccountKind.TABLE_ESCROW and amount < 0:
            s.pot[currency] -= amount
        elif kind == AccountKind.ISSUANCE and currency == Currency.KELERENG and amount < 0:
            s.issued_kel -= amount
        elif kind == AccountKind.PLAYER and amount > 0:
            s.paid = True
    return found


def _rake_bps(table_ids: Iterable[int]) -> dict[int, int]:
    bps: dict[int, int] = {}
    for chunk in _chunks(table_ids):
        bps.update(TableTerms.objects.filter(table_id__in=chunk).values_list("table_id", "rake_bps"))
    return bps


def _split_settlement(amount: int, currency: str, settlement: _Settlement, rake_bps: int | None) -> dict[str, int]:
    """A pot settlement's revenue leg: the rake the rule takes (floor(pot × bps / 10000)); for a Mutiara
    pot, the prize issued in Kelereng (converted); the rest is what forfeiting players left (the whole pot
    when no first place was still in)."""
    pot = settlement.pot.get(currency, 0)
    converted = min(settlement.issued_kel, amount) if currency == Currency.MUTIARA else 0
    if rake_bps is not None:
        rake = pot * rake_bps // 10_000
    else:  # no frozen terms (not written by table_money): a paid prize means the leg was the rake
        rake = amount - converted if settlement.paid else 0
    rake = max(0, min(rake, amount - converted))
    return {RAKE: rake, CONVERTED: converted, FORFEITS: amount - converted - rake}


def iter_revenue_lines(*, period: Period) -> Iterator[RevenueLine]:
    """Every revenue leg of the period, once, classified by its posting's key."""
    settlements = _settlements(period)
    terms = _rake_bps(s.table_id for s in settlements.values())
    legs = (Entry.objects.filter(account__kind=AccountKind.REVENUE, **_in(period))
            .values_list("pk", "transaction_id", "transaction__key", "transaction__created_at", "account__currency",
                         "amount").order_by("pk"))
    for entry_id, tx_id, key, created_at, currency, amount in legs.iterator(chunk_size=2000):
        line = RevenueLine(entry_id=entry_id, key=key, day=_day(created_at), currency=currency, amount=amount,
                           source="other", source_id=None)
        table = _TABLE_KEY.match(key)
        escrowed = _TOURNAMENT_KEY.match(key) or _ARENA_KEY.match(key)
        if table:
            line.source, line.source_id = "table", int(table.group(1))
            what = table.group(2)
            if what == "settle" and tx_id in settlements and amount > 0:
                line.parts = _split_settlement(amount, currency, settlements[tx_id], terms.get(line.source_id))
            elif what == "stop":
                line.parts = {FORFEITS: amount}
            elif _HAND.match(what):
                line.parts = {RAKE: amount}
        elif escrowed:  # a tournament's or an arena's prize pool: the same postings (settle_escrow)
            line.source, line.source_id = key.split(":", 1)[0], int(escrowed.group(1))
            what = escrowed.group(2)
            if what == "prizes":
                line.parts = {RAKE: amount}
            elif what == "cancel":
                line.parts = {FORFEITS: amount}
        if not line.parts:
            line.parts = {OTHER: amount}
        line.parts = {c: a for c, a in line.parts.items() if a}
        yield line


def revenue_rows(*, period: Period) -> list[dict]:
    """Revenue by day, source (room, tournament or arena), game and currency, with a total per row."""
    by_table: dict[tuple, dict[str, int]] = defaultdict(lambda: dict.fromkeys(CATEGORIES, 0))
    for line in iter_revenue_lines(period=period):
        sums = by_table[(line.day, line.source, line.source_id, line.currency)]
        for category, amount in line.parts.items():
            sums[category] += amount
    rooms = _rooms_of(sid for (_d, source, sid, _c) in by_table if source == "table")
    tournaments = _tournaments(sid for (_d, source, sid, _c) in by_table if source == "tournament")
    arenas = _arenas(sid for (_d, source, sid, _c) in by_table if source == "arena")
    grouped: dict[tuple, dict] = {}
    for (day, source, sid, currency), sums in by_table.items():
        if source == "table" and sid in rooms:
            room = rooms[sid]
            ident = ("room", room["id"], room["name"], room["game"])
        elif source == "table":
            ident = ("room", None, gettext("table %(id)s (unknown)") % {"id": sid}, "")
        elif source == "tournament":
            t = tournaments.get(sid, {"name": gettext("tournament %(id)s") % {"id": sid}, "game": ""})
            ident = ("tournament", sid, t["name"], t["game"])
        elif source == "arena":
            a = arenas.get(sid, {"name": gettext("arena %(id)s") % {"id": sid}, "game": ""})
            ident = ("arena", sid, a["name"], a["game"])
        else:
            ident = ("other", None, gettext("other postings"), "")
        row = grouped.setdefault((day, *ident, currency), {
            "day": day, "source": ident[0], "source_id": ident[1], "name": ident[2], "game": ident[3],
            "currency": currency, **dict.fromkeys(CATEGORIES, 0)})
        for category, amount in sums.items():
            row[category] += amount
    rows = sorted(grouped.values(), key=lambda r: (r["day"], r["currency"], r["source"], r["name"], r["source_id"] or 0))
    for row in rows:
        row["total"] = sum(row[c] for c in CATEGORIES)
    return rows


def revenue_totals(rows: Iterable[dict]) -> list[dict]:
    """Per currency: each category and the total over ``revenue_rows``."""
    totals: dict[str, dict] = {}
    for row in rows:
        t = totals.setdefault(row["currency"], {"currency": row["currency"], **dict.fromkeys((*CATEGORIES, "total"), 0)})
        for name in (*CATEGORIES, "total"):
            t[name] += row[name]
    return [totals[c] for c in sorted(totals)]


def revenue_movement(*, period: Period) -> dict[str, int]:
    """Straight from the ledger: what the revenue accounts gained in the period, per currency."""
    return dict(Entry.objects.filter(account__kind=AccountKind.REVENUE, **_in(period))
                .values("account__currency").annotate(total=Sum("amount")).values_list("account__currency", "total"))


# ----- tournaments and arenas ---------------------------------------------------------------------

TOURNAMENT_FIELDS = ("entries", "fees", "refunds", "prizes", "rake", "forfeits", "escrow_change")
ARENA_FIELDS = TOURNAMENT_FIELDS


def _escrow_rows(*, period: Period, prefix: str, pattern: re.Pattern, escrow_kind: str, id_field: str,
                 names_of: Callable[[Iterable[int]], dict[int, dict]], fallback: str) -> list[dict]:
    """Per prize pool (a tournament's or an arena's: the same postings) and currency, read from the legs of
    the postings keyed ``<prefix>:<id>:<what>...`` (``pattern`` reads the id and the rest)."""
    rows: dict[tuple[int, str], dict] = {}
    legs = (Entry.objects.filter(transaction__key__startswith=f"{prefix}:", **_in(period))
            .values_list("transaction__key", "account__kind", "account__currency", "amount").order_by("pk"))
    for key, kind, currency, amount in legs.iterator(chunk_size=2000):
        match = pattern.match(key)
        if match is None:
            continue
        pk, what = int(match.group(1)), match.group(2).split(":", 1)[0]
        if kind not in (escrow_kind, AccountKind.PLAYER, AccountKind.REVENUE):
            continue  # bot top-ups from issuance: the bots section counts them
        if (kind == AccountKind.PLAYER and what == "entry") or what == "botfund":
            continue  # the escrow leg of an entry counts it; a top-up is not the pool's money
        row = rows.setdefault((pk, currency), {id_field: pk, "currency": currency,
                                               **dict.fromkeys(TOURNAMENT_FIELDS, 0)})
        if kind == escrow_kind:
            row["escrow_change"] += amount
            if what == "entry":
                row["entries"] += 1
                row["fees"] += amount
        elif kind == AccountKind.PLAYER:
            row["prizes" if what == "prizes" else "refunds"] += amount
        else:
            row["rake" if what == "prizes" else "forfeits"] += amount
    found = names_of(pk for pk, _c in rows)
    out = []
    for (pk, _currency), row in sorted(rows.items()):
        named = found.get(pk, {"name": fallback % {"id": pk}, "game": ""})
        out.append({**row, "name": named["name"], "game": named["game"]})
    return out


def tournament_rows(*, period: Period) -> list[dict]:
    """Per tournament and currency: entries paid (count and fees), refunds, prizes, rake, forfeits, and the
    change of its escrow (fees − refunds − prizes − rake − forfeits when nothing else touched it)."""
    return _escrow_rows(period=period, prefix="tournament", pattern=_TOURNAMENT_KEY,
                        escrow_kind=AccountKind.TOURNAMENT_ESCROW, id_field="tournament_id", names_of=_tournaments, fallback=gettext("tournament %(id)s"))


def arena_rows(*, period: Period) -> list[dict]:
    """Per arena and currency, as ``tournament_rows``: entries (a player's every registration) and fees,
    refunds (withdrawn before the start, or the arena cancelled), prizes, rake and the escrow's change."""
    return _escrow_rows(period=period, prefix="arena", pattern=_ARENA_KEY, escrow_kind=AccountKind.ARENA_ESCROW,
                        id_field="arena_id", names_of=_arenas, fallback=gettext("arena %(id)s"))


# ----- bots ---------------------------------------------------------------------------------------

BOT_FIELDS = ("welcome", "funded", "play", "change")


def bot_rows(*, period: Period) -> list[dict]:
    """Per bot and currency: welcome grant, top-ups from issuance, the net result of play (entries,
    pots, hands, refunds, tournament fees and prizes) and the wallet's change over the period."""
    rows: dict[tuple[int, str], dict] = {}
    for row in (Entry.objects.filter(account__kind=AccountKind.PLAYER, account__user__is_bot=True, **_in(period))
                .values("account__user_id", "account__user__username", "account__currency", "transaction__kind")
                .annotate(total=Sum("amount")).order_by()):
        out = rows.setdefault((row["account__user_id"], row["account__currency"]), {
            "bot_id": row["account__user_id"], "bot": row["account__user__username"],
            "currency": row["account__currency"], **dict.fromkeys(BOT_FIELDS, 0)})
        kind = row["transaction__kind"]
        out["welcome" if kind == TxKind.WELCOME else "funded" if kind == TxKind.BOT_FUNDING else "play"] += row["total"]
        out["change"] += row["total"]
    return sorted(rows.values(), key=lambda r: (r["bot"], r["currency"]))


# ----- write-offs ---------------------------------------------------------------------------------

BAILOUT, CHERKI_SHORTFALL = "bailout", "cherki_shortfall"


def writeoff_rows(*, period: Period) -> list[dict]:
    """By day, kind and room: 31 bailouts (Chip issued; the debt written off is what the wallet was
    below zero, i.e. the amount less the balance it was brought back to) and Cherki shortfalls (what a
    loser could not pay, covered by issuance so the winner was paid in full)."""
    # The wallet's balance right after its bailout: its entries up to this one (one account's entries
    # are numbered in posting order, as its row lock orders the postings).
    after = (Entry.objects.filter(account_id=OuterRef("account_id"), pk__lte=OuterRef("pk")).order_by()
             .values("account_id").annotate(s=Sum("amount")).values("s"))
    items: list[tuple[date, str, str, int, int]] = []  # day, kind, key, issued, written off
    for key, created_at, amount, balance in (
            Entry.objects.filter(transaction__kind=TxKind.BAILOUT, account__kind=AccountKind.PLAYER, **_in(period))
            .annotate(after=Subquery(after)).values_list("transaction__key", "transaction__created_at", "amount",
                                                          "after").order_by("pk")):
        items.append((_day(created_at), BAILOUT, key, amount, amount - (balance or 0)))
    for key, created_at, amount in (
            Entry.objects.filter(account__kind=AccountKind.ISSUANCE, account__currency=Currency.CHIP, amount__lt=0,
                                 transaction__key__startswith="table:", transaction__key__endswith=":settle",
                                 **_in(period))
            .values_list("transaction__key", "transaction__created_at", "amount").order_by("pk")):
        items.append((_day(created_at), CHERKI_SHORTFALL, key, -amount, -amount))
    table_of = {key: int(m.group(1)) for _d, _k, key, _i, _w in items if (m := _TABLE_KEY.match(key))}
    rooms = _rooms_of(table_of.values())
    grouped: dict[tuple, dict] = {}
    for day, kind, key, issued, written_off in items:
        room = rooms.get(table_of.get(key, -1), {"id": None, "name": "", "game": ""})
        row = grouped.setdefault((day, kind, room["id"] or 0), {
            "day": day, "kind": kind, "room_id": room["id"], "name": room["name"], "game": room["game"],
            "currency": Currency.CHIP.value, "count": 0, "issued": 0, "written_off": 0})
        row["count"] += 1
        row["issued"] += issued
        row["written_off"] += written_off
    return sorted(grouped.values(), key=lambda r: (r["day"], r["kind"], r["name"]))


# ----- the whole report ---------------------------------------------------------------------------

def report(*, period: Period) -> dict:
    """Every section for ``period``, the revenue totals per currency and the check against the ledger."""
    revenue = revenue_rows(period=period)
    totals = revenue_totals(revenue)
    movement = revenue_movement(period=period)
    for total in totals:
        total["ledger"] = movement.get(total["currency"], 0)
        total["matches"] = total["ledger"] == total["total"]
    for currency in sorted(set(movement) - {t["currency"] for t in totals}):  # cannot happen: shown if it does
        totals.append({"currency": currency, **dict.fromkeys((*CATEGORIES, "total"), 0), "ledger": movement[currency],
                       "matches": movement[currency] == 0})
    return {"period": period, "revenue": revenue, "totals": totals, "tournaments": tournament_rows(period=period),
            "arenas": arena_rows(period=period), "bots": bot_rows(period=period),
            "writeoffs": writeoff_rows(period=period)}


# What each section's columns are called (the admin's tables and CSV headers, in this order).
COLUMNS: dict[str, list[tuple[str, object]]] = {
    "revenue": [("day", _("day")), ("source", _("source")), ("name", _("room, tournament or arena")),
                ("game", _("game")),
                ("currency", _("currency")), (RAKE, _("rake")), (FORFEITS, _("forfeits")),
                (CONVERTED, _("Mutiara pots paid in Kelereng")), (OTHER, _("other")), ("total", _("total"))],
    "tournaments": [("tournament_id", _("id")), ("name", _("tournament")), ("game", _("game")),
                    ("currency", _("currency")), ("entries", _("entries")), ("fees", _("entry fees")),
                    ("refunds", _("refunds")), ("prizes", _("prizes")), ("rake", _("rake")),
                    ("forfeits", _("forfeits")), ("escrow_change", _("prize pool change"))],
    "arenas": [("arena_id", _("id")), ("name", _("arena")), ("game", _("game")), ("currency", _("currency")),
               ("entries", _("entries")), ("fees", _("entry fees")), ("refunds", _("refunds")),
               ("prizes", _("prizes")), ("rake", _("rake")), ("forfeits", _("forfeits")),
               ("escrow_change", _("prize pool change"))],
    "bots": [("bot", _("bot")), ("currency", _("currency")), ("welcome", _("welcome grant")),
             ("funded", _("top-ups from issuance")), ("play", _("result of play")), ("change", _("wallet change"))],
    "writeoffs": [("day", _("day")), ("kind", _("kind")), ("name", _("room")), ("game", _("game")),
                  ("currency", _("currency")), ("count", _("count")), ("issued", _("issued")),
                  ("written_off", _("debt written off"))],
}
