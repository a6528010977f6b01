"""Quick-play queues and the matcher: joining and leaving, forming groups, seating a match.

Every seat is taken through ``rooms.services`` (which holds the table's row lock and runs the
money hooks); a money refusal there (``insufficient_funds`` ...) refuses that player's queue
entry with the same code. Pushes and task enqueues run after commit.
"""

from __future__ import annotations

import logging
import random
import time
from collections import defaultdict
from datetime import datetime, timedelta

from django.db import IntegrityError, connection, transaction
from django.utils import timezone, translation

from core.transactions import after_commit
from matchmaking import conf, planner
from matchmaking.errors import QueueError
from matchmaking.models import ACTIVE_STATUSES, DEFAULT_MU, EntryStatus, Match, MatchStatus, QueueEntry, Rating
from rooms import services as rooms_services
from rooms.errors import TableError
from rooms.models import Room, Seat, SeatStatus, TableStatus
from wallets import selectors as wallet_selectors
from wallets import services as wallet_services
from wallets.models import Currency

log = logging.getLogger(__name__)

# Table errors that concern the room or table, not the player who happened to be sitting down.
TABLE_WIDE_CODES = {"room_closed", "bad_seat_count", "bad_options", "no_such_table", "table_not_open"}
# Codes that refuse the whole group (nobody can be seated in this room now).
ROOM_REFUSAL_CODES = {"room_closed"}
UPDATE_CHUNK = 1000  # entries per conditional UPDATE in a matcher pass
PENDING_RETRY_S = 30  # a match still pending after this is handed to a worker again


def _after_commit(fn, *args) -> None:
    after_commit(fn, *args)


def _push_entries(entry_ids: list[int]) -> None:
    from matchmaking import broadcast

    broadcast.push_entries(entry_ids)


def _kick() -> None:
    from matchmaking import tasks

    tasks.kick_matcher(force=True)


def _enqueue_seat(match_ids: list[int]) -> None:
    from matchmaking import tasks

    for match_id in match_ids:
        tasks.enqueue_seat_match(match_id)


def _enqueue_room_push(room_ids: list[int]) -> None:
    from matchmaking import tasks

    for room_id in room_ids:
        tasks.enqueue_room_push(room_id)


# ----- joining and leaving -----------------------------------------------------------------

def mu_for(*, user, game: str) -> float:
    return Rating.objects.filter(user=user, game=game).values_list("mu", flat=True).first() or DEFAULT_MU


def _check_can_queue(*, room: Room, user) -> None:
    if user is None or not getattr(user, "is_authenticated", False):
        raise QueueError("not_authenticated", "Log in to play.")
    if user.is_bot:
        raise QueueError("bots_cannot_queue", "Bots are seated by the matcher, they do not queue.")
    if not room.is_open:
        raise QueueError("room_closed", "This room is closed.")
    busy = set(Seat.objects.filter(user=user, status=SeatStatus.SEATED, table__room=room,
                                   table__status__in=[TableStatus.OPEN, TableStatus.RUNNING])
               .values_list("table__status", flat=True))
    if TableStatus.RUNNING in busy:
        raise QueueError("already_playing", "You are already playing a game in this room.")
    if TableStatus.OPEN in busy:
        raise QueueError("already_seated", "You are already seated at a table in this room.")
    _check_funds(room=room, user=user)


def _check_funds(*, room: Room, user) -> None:
    """Refuse at once a player whose wallet cannot pay for a seat here (the seating would refuse them
    anyway, but only once a table forms: after the bot fill delay). Same code as the wallet's refusal."""
    wallet_services.release_welcome_if_due(user=user)  # as the sit would: a due welcome grant counts
    missing = wallet_selectors.shortfall(user=user, room=room)
    if missing is None:
        return
    with translation.override("en"):  # service messages are English; clients translate by code + details
        label = str(Currency(missing["currency"]).label)
        how = wallet_selectors.funding_help(currency=missing["currency"])
        if missing["welcome_pending"]:
            how += " " + wallet_selectors.welcome_pending_help()
    raise QueueError("insufficient_funds", f"A seat in {room.name} needs at least {missing['needed']} {label}; "
                     f"you have {missing['balance']}.", details={**missing, "how": how})


