"""Celery tasks: thin wrappers around rooms.services (moves, deadlines, bot turns)."""

from __future__ import annotations

import copy
import logging
import random

from asgiref.sync import async_to_sync
from celery import shared_task
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction

from gameworkers.bots import get_bot, style_for
from gameworkers.engines import get_engine
from rooms import services
from rooms.errors import TableError
from rooms.models import Seat, SeatStatus, Table, TableStatus

log = logging.getLogger(__name__)


def enqueue_move(table_id: int, seat: int, version: int, move: dict, client_id, reply_channel: str | None) -> None:
    apply_move.delay(table_id, seat, version, move, client_id, reply_channel)


@shared_task(name="gameworkers.tasks.apply_move", acks_late=True)
def apply_move(table_id: int, seat: int, version: int, move: dict, client_id=None,
               reply_channel: str | None = None) -> dict:
    try:
        new_version = services.table_play(table_id=table_id, seat_number=seat, move=move,
                                          expected_version=version)
    except TableError as exc:
        _reply_error(reply_channel, exc, client_id, table_id)
        return {"ok": False, "code": exc.code}
    return {"ok": True, "version": new_version}


def _reply_error(reply_channel: str | None, exc: TableError, client_id, table_id: int) -> None:
    if not reply_channel:
        return
    layer = get_channel_layer()
    version = Table.objects.filter(pk=table_id).values_list("version", flat=True).first()
    try:
        async_to_sync(layer.send)(reply_channel, {"type": "table.error", "code": exc.code,
                                                  "message": exc.message, "id": client_id, "version": version})
    except Exception:  # the socket may be gone; the client resyncs on reconnect
        log.info("could not deliver error %s to %s", exc.code, reply_channel)


@shared_task(name="gameworkers.tasks.fire_deadline", acks_late=True)
def fire_deadline(table_id: int, version: int) -> bool:
    try:
        return services.table_fire_deadline(table_id=table_id, expected_version=version)
    except TableError as exc:  # e.g. the table is gone; a deadline is never worth a task failure
        log.warning("deadline of table %s not fired: %s", table_id, exc.code)
        return False


def schedule_bot_turn(table_id: int, seat: int, version: int) -> None:
    low, high = settings.BOT_DELAY_MS
    delay = random.uniform(low, high) / 1000 if high > 0 else 0
    bot_turn.apply_async((table_id, seat, version), countdown=delay)


@shared_task(name="gameworkers.tasks.bot_turn", acks_late=True)
def bot_turn(table_id: int, seat: int, version: int) -> dict:
    """Ask the seat's bot for a move from that seat's view only, then apply it like any move."""
    table = Table.objects.select_related("room").filter(pk=table_id).first()
    if table is None or table.status != TableStatus.RUNNING or table.version != version:
        return {"ok": False, "code": "stale"}
    occupant = Seat.objects.select_related("user").filter(table=table, number=seat,
                                                         status=SeatStatus.SEATED).first()
    if occupant is None or not occupant.user.is_bot:
        return {"ok": False, "code": "not_a_bot"}
    engine = get_engine(table.game)
    if seat not in engine.to_act(table.state):
        return {"ok": False, "code": "not_to_act"}
    legal = engine.legal_moves(table.state, seat)
    due = engine.deadline(table.state)
    optional = due is not None and due.get("seat") != seat
    bot = get_bot(table.game, style_for(table.game, occupant.user.bot_style),
                  memory=copy.deepcopy(occupant.user.bot_memory))
    rng = random.Random(f"{table_id}:{version}:{seat}")
    view = engine.view(table.state, seat)
    # Who sits where is public; learning bots key what they learn by player, not by seat.
    view["player_ids"] = _player_ids(table)
    move = bot.choose(view, legal, rng, optional=optional)
    if move is None:
        return {"ok": True, "passed": True}
    try:
        new_version = services.table_play(table_id=table_id, seat_number=seat, move=move, expected_version=version)
    except TableError as exc:
        return {"ok": False, "code": exc.code}
    if bot.memory != occupant.user.bot_memory:
        with transaction.atomic():
            type(occupant.user).objects.filter(pk=occupant.user.pk).update(bot_memory=bot.memory)
    return {"ok": True, "version": new_version}


def _player_ids(table: Table) -> list[int | None]:
    ids: list[int | None] = [None] * table.seat_count
    for number, user_id in Seat.objects.filter(table=table).exclude(status=SeatStatus.STOOD).values_list(
            "number", "user_id"):
        if number < len(ids):
            ids[number] = user_id
    return ids


