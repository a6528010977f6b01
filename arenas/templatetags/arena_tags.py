"""``{% lobby_arenas as arenas %}``: the lobby's arena card reads its arenas itself, so the lobby page
needs one include line and no change to its view."""

from __future__ import annotations

from django import template
from django.utils.html import json_script

from arenas import selectors

register = template.Library()


@register.simple_tag
def lobby_arenas(limit: int = 5) -> list:
    return selectors.lobby_arenas(limit=limit)


@register.simple_tag
def arena_lobby_labels() -> str:
    """The lobby's arena cards' words as a JSON script element (id ``arena-lobby-labels``)."""
    from arenas.labels import lobby_labels

    return json_script(lobby_labels(), "arena-lobby-labels")
