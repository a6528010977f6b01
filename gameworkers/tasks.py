"""Celery tasks: thin wrappers around rooms.services (deadlines, bot turns).

Players' moves are applied by the ASGI process that received them (live.move_pool).
"""

from __future__ import annotations

import copy
import logging
import random

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction

from accounts.models import User
from gameworkers.bots import get_bot, style_for
from gameworkers.engines import get_engine
from rooms import selectors, services
from rooms.errors import TableError
from rooms.models import SeatStatus, Table, TableStatus

log = logging.getLogger(__name__)

# Workers keep their database connection between tasks; one that broke (a database restart, a
# terminated backend) fails the task that meets it. Every task here is version-checked, so it is
# simply run again, on a fresh connection (config.celery.keep_usable_database_connections).
RETRY_BROKEN_CONNECTION = {"autoretry_for": (InterfaceError, OperationalError),
                           "retry_kwargs": {"max_retries": 3, "countdown": 0.2}}


@shared_task(name="gameworkers.tasks.fire_deadline", acks_late=True, **RETRY_BROKEN_CONNECTION)
def fire_deadline(table_id: int, version: int) -> bool:
    """The timer found the table's deadline due: a bot whose turn it is plays its own move (its turn
    task was lost, or is late); anyone else gets the spec's automatic move, or first the reconnect grace
    when their connection is down (rooms.services.table_fire_deadline)."""
    row = Table.objects.filter(pk=table_id, version=version).values_list("deadline_seat", "seating").first()
    seat, seating = row if row is not None else (None, [])
    if seat is not None:
        entry = next((e for e in seating if e["seat"] == seat and e["status"] == SeatStatus.SEATED), None)
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
    low, high = settings.BOT_DELAY_MS
    delay = random.uniform(low, high) / 1000 if high > 0 else 0
    bot_turn.apply_async((table_id, seat, version), countdown=delay)


@shared_task(name="gameworkers.tasks.bot_turn", acks_late=True, **RETRY_BROKEN_CONNECTION)
def bot_turn(table_id: int, seat: int, version: int) -> dict:
    """Ask the seat's bot for a move from that seat's view only, then apply it like any move."""
    table = Table.objects.select_related("room").filter(pk=table_id).first()
    if table is None or table.status != TableStatus.RUNNING or table.version != version:
        return {"ok": False, "code": "stale"}
    entry = selectors.seating_entry(table=table, seat_number=seat)
    if entry is None or not entry["bot"]:
        return {"ok": False, "code": "not_a_bot"}
    occupant = User.objects.get(pk=entry["user_id"])
    engine = get_engine(table.game)
    if seat not in engine.to_act(table.state):
        return {"ok": False, "code": "not_to_act"}
    legal = engine.legal_moves(table.state, seat)
    due = engine.deadline(table.state)
    optional = due is not None and due.get("seat") != seat
    bot = get_bot(table.game, style_for(table.game, occupant.bot_style), memory=copy.deepcopy(occupant.bot_memory))
    rng = random.Random(f"{table_id}:{version}:{seat}")
    view = engine.view(table.state, seat)
    # Who sits where is public; learning bots key what they learn by player, not by seat.
    view["player_ids"] = _player_ids(table)
    move = bot.choose(view, legal, rng, optional=optional)
    if move is None:
        return {"ok": True, "passed": True}
    try:
        new_version = services.table_play(table_id=table_id, seat_number=seat, move=move, expected_version=version,
                                          user_id=occupant.pk)
    except TableError as exc:
        return {"ok": False, "code": exc.code}
    if bot.memory != occupant.bot_memory:
        with transaction.atomic():
            User.objects.filter(pk=occupant.pk).update(bot_memory=bot.memory)
    return {"ok": True, "version": new_version}


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
