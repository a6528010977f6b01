"""Celery tasks: thin wrappers around rooms.services (deadlines, bot turns).

Players' moves are applied by the ASGI process that received them (live.move_pool). Due deadlines and
bot turns come from the timer (``gameworkers.timers``) in batches, one task per batch of tables, and
each of their moves goes the socket moves' own way (``move_pool.play``; ``services.table_fire_deadline``
for an automatic move): Celery schedules and spreads the batches over the workers, but a move does not
pay for a task of its own.
"""

from __future__ import annotations

import copy
import logging
import random

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, transaction

from accounts.models import User
from gameworkers.bots import get_bot, style_for
from gameworkers.engines import get_engine
from live import move_pool, rows
from rooms import selectors, services
from rooms.errors import TableError
from rooms.models import Table, TableStatus

log = logging.getLogger(__name__)

# Workers keep their database connection between tasks; one that broke (a database restart, a
# terminated backend) fails the task that meets it. Every task here is version-checked, so it is
# simply run again, on a fresh connection (config.celery.keep_usable_database_connections).
RETRY_BROKEN_CONNECTION = {"autoretry_for": (InterfaceError, OperationalError),
                           "retry_kwargs": {"max_retries": 3, "countdown": 0.2}}


@shared_task(name="gameworkers.tasks.fire_deadline", acks_late=True, **RETRY_BROKEN_CONNECTION)
def fire_deadline(table_id: int, version: int) -> bool:
    """One table's due deadline (``fire_deadlines`` with one table; a deadline handed out one at a time)."""
    return _fire_one(table_id, version, rows.load_tables([table_id]).get(table_id))


@shared_task(name="gameworkers.tasks.fire_deadlines", acks_late=True, **RETRY_BROKEN_CONNECTION)
def fire_deadlines(due: list[list[int]]) -> int:
    """The timer's batch of due deadlines, [[table id, version], ...]: every table's in its own transaction,
    on this worker's kept connection, after one read of all their rows. A table that fails is logged and
    the others go on; each firing is version-checked, so a batch run again (a worker lost mid-batch)
    fires nothing twice. Returns how many fired."""
    pairs = _pairs(due, 2)
    tables = _read(lambda: rows.load_tables([p[0] for p in pairs]))
    fired = 0
    for table_id, version in pairs:
        try:
            fired += bool(_retrying(lambda t=table_id, v=version: _fire_one(t, v, tables.get(t))))
        except Exception:
            log.exception("deadline of table %s (version %s) failed in a batch", table_id, version)
    return fired


def _fire_one(table_id: int, version: int, table: Table | None) -> bool:
    """The timer found the table's deadline due: a bot whose turn it is plays its own move (its turn
    was lost, or is late); anyone else gets the spec's automatic move, or first the reconnect grace
    when their connection is down (rooms.services.table_fire_deadline). ``table``: the row as read
    before (None when gone); the firing itself locks it and checks the version."""
    if table is None:
        return False
    if table.version != version:
        services.deadline_resync(table=table, handed_out_version=version)
        return False
    seat = table.deadline_seat
    if seat is not None:
        entry = selectors.seating_entry(table=table, seat_number=seat)
        if entry is not None and entry["bot"]:
            try:
                if bot_turn(table_id, seat, version).get("version") is not None:  # a move applied
                    return True
            except Exception:  # a bot that fails must not stall the table: the automatic move follows
                log.exception("bot rescue on table %s seat %s failed", table_id, seat)
    try:
        return services.table_fire_deadline(table_id=table_id, expected_version=version)
    except TableError as exc:  # e.g. the table is gone; a deadline is never worth a task failure
        log.warning("deadline of table %s not fired: %s", table_id, exc.code)
        return False


def schedule_bot_turn(table_id: int, seat: int, version: int) -> None:
    """Queue a bot's turn after its think time (``settings.BOT_DELAY_MS``): in the timer's queue of bot
    turns (``gameworkers.timers``), which hands the due ones to the workers in batches. Should that
    queue be unreachable, the turn goes as a task of its own; should both be lost, the timer's rescue
    look (``BOT_RESCUE_S``) has the bot play."""
    low, high = settings.BOT_DELAY_MS
    delay = random.uniform(low, high) / 1000 if high > 0 else 0
    from gameworkers import timers

    if timers.queue_bot_turn(table_id, seat, version, delay_s=delay):
        return
    bot_turn.apply_async((table_id, seat, version), countdown=delay)


@shared_task(name="gameworkers.tasks.bot_turn", acks_late=True, **RETRY_BROKEN_CONNECTION)
def bot_turn(table_id: int, seat: int, version: int) -> dict:
    """Ask the seat's bot for a move from that seat's view only, then apply it like any move."""
    table = rows.load_tables([table_id]).get(table_id)
    return _bot_move(table, seat, version, _bots_of([table] if table is not None else []))


