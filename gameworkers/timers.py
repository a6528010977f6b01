"""The deadline sweep: the database is the source of truth, not countdown tasks.

``runtimers`` calls ``sweep`` a few times a second. The due deadlines are claimed in one conditional
update (``live.rows.claim_due``) and handed to the workers in batches, one task per batch
(``tasks.fire_deadlines``); a firing does nothing if the table's version moved on, so two timer
processes (or a re-claim after a lost task) are harmless.

Bot turns wait out their think time in a Redis sorted set (score: when due), where ``queue_bot_turn``
puts them; between sweeps the timer takes the due ones every ``BOT_POLL_S`` (``pause``) and hands them
out in batches too (``tasks.bot_turns``). A turn lost on the way (the timer or a worker killed) is the
rescue deadline's to play (``BOT_RESCUE_S``), as a lost task was.
"""

from __future__ import annotations

import logging
import os
import socket
import time

log = logging.getLogger(__name__)

RECLAIM_BELOW = 50  # tasks waiting in the default queue
RETRY_AFTER_S = 3.0  # a claimed deadline not fired within this is claimed again (its task was lost)
CLAIM_LIMIT = 500  # deadlines claimed per sweep
# Tables per task: big enough that a move does not pay for a task of its own, small enough that a
# sweep's work spreads over the workers (a sweep is split into at least as many batches as that allows).
BATCH = 20
# A sweep's work is split over the workers only in batches of at least this many: at a few automatic
# steps a sweep, a task each cost more CPU (the task's own handling, the timer's send) than the step.
MIN_SPLIT = 4
BOT_QUEUE_KEY = "bots:due"  # sorted set of "table:seat:version", scored by when the turn is due (epoch ms)
BOT_POLL_S = 0.02  # how often the timer takes due bot turns between sweeps
# Due bot turns stay in the sorted set while this many bot tasks wait in the broker: when the workers
# are behind, the turns gather into full batches there instead of a queue of one-turn tasks, and a
# turn is not handed out long before a worker can play it.
BOT_BACKLOG_MAX = 2
BOT_TAKE_LIMIT = BATCH * 4  # turns taken per look (at most a few batches ahead of the workers)
BOT_TASK_QUEUE = "bots"  # the broker's list of the bots' tasks (CELERY_TASK_ROUTES)

# One timer sweeps at a time, holding a lease in the cache it renews at every sweep; the others stand
# by and take the lease over when it has not been renewed for LEASE_S (a frozen or dead timer). Two
# sweeping at once would be harmless (claims are conditional updates), only wasteful.
LEASE_KEY = "timers:lease"
LEASE_S = 2  # whole seconds (the cache rounds a timeout down)
# The sweeping timer renews its lease, kicks the housekeeping passes and writes its heartbeat at most
# this often, not at every sweep: those cache calls were two thirds of an idle timer's CPU.
# Each kick lets one pass through a second anyway (a cache key that lives 1 s); kicking twice a second
# means one is never skipped for a key a few ms from lapsing, which would make the gap 2 s.
HOUSEKEEPING_EVERY_S = 0.5
HEARTBEAT_EVERY_S = 1.0  # /healthz calls a timer stalled after core.health.TIMER_STALE_AFTER_S (5 s)

_last_done: dict[str, float] = {}  # what this process did last -> when (monotonic)


def due_here(what: str, every_s: float) -> bool:
    """Whether this process last did ``what`` at least ``every_s`` ago, or never; if so it counts as
    done now. A local clock only: it spares the cache a call, it does not coordinate processes."""
    now = time.monotonic()
    if now - _last_done.get(what, -every_s) < every_s:
        return False
    _last_done[what] = now
    return True


