"""Tables to chat at (shared by the chat tests)."""

from __future__ import annotations

from accounts.services import bot_create, user_create
from rooms import services as room_services
from rooms.models import Room, Table


def make_table(*, private: bool = False, bot_style: str | None = None):
    """A running two-seat Lembar table: player ``a`` and ``b`` (a bot when ``bot_style``), and a
    spectator ``w``."""
    room = Room.objects.create(name="Chat", slug=f"chat-{Room.objects.count()}", game="lembar", seats=2, min_seats=2)
    n = Table.objects.count()
    a = user_create(username=f"ca{n}", password="pass-word-123", display_name="Ayu")
    if bot_style:
        b = bot_create(username=f"cbot{n}", display_name="Bu Sari", style=bot_style, description="Polite.")
    else:
        b = user_create(username=f"cb{n}", password="pass-word-123")
    w = user_create(username=f"cw{n}", password="pass-word-123")
    table = room_services.table_open(room=room, host=a, private=private)
    room_services.table_sit(table_id=table.pk, user=a)
    room_services.table_sit(table_id=table.pk, user=b, invite_code=table.invite_code or None)
    return Table.objects.get(pk=table.pk), a, b, w


def end_table(table: Table) -> Table:
    Table.objects.filter(pk=table.pk).update(status="finished")
    return Table.objects.get(pk=table.pk)
