"""Bots' canned chat replies: pure, no Django, decided from public facts only.

A bot answers a human's quick phrase (or the same few words typed) now and then, with a quick phrase
of its own: the platform shows phrases in each reader's language, and a phrase can never carry a card
or anything else hidden. What a bot says depends only on its persona, the phrase it answers, whether
the table has ended and the ``random.Random`` it is handed (the platform seeds it from public ids, so
the same message always gets the same answer): never on its hand or the game state.
"""

from __future__ import annotations

import random
import re

# The quick phrases a bot may say (the platform's chat.phrases.PHRASES has one label per id).
PHRASE_IDS = ("gl", "wp", "thanks", "oops", "gg")

# Which phrases a bot answers, and when: a "good luck" before the end, "good game" / "well played" once
# the table has ended. "thanks" and "oops" are never answered (no endless back-and-forth).
ANSWERED_BEFORE_END = frozenset({"gl"})
ANSWERED_AFTER_END = frozenset({"gg", "wp"})

# persona -> trigger -> (reply, chance). Kept rare: at most about one answer in two even for the
# politest persona; the platform also lets a table hear each reply from a bot only once.
REPLIES: dict[str, dict[str, tuple[str, float]]] = {
    "careful": {"gl": ("gl", 0.3), "gg": ("thanks", 0.5), "wp": ("thanks", 0.5)},
    "balanced": {"gl": ("gl", 0.3), "gg": ("gg", 0.5), "wp": ("thanks", 0.4)},
    "aggressive": {"gg": ("gg", 0.3)},
    "tricky": {"gl": ("gl", 0.2), "gg": ("wp", 0.4), "wp": ("oops", 0.3)},
}

# Typed words a bot also takes as the phrase (lower case, punctuation and repeats ignored).
TYPED: dict[str, str] = {
    "gg": "gg", "ggwp": "gg", "good game": "gg",
    "gl": "gl", "glhf": "gl", "good luck": "gl",
    "wp": "wp", "well played": "wp",
}


def trigger_of(*, phrase: str | None, text: str | None) -> str | None:
    """The phrase id a message amounts to for the bots, or None."""
    if phrase:
        return phrase if phrase in PHRASE_IDS else None
    words = re.sub(r"[^a-z ]+", " ", (text or "").lower()).split()
    return TYPED.get(" ".join(words)) if words else None


def chat_reply(*, persona: str, trigger: str | None, ended: bool, rng: random.Random) -> str | None:
    """The phrase id this bot answers ``trigger`` with, or None (most of the time)."""
    if trigger is None:
        return None
    if trigger not in (ANSWERED_AFTER_END if ended else ANSWERED_BEFORE_END):
        return None
    reply = REPLIES.get(persona, REPLIES["balanced"]).get(trigger)
    if reply is None:
        return None
    phrase, chance = reply
    return phrase if rng.random() < chance else None
