"""The matcher's pure part: from waiting units to groups. No Django, no clock, no I/O.

A *unit* is one waiting player, or a party (play again) that must sit together. For each room
the planner walks units oldest first (the anchor), and grows the anchor's group with the
closest ratings still free, expanding outward in rating order. Before the room's fill delay a
candidate is accepted only when the gap fits both players' windows
(``base + per_second * waited``, at most ``max_gap``), and a group forms only when it fills
every seat. Once the anchor has waited the fill delay (AI Arena: at once) the gap no longer
matters: every waiting human who fits is taken first, closest first, and only the seats left
over are given to bots — a bot never takes a seat a waiting human could take.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Unit:
    entries: list[int]  # queue entry ids
    rating: float  # mean mu of the members
    waited: float  # seconds since the oldest member joined
    size: int = 1
    party: str = ""


@dataclass
class Group:
    units: list[Unit] = field(default_factory=list)
    seat_count: int = 0
    bots: int = 0

    @property
    def entries(self) -> list[int]:
        return [e for u in self.units for e in u.entries]

    @property
    def humans(self) -> int:
        return sum(u.size for u in self.units)


@dataclass(frozen=True)
class RoomRules:
    seats: int
    min_seats: int
    fill_delay_s: float
    bots_only: bool = False
    bots_available: int = 0  # distinct bot accounts able to sit
    bot_tables: str = "min"  # "min": a bot-filled table has max(min_seats, humans) seats; "full": every seat


@dataclass(frozen=True)
class Gaps:
    base: float = 3.0
    per_second: float = 0.5
    max: float = 15.0

    def window(self, waited: float) -> float:
        return min(self.max, self.base + self.per_second * max(0.0, waited))


def plan_room(units: list[Unit], rules: RoomRules, gaps: Gaps) -> list[Group]:
    """Groups to seat now for one room; units left out keep waiting."""
    if rules.bots_only:
        return _plan_bots_only(units, rules)
    n = len(units)
    if n == 0:
        return []
    order = sorted(range(n), key=lambda i: units[i].rating)
    prev = [-1] * n
    nxt = [-1] * n
    for k, i in enumerate(order):
        prev[i] = order[k - 1] if k > 0 else -1
        nxt[i] = order[k + 1] if k + 1 < n else -1
    used = [False] * n

    def unlink(i: int) -> None:
        p, q = prev[i], nxt[i]
        if p >= 0:
            nxt[p] = q
        if q >= 0:
            prev[q] = p
        used[i] = True

    groups: list[Group] = []
    for a in sorted(range(n), key=lambda i: (-units[i].waited, units[i].entries[0])):
        if used[a] or units[a].size > rules.seats:
            continue
        anchor = units[a]
        fill = anchor.waited >= rules.fill_delay_s
        win_a = gaps.window(anchor.waited)
        members = [a]
        size = anchor.size
        left, right = prev[a], nxt[a]
        while size < rules.seats and (left >= 0 or right >= 0):
            gap_l = anchor.rating - units[left].rating if left >= 0 else float("inf")
            gap_r = units[right].rating - anchor.rating if right >= 0 else float("inf")
            if gap_l <= gap_r:
                c, gap, left = left, gap_l, prev[left]
            else:
                c, gap, right = right, gap_r, nxt[right]
            if not fill:
                if gap > win_a:
                    break  # every further unit is further away
                if gap > gaps.window(units[c].waited):
                    continue
            if size + units[c].size > rules.seats:
                continue
            members.append(c)
            size += units[c].size
        if size == rules.seats:
            group = Group([units[i] for i in members], rules.seats, 0)
        elif fill:
            table = rules.seats if rules.bot_tables == "full" else max(rules.min_seats, size)
            bots = table - size
            if bots > rules.bots_available:
                continue
            group = Group([units[i] for i in members], table, bots)
        else:
            continue
        for i in members:
            unlink(i)
        groups.append(group)
    return groups


def _plan_bots_only(units: list[Unit], rules: RoomRules) -> list[Group]:
    """One human per table, every other seat a bot, as soon as the fill delay allows."""
    groups = []
    need = rules.seats - 1
    if need > rules.bots_available:
        return []
    for unit in sorted(units, key=lambda u: (-u.waited, u.entries[0])):
        if unit.size == 1 and unit.waited >= rules.fill_delay_s:
            groups.append(Group([unit], rules.seats, need))
    return groups
