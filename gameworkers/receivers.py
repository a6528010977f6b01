"""The game workers' side of the rooms' signals."""

from __future__ import annotations

from django.dispatch import receiver

from gameworkers import tasks
from rooms.models import Table
from rooms.signals import bot_turn_due


@receiver(bot_turn_due, sender=Table, dispatch_uid="gameworkers.queue_bot_turn")
def queue_bot_turn(sender, *, table_id: int, seat: int, version: int, **kwargs) -> None:
    tasks.schedule_bot_turn(table_id, seat, version)  # looked up on each call: tests replace it
