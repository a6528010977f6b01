"""Pure tournament logic: table balancing, ranking, prizes and brackets (no Django, no I/O).

Everything here is deterministic plain data so it can be tested exhaustively (tests/tournaments/
test_logic.py, hypothesis). The services layer maps entries and tables onto these functions.

Readings (docs/tournaments.md):
- The 31 freezeout plays **hand for hand**: every table plays one hand, then the tournament ranks the
  round's busts, rebalances and deals the next hand everywhere. Busts of one round are "the same hand".
- A table keeps its own hand count; a table receiving players takes the highest count of the tables
  they came from (spec: "a table formed by balancing takes the highest count").
- Balancing: first break tables down to ``ceil(players / seats)``; the table broken is the one that
  empties best: the fewest players (ties: the highest table id); its players go one by one, in seat
  order from ebe altı, to the smallest table (ties: the lowest id). Then, while the largest table has
  two players more than the smallest, the largest (ties: the highest id) gives the player who would be
  its next ebe altı to the smallest (ties: the lowest id). A moved player takes the last seat.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


class LogicError(ValueError):
    """Bad input to a pure function (stable ``code``)."""

    def __init__(self, code: str, message: str, **params: object) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.params = params  # the numbers in the message, for a translated wording


# ----- 31 tables and balancing ----------------------------------------------------------------

@dataclass
class TableState:
    """One tournament table between hands: players (entry ids) in seat order, hand count, ebe."""

    id: int
    players: list[int]
    hands: int = 0
    ebe: int | None = None

    def copy(self) -> TableState:
        return TableState(self.id, list(self.players), self.hands, self.ebe)


@dataclass
class Move:
    player: int
    from_table: int
    to_table: int


@dataclass
class Balance:
    tables: list[TableState]
    moves: list[Move] = field(default_factory=list)
    broken: list[int] = field(default_factory=list)


def tables_needed(players: int, seats: int) -> int:
    if seats < 2:
        raise LogicError("bad_seats", "A table seats at least two players.")
    return max(1, math.ceil(players / seats)) if players else 0


def pass_ebe(order: list[int], ebe: int | None, staying: set[int] | list[int]) -> int | None:
    """The ebe after players left ``order``: the ebe if it stays, else the next staying seat (ebe altı)."""
    staying = set(staying)
    if not order:
        return None
    if ebe in staying:
        return ebe
    start = order.index(ebe) if ebe in order else -1
    for k in range(1, len(order) + 1):
        player = order[(start + k) % len(order)]
        if player in staying:
            return player
    return None


def play_order_from_ebe_alti(table: TableState) -> list[int]:
    """Seat order starting from ebe altı (the seat after the ebe), ebe last."""
    players = table.players
    if not players:
        return []
    start = players.index(table.ebe) + 1 if table.ebe in players else 0
    return [players[(start + k) % len(players)] for k in range(len(players))]


def _smallest(tables: list[TableState], exclude: int | None = None) -> TableState:
    return min((t for t in tables if t.id != exclude), key=lambda t: (len(t.players), t.id))


def _largest(tables: list[TableState]) -> TableState:
    return max(tables, key=lambda t: (len(t.players), t.id))


def _seat(target: TableState, player: int, source: TableState) -> None:
    target.players.append(player)
    target.hands = max(target.hands, source.hands)


def balance(tables: list[TableState], *, seats: int) -> Balance:
    """Break and even out tables so sizes differ by at most one, with the fewest tables possible.

    ``tables`` hold only players still in (eliminated players removed beforehand). Returns new
    table states (inputs are not changed), the moves made and the ids of broken tables.
    """
    if seats < 2:
        raise LogicError("bad_seats", "A table seats at least two players.")
    work = [t.copy() for t in tables if t.players]
    ids = [t.id for t in tables]
    if len(set(ids)) != len(ids):
        raise LogicError("duplicate_table", "Table ids must be unique.")
    everyone = [p for t in work for p in t.players]
    if len(set(everyone)) != len(everyone):
        raise LogicError("duplicate_player", "A player sits at two tables.")
    for t in work:
        if t.ebe is not None and t.ebe not in t.players:
            t.ebe = t.players[0]
    result = Balance(tables=work, broken=[t.id for t in tables if not t.players])
    needed = tables_needed(len(everyone), seats)
    while len(work) > needed:
        victim = min(work, key=lambda t: (len(t.players), -t.id))
        work.remove(victim)
        result.broken.append(victim.id)
        for player in play_order_from_ebe_alti(victim):
            target = _smallest(work)
            _seat(target, player, victim)
            result.moves.append(Move(player, victim.id, target.id))
    while work:
        big, small = _largest(work), _smallest(work)
        if len(big.players) - len(small.players) <= 1:
            break
        player = play_order_from_ebe_alti(big)[0]
        if player == big.ebe:  # a table of one: impossible when sizes differ by two, kept for safety
            break
        big.players.remove(player)
        _seat(small, player, big)
        result.moves.append(Move(player, big.id, small.id))
    for t in work:
        if len(t.players) > seats:
            raise LogicError("overfull", "Balancing could not seat everyone.")  # pragma: no cover
    result.tables = sorted(work, key=lambda t: t.id)
    return result


def seat_players(players: list[int], *, seats: int, first_id: int = 1) -> list[TableState]:
    """The opening draw: ``ceil(n / seats)`` tables, sizes within one, players dealt round robin."""
    count = tables_needed(len(players), seats)
    tables = [TableState(first_id + i, []) for i in range(count)]
    for index, player in enumerate(players):
        tables[index % count].players.append(player)
    return tables


def seat_late(tables: list[TableState], players: list[int], *, seats: int, next_id: int) -> list[TableState]:
    """Seat late entrants (and re-entries) between hands: each takes the last seat of the smallest table
    with a free seat (ties: the lowest id); when every table is full, a new table (``next_id``, then on)
    takes them, at the highest hand count so nobody's ante goes back. ``balance`` evens out afterwards.
    Returns new table states (inputs are not changed)."""
    if seats < 2:
        raise LogicError("bad_seats", "A table seats at least two players.")
    work = [t.copy() for t in tables]
    seated = {p for t in work for p in t.players}
    if len(set(players)) != len(players) or seated & set(players):
        raise LogicError("duplicate_player", "A late entrant is seated already.")
    hands = max((t.hands for t in work), default=0)
    for player in players:
        free = [t for t in work if len(t.players) < seats]
        if free:
            target = min(free, key=lambda t: (len(t.players), t.id))
        else:
            target = TableState(next_id, [], hands)
            next_id += 1
            work.append(target)
        target.players.append(player)
    return work


# ----- ranking and prizes ---------------------------------------------------------------------

@dataclass(frozen=True)
class Bust:
    player: int
    start_stack: int
    seat: int = 0  # engine seat at the table where the player went out (the share tie-break)
    # A leave (or removal): ``(now_ms, seq)`` of the leave move; None: out at the end of the hand.
    left_at: tuple[int, int] | None = None


def rank_busts(busts: list[Bust], *, remaining: int) -> dict[int, int]:
    """Places for players out in the same hand, all below the ``remaining`` players.

    Spec (otuzbir.md, Tournament): players out at the end of the hand rank by start stack; equal
    start stacks share the best place they cover ("competition" ranks: two sharing 5th are both 5th
    and the next is 7th). A leaver went out at that moment: below those, the later leave ranking
    higher, and never sharing a place. Leaves in the same millisecond go by move number (exact at one
    table; across tables only a fixed tie-break), then the larger start stack, then the smaller
    player id (docs/tournaments.md).
    """
    ended = [b for b in busts if b.left_at is None]
    leavers = [b for b in busts if b.left_at is not None]
    places: dict[int, int] = {}
    for bust in ended:
        better = sum(1 for other in ended if other.start_stack > bust.start_stack)
        places[bust.player] = remaining + 1 + better
    latest_first = sorted(leavers, key=lambda b: (b.left_at, b.start_stack, -b.player), reverse=True)
    for k, bust in enumerate(latest_first):
        places[bust.player] = remaining + len(ended) + 1 + k
    return places


# ----- payout structures ----------------------------------------------------------------------
# A structure is rows "from N entrants: [p1, p2, ...]": percentages of the prize pool per place, kept
# in hundredths of a percent (``70`` is 7000, ``33.33`` is 3333) so every sum is exact. The row that
# applies is the one with the largest N not above the entrant count.

WHOLE = 10_000  # 100 % in hundredths of a percent
# economy.md / otuzbir.md: "With 4 or more entrants: first 70%, second 30%; with fewer, first takes all."
DEFAULT_ROWS: list[tuple[int, list[int]]] = [(1, [WHOLE]), (4, [7_000, 3_000])]


def parse_percents(text: str) -> list[int]:
    """"70, 30" -> [7000, 3000]: whole percentages or at most two decimals, each above 0, summing to 100,
    each place paying no more than the place above it (a typo such as "30, 70" is refused)."""
    from decimal import Decimal, InvalidOperation

    parts = [p.strip() for p in str(text).replace(";", ",").split(",") if p.strip()]
    if not parts:
        raise LogicError("no_percents", "List the percentage of each paid place, e.g. 70, 30.")
    values: list[int] = []
    for part in parts:
        try:
            number = Decimal(part.rstrip("%").strip())
        except InvalidOperation:
            raise LogicError("bad_percent", f"{part!r} is not a percentage.") from None
        if not number.is_finite() or number <= 0:
            raise LogicError("bad_percent", f"{part!r}: each paid place gets more than 0 %.")
        hundredths = number * 100
        if hundredths != hundredths.to_integral_value():
            raise LogicError("bad_percent", f"{part!r}: at most two decimals.")
        values.append(int(hundredths))
    if sum(values) != WHOLE:
        total = format_percent(sum(values))
        raise LogicError("bad_sum", f"The percentages add up to {total} %, not 100 %.", sum=total)
    if any(later > earlier for earlier, later in zip(values, values[1:], strict=False)):
        raise LogicError("bad_order", "Each place pays no more than the place above it.")
    return values


def format_percent(hundredths: int) -> str:
    """7000 -> "70", 3333 -> "33.33", 1250 -> "12.5"."""
    whole, frac = divmod(hundredths, 100)
    return f"{whole}" if not frac else f"{whole}.{frac:02d}".rstrip("0")


def check_rows(rows: list[tuple[int, list[int]]]) -> None:
    """A structure covers every tournament: a row from 2 entrants or fewer, one row per entrant count,
    and no row pays more places than it has entrants."""
    froms = [n for n, _ in rows]
    if len(set(froms)) != len(froms):
        raise LogicError("duplicate_row", "Two rows start at the same number of entrants.")
    if not froms or min(froms) > 2:
        raise LogicError("no_small_row", "Add a row from 1 or 2 entrants: every tournament needs a split.")
    for n, percents in rows:
        if n < 1:
            raise LogicError("bad_row", "A row starts at 1 entrant or more.")
        if len(percents) > n:
            raise LogicError("too_many_places", f"From {n} entrants the row pays {len(percents)} places: "
                                                f"at most {n}.", places=len(percents), n=n)
        if sum(percents) != WHOLE:
            total = format_percent(sum(percents))
            raise LogicError("bad_sum", f"The row from {n} entrants adds up to {total} %, not 100 %.", sum=total)


def payout_percents(*, rows: list[tuple[int, list[int]]] | None, entrants: int) -> list[int]:
    """The percentages (hundredths) of the row for ``entrants``: the largest "from" not above it; below
    every row (0 entrants, say) the smallest row; no rows at all: the winner takes all."""
    usable = sorted((n, list(p)) for n, p in (rows or []))
    if not usable:
        return [WHOLE]
    chosen = usable[0][1]
    for n, percents in usable:
        if n <= entrants:
            chosen = percents
    return chosen


def prize_split(*, pool: int, percents: list[int]) -> list[int]:
    """Prize per place: ``floor(pool × p / 100 %)`` for every place but the first, whose prize is the rest
    (the remainder chips of the rounding go to the best place, economy.md)."""
    if pool < 0:
        raise LogicError("bad_pool", "The pool is a whole number >= 0.")
    if not percents or sum(percents) != WHOLE or any(p <= 0 for p in percents):
        raise LogicError("bad_percents", "The percentages must be above 0 and add up to 100 %.")
    rest = [pool * p // WHOLE for p in percents[1:]]
    return [pool - sum(rest), *rest]


def prize_table(*, pool: int, entrants: int, rows: list[tuple[int, list[int]]] | None = None) -> list[int]:
    """Prize per place for ``entrants`` under a payout structure (default: the seeds' 70/30 from 4
    entrants, the winner taking all below); remainders to 1st."""
    if pool < 0 or entrants < 0:
        raise LogicError("bad_pool", "The pool and entrant count are whole numbers >= 0.")
    return prize_split(pool=pool, percents=payout_percents(rows=DEFAULT_ROWS if rows is None else rows,
                                                            entrants=entrants))


def split_places(*, places: dict[int, int], prizes: list[int], seats: dict[int, int] | None = None) -> dict[int, int]:
    """Prize per player: players sharing a place sum the prizes of the places they cover and split
    them evenly, the remainder to the smallest seat number (then the smallest player id)."""
    seats = seats or {}
    groups: dict[int, list[int]] = {}
    for player, place in places.items():
        groups.setdefault(place, []).append(player)
    paid: dict[int, int] = {}
    for place, group in groups.items():
        covered = prizes[place - 1: place - 1 + len(group)]
        total = sum(covered)
        if not total:
            continue
        share, remainder = divmod(total, len(group))
        order = sorted(group, key=lambda p: (seats.get(p, 0), p))
        for index, player in enumerate(order):
            amount = share + (remainder if index == 0 else 0)
            if amount:
                paid[player] = amount
    return paid


# ----- brackets (Lembar, Cherki, Baloot pairs) ------------------------------------------------

def bracket_rounds(n: int, k: int) -> int:
    """Rounds of a single-elimination bracket of tables of ``k`` for ``n`` entrants."""
    if k < 2:
        raise LogicError("bad_table_size", "A bracket table holds at least two entrants.")
    if n < 2:
        raise LogicError("too_few", "A bracket needs at least two entrants.")
    rounds, cap = 1, k
    while cap < n:
        cap *= k
        rounds += 1
    return rounds


def first_round(entrants: list[int], *, k: int, low: int) -> list[list[int]]:
    """Round one: groups of entrants; a group of one is a bye. Later rounds are full tables of ``k``.

    ``k`` is the table size, ``low`` the fewest players a table may start with (Lembar 2, Cherki 3,
    Baloot 2 teams). The number of groups is ``k ** (rounds - 1)``, so every later round is full;
    byes are the fewest possible and go to the earliest registered entrants, spread over the bracket.
    """
    n = len(entrants)
    if len(set(entrants)) != n:
        raise LogicError("duplicate_entrant", "An entrant appears twice.")
    rounds = bracket_rounds(n, k)
    m = k ** (rounds - 1)
    if low >= k:
        if (n - m) % (k - 1):
            raise LogicError("uneven_bracket", f"{n} entrants cannot fill tables of {k} down to one winner.")
        tables = (n - m) // (k - 1)
        sizes = [k] * tables
    else:
        low = max(2, low)
        byes_min = max(0, 2 * m - n) if low == 2 else 0
        tables = m - byes_min
        while tables > 0 and (n - (m - tables)) < low * tables:
            tables -= 1  # fewer, fuller tables when the minimum size is above two
        players = n - (m - tables)
        if tables == 0 or players > k * tables:
            raise LogicError("uneven_bracket", f"{n} entrants cannot form a bracket of tables of {low}–{k}.")
        base, extra = divmod(players, tables)
        sizes = [base + (1 if i < extra else 0) for i in range(tables)]
    byes = m - len(sizes)
    # Byes first (earliest registrations), then the tables; spread so round two mixes them.
    slots: list[list[int]] = []
    cursor = 0
    for _ in range(byes):
        slots.append([entrants[cursor]])
        cursor += 1
    for size in sizes:
        slots.append(entrants[cursor: cursor + size])
        cursor += size
    return _spread(slots, k)


def _spread(groups: list[list[int]], k: int) -> list[list[int]]:
    """Reorder groups so each round-two table takes byes and tables alike (column-wise deal)."""
    tables = max(1, len(groups) // k)
    buckets: list[list[list[int]]] = [[] for _ in range(tables)]
    for index, group in enumerate(groups):
        buckets[index % tables].append(group)
    return [g for bucket in buckets for g in bucket]


def next_round(winners: list[int], *, k: int) -> list[list[int]]:
    """The next round's tables: consecutive winners in bracket order, ``k`` to a table."""
    if len(winners) < 2:
        return []
    return [winners[i: i + k] for i in range(0, len(winners), k)]
