"""Bot policies. A bot decides from ``engine.view(state, seat)`` and the legal moves only.

Each game module ``gameworkers.bots.<game>`` exposes ``STYLES``: style name -> ``Bot``
subclass, and the first style listed is the default. A bot is deterministic given the
``random.Random`` it is handed (never the global random), so seeded simulations repeat.
"""

from __future__ import annotations

import importlib
import random
from typing import Any

Move = dict[str, Any]


class Bot:
    """Base policy. ``choose`` returns a move from ``legal`` (or None when ``optional``)."""

    game: str = ""
    style: str = "random"
    description: str = "Plays a uniformly random legal move."

    def __init__(self, memory: dict | None = None) -> None:
        # ``memory`` is plain JSON data a bot may learn into (persisted per bot by the platform).
        self.memory: dict = memory if memory is not None else {}

    def choose(self, view: dict, legal: list[Move], rng: random.Random, *, optional: bool = False) -> Move | None:
        """``optional``: the seat may act but need not (e.g. a catch window); None = do nothing."""
        if optional:
            options: list[Move | None] = [*legal, None]
            return rng.choice(options)
        return rng.choice(legal) if legal else None

    def observe(self, view: dict, events: list[dict]) -> None:
        """Called with the seat's view after moves, for bots that learn (default: nothing)."""


class RandomBot(Bot):
    pass


def styles(game: str) -> dict[str, type[Bot]]:
    """Style name -> class for ``game`` ("random" is always there)."""
    found: dict[str, type[Bot]] = {}
    try:
        module = importlib.import_module(f"{__name__}.{game}")
        found.update(module.STYLES)
    except ImportError:
        pass
    found.setdefault("random", RandomBot)
    return found


# A bot account has one persona across all four games; each game plays it with its closest style.
PERSONAS: dict[str, dict[str, str]] = {
    "careful": {"lembar": "cerdik", "baloot": "pimc", "cherki": "collector", "otuzbir": "tight-passive"},
    "aggressive": {"lembar": "agresif", "baloot": "pimc", "cherki": "collector", "otuzbir": "loose-aggressive"},
    "tricky": {"lembar": "cerdik", "baloot": "pimc", "cherki": "collector", "otuzbir": "tricky"},
    "balanced": {"lembar": "cerdik", "baloot": "pimc", "cherki": "collector", "otuzbir": "balanced"},
}


def style_for(game: str, persona: str | None) -> str | None:
    """The game's style for a bot account's persona (or the style itself when the game has it)."""
    available = styles(game)
    if persona in available:
        return persona
    mapped = PERSONAS.get(persona or "", {}).get(game)
    return mapped if mapped in available else None


def get_bot(game: str, style: str | None = None, memory: dict | None = None) -> Bot:
    """A bot for ``game``; ``style`` None picks the game's default (first listed) style."""
    available = styles(game)
    if style is None:
        style = next(iter(available))
    if style not in available:
        raise KeyError(f"no {style!r} bot for {game}")
    bot = available[style](memory)
    bot.game = game
    return bot