def timer_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def hold_lease(name: str) -> bool:
    """Whether this timer should sweep now: it holds the lease (renewed) or took over an expired one.
    A lease renewed less than a quarter of LEASE_S ago is still held without asking the cache (nobody
    can take it over before it lapses; a process frozen past that asks again). With the cache down
    every timer sweeps (safe) rather than none."""
    from core.cache import cache

    renewed = f"lease:{name}"
    now = time.monotonic()
    if now - _last_done.get(renewed, float("-inf")) < LEASE_S / 4:
        return True
    try:
        held = cache.add(LEASE_KEY, name, timeout=LEASE_S)
        if not held and cache.get(LEASE_KEY) == name:
            cache.set(LEASE_KEY, name, timeout=LEASE_S)
            held = True
    except Exception:
        return True
    if held:
        _last_done[renewed] = now
    else:
        _last_done.pop(renewed, None)
    return held


_broker: list = []  # one client for the life of the timer process (it sweeps ten times a second)


def _redis():
    import redis
    from django.conf import settings

    if not _broker:
        _broker.append(redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1))
    return _broker[0]


def queue_backlog() -> int:
    """Tasks waiting in the broker's default queue (0 when it cannot be read)."""
    from django.conf import settings

    try:
        return int(_redis().llen(settings.CELERY_TASK_DEFAULT_QUEUE))
    except Exception:
        return 0


def queue_bot_turn(table_id: int, seat: int, version: int, *, delay_s: float) -> bool:
    """Put a bot's turn in the queue, due ``delay_s`` from now; False when Redis cannot be reached."""
    try:
        _redis().zadd(BOT_QUEUE_KEY, {f"{int(table_id)}:{int(seat)}:{int(version)}": time.time() * 1000 + delay_s * 1000})
        return True
    except Exception:
        log.warning("bot turn of table %s not queued in Redis", table_id, exc_info=True)
        return False


# Takes the due members and removes them in one step (two timers never both take a turn); none while
# more than ARGV[3] tasks wait in the broker's list KEYS[2]. Returns the members taken and the score of
# the earliest one left ('' when none is left, '-1' while the workers are behind).
_TAKE = """
if redis.call('LLEN', KEYS[2]) > tonumber(ARGV[3]) then return {{}, '-1'} end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
if #due > 0 then redis.call('ZREM', KEYS[1], unpack(due)) end
local left = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {due, left[2] or ''}
"""
_take_script: list = []


def take_due_bot_turns(*, now_ms: float | None = None, limit: int = BOT_TAKE_LIMIT,
                       backlog_max: int = BOT_BACKLOG_MAX) -> tuple[list[list[int]], float | None]:
    """Remove and return the bot turns due by now, earliest first, as [table id, seat, version]; none
    while more than ``backlog_max`` bot tasks wait for a worker. With them, when the earliest turn left
    in the queue is due (epoch ms): None when none is left, 0 while the workers are behind."""
    client = _redis()
    if not _take_script:
        _take_script.append(client.register_script(_TAKE))
    now = time.time() * 1000 if now_ms is None else now_ms
    members, left = _take_script[0](keys=[BOT_QUEUE_KEY, BOT_TASK_QUEUE], args=[now, limit, backlog_max],
                                    client=client)
    turns = []
    for member in members:
        try:
            turns.append([int(part) for part in member.decode().split(":")])
        except ValueError:
            log.warning("malformed bot turn %r dropped", member)
    next_due = None if not left else max(0.0, float(left))
    return [t for t in turns if len(t) == 3], next_due


