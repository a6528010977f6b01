"""Reads about rooms for the lobby, the API and the admin."""

from __future__ import annotations

from rooms.models import Game, Room


def lobby_games() -> list[dict]:
    rooms = list(Room.objects.filter(is_open=True))
    return [
        {"name": value, "title": label, "rooms": [r for r in rooms if r.game == value]}
        for value, label in Game.choices
    ]
