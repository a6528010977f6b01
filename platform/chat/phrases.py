"""The quick phrases: sent as an id, shown to each reader in their own language."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from gameworkers.bots.chat import PHRASE_IDS

PHRASES = {
    "gl": _("Good luck!"),
    "wp": _("Well played"),
    "thanks": _("Thanks"),
    "oops": _("Oops"),
    "gg": _("Good game"),
}

assert tuple(PHRASES) == PHRASE_IDS  # the bots' pure side names the same phrases
