"""Template helpers for the tournament pieces other pages include (the lobby's tournament cards)."""

from __future__ import annotations

from django import template
from django.utils.html import json_script

from rooms.models import Currency
from tournaments.labels import LABELS, payouts_text

register = template.Library()

# What the lobby cards' script needs (tournaments/static/tournaments/lobby.js).
LOBBY_KEYS = ("left_of", "registered", "prize_pool", "payout", "ordinal_st", "ordinal_nd", "ordinal_rd",
              "ordinal_th", "sit_and_go_of", "prizes")


@register.filter
def tournament_payouts(payouts: list[dict] | None, currency: str) -> str:
    """``{{ card.payouts|tournament_payouts:t.get_currency_display }}``: "1st 70 % (140 Chip) · 2nd 30 % (60 Chip)"."""
    return payouts_text(payouts or [], currency)


@register.simple_tag
def tournament_lobby_labels() -> str:
    """The lobby cards' words as a JSON script element (id ``tournament-lobby-labels``)."""
    from django.utils.translation import gettext

    labels = {key: str(LABELS[key]) for key in LOBBY_KEYS}
    labels["ante"] = gettext("ante")
    labels["status"] = {k: str(v) for k, v in LABELS["status"].items()}
    labels["currency"] = {value: str(label) for value, label in Currency.choices}
    return json_script(labels, "tournament-lobby-labels")