def batches(items: list, workers_hint: int = 2) -> list[list]:
    """``items`` in batches of at most BATCH, and in up to ``workers_hint`` batches of at least
    MIN_SPLIT when there are that many items, so the workers share a sweep's work."""
    if not items:
        return []
    count = max(1, min(workers_hint, len(items) // MIN_SPLIT), -(-len(items) // BATCH))
    size = -(-len(items) // count)
    return [items[i:i + size] for i in range(0, len(items), size)]


def hand_out_bot_turns() -> float | None:
    """Hand the due bot turns to the workers, one task per batch. Returns when the earliest turn left
    in the queue is due (epoch ms; None when none is left, 0 while the workers are behind)."""
    from gameworkers import tasks

    turns, next_due = take_due_bot_turns()
    for batch in batches(turns):
        tasks.bot_turns.delay(batch)
    return next_due


def next_look_s(next_due_ms: float | None, *, now_ms: float, think_min_ms: float) -> float:
    """How long the timer may wait before it looks at the bots' queue again without handing a turn out
    more than BOT_POLL_S late: until the earliest turn left is due, but no longer than a bot's shortest
    think time less BOT_POLL_S (a turn queued after this look is due no sooner than that), and at least
    BOT_POLL_S. An idle queue is then looked at a few times a second, not 50 times (docs/architecture.md)."""
    wait = max(BOT_POLL_S, think_min_ms / 1000 - BOT_POLL_S)
    if next_due_ms is not None:
        wait = min(wait, (next_due_ms - now_ms) / 1000)
    return max(BOT_POLL_S, wait)


_next_look: list[float] = [0.0]  # when (monotonic) the sweeping timer looks at the bots' queue next


def look_at_bot_queue() -> bool:
    """Hand out the due bot turns if it is time to look (``next_look_s`` after the last look); whether
    it looked. The sweeps and the pauses between them keep to one schedule, so an idle queue is looked
    at a few times a second, not at every sweep as well."""
    from django.conf import settings

    if time.monotonic() < _next_look[0]:
        return False
    next_due = hand_out_bot_turns()
    _next_look[0] = time.monotonic() + next_look_s(next_due, now_ms=time.time() * 1000,
                                                   think_min_ms=settings.BOT_DELAY_MS[0])
    return True


def pause(seconds: float, *, bots: bool = True) -> None:
    """Sleep until the next sweep; meanwhile (``bots``: this timer holds the lease) hand out the bot
    turns that come due, each within BOT_POLL_S of its time (``look_at_bot_queue``), so a bot's think
    time is not rounded up to the sweep's."""
    end = time.monotonic() + seconds
    while True:
        now = time.monotonic()
        left = end - now
        if left <= 0:
            return
        if not bots:
            time.sleep(left)
            return
        time.sleep(min(left, max(BOT_POLL_S, _next_look[0] - now)))
        try:
            look_at_bot_queue()
        except Exception:  # Redis away: the next sweep tries again, the rescue deadline is the net
            log.warning("bot turns not handed out", exc_info=True)
            bots = False


def sweep() -> int:
    from gameworkers import tasks

    if due_here("housekeeping", HOUSEKEEPING_EVERY_S):
        kick_housekeeping()
    # While the workers are behind, deadlines already handed to them are not handed out again:
    # re-claiming is only for tasks lost with a dead worker, and it would snowball a backlog.
    claimed = claim_due(reclaim=queue_backlog() < RECLAIM_BELOW)
    for batch in batches(claimed):
        tasks.fire_deadlines.delay(batch)
    look_at_bot_queue()
    return len(claimed)


def kick_housekeeping() -> None:
    from arenas.tasks import kick as kick_arenas
    from matchmaking.tasks import kick_matcher
    from tournaments.tasks import kick as kick_tournaments

    kick_matcher()  # at most one matcher pass per second (cache lock), only when someone waits
    kick_tournaments()  # tournament housekeeping at most once a second, only when one is due or running
    kick_arenas()  # arena housekeeping (start, bots fill, the window's end) at most once a second


def claim_due(*, reclaim: bool = True, now=None) -> list[list[int]]:
    """Claim the due deadlines in one statement: [table id, version] pairs (``rooms.services.due_tables``)."""
    from rooms import services

    return [[pk, version] for pk, version in services.due_tables(
        now=now, retry_after_s=RETRY_AFTER_S, limit=CLAIM_LIMIT, reclaim=reclaim)]