def queue_join(*, room: Room, user, party: str = "", now: datetime | None = None) -> QueueEntry:
    """Join a room's quick-play queue (one active entry per player, whatever the room)."""
    _check_can_queue(room=room, user=user)
    active = QueueEntry.objects.filter(user=user, status__in=ACTIVE_STATUSES).select_related("room").first()
    if active is not None:
        raise _already_queued(active, room)
    try:
        with transaction.atomic():
            entry = QueueEntry.objects.create(room=room, user=user, party=party, joined_at=now or timezone.now(),
                                              rating=mu_for(user=user, game=room.game))
    except IntegrityError:
        active = QueueEntry.objects.filter(user=user, status__in=ACTIVE_STATUSES).select_related("room").first()
        raise _already_queued(active, room) from None
    _after_commit(_push_entries, [entry.pk])
    _after_commit(_kick)
    return entry


def _already_queued(active: QueueEntry | None, room: Room) -> QueueError:
    if active is not None and active.room_id != room.pk:
        return QueueError("already_queued", f"You are already queued in {active.room.name}; leave it first.")
    return QueueError("already_queued", "You are already in this queue.")


def queue_leave(*, user) -> QueueEntry:
    """Leave the queue (also while being seated: the rest of the group goes back to waiting)."""
    with transaction.atomic():
        entry = (QueueEntry.objects.select_for_update().filter(user=user, status__in=ACTIVE_STATUSES)
                 .first() if getattr(user, "is_authenticated", False) else None)
        if entry is None:
            raise QueueError("not_queued", "You are not in a queue.")
        entry.status = EntryStatus.LEFT
        entry.ended_at = timezone.now()
        entry.save(update_fields=["status", "ended_at"])
    _after_commit(_push_entries, [entry.pk])
    _after_commit(_enqueue_room_push, [entry.room_id])
    return entry


# ----- the matcher ---------------------------------------------------------------------------

def _bots_available() -> int:
    from accounts.models import User

    return User.objects.filter(is_bot=True, is_active=True).count()


def _gaps() -> planner.Gaps:
    return planner.Gaps(conf.BASE_GAP, conf.GAP_PER_SECOND, conf.MAX_GAP)


def match_pass(*, now: datetime | None = None, stats: dict | None = None) -> list[int]:
    """One batched pass over every waiting entry: form groups, mark them matching, seat after commit.

    Waiting rows are locked with ``SELECT ... FOR UPDATE SKIP LOCKED``: a second matcher running
    at the same time sees none of the rows this one holds; the state change is a conditional
    update (waiting -> matching) checked row for row, and the partial unique constraint allows
    one active entry per player. Returns the ids of the matches formed; ``stats`` (if given)
    receives the phase timings in seconds.
    """
    now = now or timezone.now()
    clock = time.perf_counter
    marks = [clock()]
    with transaction.atomic():
        rows = list(QueueEntry.objects.select_for_update(skip_locked=True)
                    .filter(status=EntryStatus.WAITING)
                    .values_list("pk", "room_id", "party", "rating", "joined_at"))
        marks.append(clock())
        planned = _plan(rows, now) if rows else []
        marks.append(clock())
        match_ids = _create_matches(planned, now) if planned else []
        marks.append(clock())
        _retry_pending(now)
        if match_ids:
            _after_commit(_enqueue_seat, match_ids)
    marks.append(clock())
    if stats is not None:
        stats.update({"waiting": len(rows), "matches": len(match_ids), "lock_read_s": marks[1] - marks[0],
                      "plan_s": marks[2] - marks[1], "write_s": marks[3] - marks[2],
                      "commit_s": marks[4] - marks[3], "total_s": marks[4] - marks[0]})
    return match_ids


