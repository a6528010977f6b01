"""``{% lobby_arenas as arenas %}``: the lobby's arena card reads its arenas itself, so the lobby page
needs one include line and no change to its view."""

from __future__ import annotations

from django import template

from arenas import selectors

register = template.Library()


@register.simple_tag
def lobby_arenas(limit: int = 5) -> list:
    return selectors.lobby_arenas(limit=limit)
