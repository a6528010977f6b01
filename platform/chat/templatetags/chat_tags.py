"""The chat panel's strings in the reader's language (frontend/templates/frontend/includes/chat_panel.html)."""

from __future__ import annotations

from django import template
from django.utils.html import json_script
from django.utils.translation import gettext as _

from chat import conf
from chat.models import ReportReason
from chat.phrases import PHRASES

register = template.Library()


@register.simple_tag
def chat_phrases() -> list[tuple[str, str]]:
    """(id, label) of each quick phrase, for the panel's buttons."""
    return [(key, str(label)) for key, label in PHRASES.items()]


@register.simple_tag
def chat_labels():
    """A json_script (id "chat-labels") with what chat.js shows: phrases by id (every reader sees a
    phrase in their own language), report reasons, error texts by code, and the few sentences it builds."""
    labels = {
        "max_length": conf.get("CHAT_MAX_LENGTH"),
        "phrases": {key: str(label) for key, label in PHRASES.items()},
        "reasons": {value: str(label) for value, label in ReportReason.choices},
        "errors": {
            "chat_rate_limited": _("You are sending messages too fast; wait a few seconds."),
            "chat_too_long": _("That message is too long."),
            "chat_empty": _("Write something first."),
            "chat_muted": _("Staff have muted you in chat for now."),
            "chat_forbidden": _("Spectators cannot write in the players' chat."),
            "chat_unknown_phrase": _("That quick phrase does not exist."),
            "chat_no_such_message": _("That message is no longer there."),
            "chat_no_such_user": _("That player is no longer there."),
            "chat_self": _("You cannot do that to yourself."),
            "chat_bad_reason": _("Choose a reason."),
            "offline": _("Not connected; the message was not sent."),
            "other": _("The chat is not available just now; try again."),
        },
        "text": {
            "players": _("Players"),
            "spectators": _("Spectators"),
            "you": _("you"),
            "bot": _("bot"),
            "actions_for": _("Actions for %(name)s"),
            "mute": _("Mute"),
            "unmute": _("Unmute"),
            "block": _("Block"),
            "unblock": _("Unblock"),
            "report": _("Report"),
            "send_report": _("Send report"),
            "reason": _("Reason"),
            "reported": _("Reported. Thank you: staff will read it."),
            "muted_until": _("Staff have muted you in chat until %(until)s."),
            "write_players": _("Message to the players"),
            "write_spectators": _("Message to the spectators"),
            "players_only": _("Only the seated players write here."),
            "hidden_from_players": _("The players do not see the spectators' chat until the game ends."),
            "empty": _("No messages yet."),
            "unread": _("%(n)s new"),
        },
    }
    return json_script(labels, "chat-labels")