def _plan(rows: list[tuple], now: datetime) -> list[tuple[int, planner.Group]]:
    rooms = Room.objects.in_bulk({r[1] for r in rows})
    bots = _bots_available()
    by_room: dict[int, dict[str, planner.Unit]] = defaultdict(dict)
    for pk, room_id, party, rating, joined_at in rows:
        waited = (now - joined_at).total_seconds()
        units = by_room[room_id]
        key = party or pk
        unit = units.get(key)
        if unit is None:
            units[key] = planner.Unit([pk], rating, waited, 1, party)
        else:
            unit.rating = (unit.rating * unit.size + rating) / (unit.size + 1)
            unit.entries.append(pk)
            unit.size += 1
            unit.waited = max(unit.waited, waited)
    planned: list[tuple[int, planner.Group]] = []
    gaps = _gaps()
    closed: list[int] = []
    for room_id, units in by_room.items():
        room = rooms[room_id]
        if not room.is_open:
            closed += [e for unit in units.values() for e in unit.entries]
            continue
        rules = planner.RoomRules(seats=room.seats, min_seats=room.min_seats,
                                  fill_delay_s=0 if room.bots_only else room.fill_delay_seconds,
                                  bots_only=room.bots_only, bots_available=bots, bot_tables=conf.BOT_TABLES)
        planned += [(room_id, g) for g in planner.plan_room(list(units.values()), rules, gaps)]
    if closed:  # the room closed while they waited: tell them instead of leaving them waiting forever
        QueueEntry.objects.filter(pk__in=closed, status=EntryStatus.WAITING).update(
            status=EntryStatus.REFUSED, error_code="room_closed", error_message="This room is closed.",
            ended_at=now)
        _after_commit(_push_entries, closed)
    return planned


def _create_matches(planned: list[tuple[int, planner.Group]], now: datetime) -> list[int]:
    """Insert the matches and move their entries waiting -> matching (raw SQL: this is the hot path).

    Every value in the SQL is an ``int`` we produced (or a fixed choice), so it is written inline:
    thousands of bound parameters cost more client-side than the statements themselves.
    """
    table = Match._meta.db_table
    match_ids: list[int] = []
    with connection.cursor() as cursor:
        for start in range(0, len(planned), UPDATE_CHUNK):
            chunk = planned[start:start + UPDATE_CHUNK]
            values = ", ".join(f"({int(room_id)}, %s, {int(g.seat_count)}, {int(g.bots)}, '', %s, %s)"
                               for room_id, g in chunk)
            params = [x for _ in chunk for x in (MatchStatus.PENDING.value, now, now)]
            cursor.execute(f"INSERT INTO {table} (room_id, status, seat_count, bots, error_code, created_at, "
                           f"enqueued_at) VALUES {values} RETURNING id", params)
            match_ids += [row[0] for row in cursor.fetchall()]
    assignment = [(entry_id, match_id) for match_id, (_room, group) in zip(match_ids, planned, strict=True)
                  for entry_id in group.entries]
    for start in range(0, len(assignment), UPDATE_CHUNK):
        chunk = assignment[start:start + UPDATE_CHUNK]
        if _mark_matching(chunk) != len(chunk):  # cannot happen while we hold the row locks
            raise RuntimeError(f"queue entries {[e for e, _ in chunk][:8]}... changed under the matcher")
    return match_ids


def _mark_matching(chunk: list[tuple[int, int]]) -> int:
    """waiting -> matching with each entry's match, in one conditional UPDATE; returns the rows changed."""
    table = QueueEntry._meta.db_table
    if connection.vendor == "postgresql":
        values = ", ".join(f"({int(e)}::bigint, {int(m)}::bigint)" for e, m in chunk)
        source, entry_col, match_col = f"(VALUES {values}) AS v(entry_id, match_id)", "v.entry_id", "v.match_id"
    else:  # SQLite names VALUES columns column1, column2 (and reports rowcount only for a leading UPDATE)
        values = ", ".join(f"({int(e)}, {int(m)})" for e, m in chunk)
        source, entry_col, match_col = f"(VALUES {values}) AS v", "v.column1", "v.column2"
    sql = (f"UPDATE {table} SET status = %s, match_id = {match_col} FROM {source} "
           f"WHERE {table}.id = {entry_col} AND {table}.status = %s")
    with connection.cursor() as cursor:
        cursor.execute(sql, [EntryStatus.MATCHING.value, EntryStatus.WAITING.value])
        return cursor.rowcount


def _retry_pending(now: datetime) -> None:
    """Hand a match whose seating task was lost to a worker again (claimed: at most once per 30 s)."""
    stale = now - timedelta(seconds=PENDING_RETRY_S)
    candidates = list(Match.objects.filter(status=MatchStatus.PENDING, enqueued_at__lt=stale)
                      .values_list("pk", flat=True)[:200])
    if not candidates:
        return
    claimed = [pk for pk in candidates
               if Match.objects.filter(pk=pk, status=MatchStatus.PENDING, enqueued_at__lt=stale)
               .update(enqueued_at=now)]
    if claimed:
        _after_commit(_enqueue_seat, claimed)