@shared_task(name="gameworkers.tasks.bot_turns", acks_late=True, **RETRY_BROKEN_CONNECTION)
def bot_turns(due: list[list[int]]) -> int:
    """The timer's batch of due bot turns, [[table id, seat, version], ...]: one read of their tables
    and bots, then each move on the socket moves' own path (``live.move_pool.play``: the table's row
    lock, its version checked, prepared statements, COMMIT with the writes). A turn that fails is logged
    and the others go on; a stale one is skipped. Returns how many moves were applied."""
    turns = _pairs(due, 3)
    tables = _read(lambda: rows.load_tables([t[0] for t in turns]))
    bots = _read(lambda: _bots_of(list(tables.values())))
    applied = 0
    for table_id, seat, version in turns:
        try:
            done = _bot_move(tables.get(table_id), seat, version, bots)
            applied += done.get("version") is not None
        except Exception:
            log.exception("bot turn on table %s seat %s (version %s) failed in a batch", table_id, seat, version)
    return applied


def _bot_move(table: Table | None, seat: int, version: int, bots: dict[int, tuple[str, dict]]) -> dict:
    """The bot's move at the table as read (``table``; None when gone), applied if the table has not
    moved on since; ``bots``: each bot's (style, memory) by user id."""
    if table is None or table.status != TableStatus.RUNNING or table.version != version:
        return {"ok": False, "code": "stale"}
    entry = selectors.seating_entry(table=table, seat_number=seat)
    if entry is None or not entry["bot"] or entry["user_id"] not in bots:
        return {"ok": False, "code": "not_a_bot"}
    style, memory = bots[entry["user_id"]]
    engine = get_engine(table.game)
    if seat not in engine.to_act(table.state):
        return {"ok": False, "code": "not_to_act"}
    legal = engine.legal_moves(table.state, seat)
    due = engine.deadline(table.state)
    optional = due is not None and due.get("seat") != seat
    bot = get_bot(table.game, style_for(table.game, style), memory=copy.deepcopy(memory))
    rng = random.Random(f"{table.pk}:{version}:{seat}")
    view = engine.view(table.state, seat)
    # Who sits where is public; learning bots key what they learn by player, not by seat.
    view["player_ids"] = _player_ids(table)
    move = bot.choose(view, legal, rng, optional=optional)
    if move is None:
        return {"ok": True, "passed": True}
    try:
        new_version = move_pool.play(table_id=table.pk, seat_number=seat, move=move, expected_version=version,
                                     user_id=entry["user_id"], read=table)
    except TableError as exc:
        return {"ok": False, "code": exc.code}
    if bot.memory != memory:
        with transaction.atomic():
            User.objects.filter(pk=entry["user_id"]).update(bot_memory=bot.memory)
    return {"ok": True, "version": new_version}


def _bots_of(tables: list[Table]) -> dict[int, tuple[str, dict]]:
    """(style, memory) of every bot seated at these tables, in one query."""
    ids = {e["user_id"] for table in tables for e in table.seating if e["bot"]}
    if not ids:
        return {}
    return {pk: (style, memory) for pk, style, memory in
            User.objects.filter(pk__in=ids, is_bot=True).values_list("pk", "bot_style", "bot_memory")}


def _pairs(due, width: int) -> list[tuple[int, ...]]:
    """A batch's items as tuples of whole numbers; a malformed item is dropped (never a failed batch)."""
    items = []
    for item in due if isinstance(due, (list, tuple)) else []:
        if (isinstance(item, (list, tuple)) and len(item) == width
                and all(isinstance(v, int) and not isinstance(v, bool) for v in item)):
            items.append(tuple(item))
        else:
            log.warning("malformed batch item dropped: %r", item)
    return items


def _retrying(call):
    """``call()``, once more on a fresh connection if the kept one broke (a database restart): every
    step is version-checked, so one that did commit is refused the second time, never applied twice."""
    try:
        return call()
    except (InterfaceError, OperationalError):
        connection.close()
    return call()


def _read(call):
    """A batch's first read, retried like ``_retrying``; a batch that cannot read at all fails, and
    Celery runs it again (``RETRY_BROKEN_CONNECTION``: safe, every step in it is version-checked)."""
    return _retrying(call)


def _player_ids(table: Table) -> list[int | None]:
    ids: list[int | None] = [None] * table.seat_count
    for entry in table.seating:
        if entry["seat"] < len(ids):
            ids[entry["seat"]] = entry["user_id"]
    return ids


@shared_task(name="gameworkers.tasks.bot_chat", acks_late=True, **RETRY_BROKEN_CONNECTION)
def bot_chat(table_id: int, bot_id: int, phrase: str) -> int | None:
    """A bot's canned chat answer, queued by name by ``chat.services`` (on the bots' queue): a quick
    phrase the pure side chose from public facts only (``gameworkers.bots.chat``)."""
    from chat import services as chat_services

    message = chat_services.bot_say(table_id=table_id, bot_id=bot_id, phrase=phrase)
    return message.pk if message is not None else None