def pick_bots(*, game: str, count: int, exclude: set[int], rng: random.Random | None = None) -> list:
    """``count`` distinct bots with as many different styles as possible (the game's own styles first)."""
    from accounts.models import User
    from gameworkers.bots import styles

    if count <= 0:
        return []
    rng = rng or random.Random()
    known = set(styles(game))
    by_style: dict[str, list] = defaultdict(list)
    for bot in User.objects.filter(is_bot=True, is_active=True).exclude(pk__in=exclude):
        by_style[bot.bot_style].append(bot)
    style_order = list(by_style)
    rng.shuffle(style_order)
    style_order.sort(key=lambda s: s not in known)  # stable: the game's styles first, shuffled within
    for pool in by_style.values():
        rng.shuffle(pool)
    chosen: list = []
    while len(chosen) < count and any(by_style.values()):
        for style in style_order:
            if by_style[style] and len(chosen) < count:
                chosen.append(by_style[style].pop())
    return chosen


def seat_match(*, match_id: int) -> Match | None:
    """Open the match's table and seat its players, then bots; idempotent (a re-run does nothing)."""
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.status != MatchStatus.PENDING:
            return match
        room = Room.objects.get(pk=match.room_id)
        entries = list(QueueEntry.objects.select_for_update().filter(match=match)
                       .select_related("user").order_by("joined_at", "pk"))
        active = [e for e in entries if e.status == EntryStatus.MATCHING]
        if not active or len(active) < len(entries):
            _fail_match(match, active, refused=None, code="player_left")
            return match
        current: QueueEntry | None = None
        try:
            for entry in active:
                current = entry
                _check_can_queue(room=room, user=entry.user)
            current = None
            humans = {e.user_id for e in active}
            bots = pick_bots(game=room.game, count=match.bots, exclude=humans)
            table = rooms_services.table_open_seated(room=room, players=[e.user for e in active] + bots,
                                                     seat_count=match.seat_count)
        except (TableError, QueueError) as exc:
            player = getattr(exc, "player", None)
            if current is None and player is not None:
                current = next((e for e in active if e.user_id == player.pk), None)
            if exc.code in ROOM_REFUSAL_CODES:
                _fail_match(match, active, refused=active, code=exc.code, message=exc.message)
            elif current is not None and exc.code not in TABLE_WIDE_CODES:
                _fail_match(match, active, refused=[current], code=exc.code, message=exc.message)
            else:
                log.warning("match %s could not be seated: %s", match.pk, exc.code)
                _fail_match(match, active, refused=None, code=exc.code)
            return match
        now = timezone.now()
        QueueEntry.objects.filter(pk__in=[e.pk for e in active]).update(
            status=EntryStatus.SEATED, table=table, ended_at=now)
        match.status = MatchStatus.SEATED
        match.table = table
        match.done_at = now
        match.save(update_fields=["status", "table", "done_at"])
        _after_commit(_push_entries, [e.pk for e in entries])
        _after_commit(_enqueue_room_push, [room.pk])
    return match


def _fail_match(match: Match, active: list[QueueEntry], *, refused: list[QueueEntry] | None, code: str,
                message: str = "") -> None:
    """Refuse ``refused`` entries with ``code``; every other active entry waits again (keeping its place)."""
    now = timezone.now()
    refused_ids = {e.pk for e in refused or []}
    for entry in active:
        if entry.pk in refused_ids:
            entry.status = EntryStatus.REFUSED
            entry.error_code = code[:40]
            entry.error_message = (message or code)[:200]
            entry.ended_at = now
        else:  # back to waiting with its original joined_at: it keeps its place
            entry.status = EntryStatus.WAITING
            entry.match = None
    QueueEntry.objects.bulk_update(active, ["status", "error_code", "error_message", "ended_at", "match"])
    match.status = MatchStatus.FAILED
    match.error_code = code[:40]
    match.done_at = now
    match.save(update_fields=["status", "error_code", "done_at"])
    _after_commit(_push_entries, [e.pk for e in active])
    _after_commit(_kick)
