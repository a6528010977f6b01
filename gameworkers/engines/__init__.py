"""The one registry through which everything reaches a rules engine."""

from __future__ import annotations

import importlib

from .base import STAKE_KINDS, Engine, GameSpec, IllegalMove, copy_json

__all__ = ["ENGINE_NAMES", "STAKE_KINDS", "Engine", "GameSpec", "IllegalMove", "copy_json", "game_spec", "game_specs",
           "get_engine"]

# name -> module; each module exposes ENGINE, an instance of its Engine subclass.
_MODULES = {
    "lembar": "lembar",
    "baloot": "baloot",
    "cherki": "cherki",
    "otuzbir": "otuzbir",
}
ENGINE_NAMES: tuple[str, ...] = tuple(_MODULES)
_ENGINES: dict[str, Engine] = {}  # engines hold no state: one instance per game, looked up on every frame


def get_engine(name: str) -> Engine:
    """The engine for ``name``; ``KeyError`` for an unknown game."""
    engine = _ENGINES.get(name)
    if engine is None:
        if name not in _MODULES:
            raise KeyError(f"unknown game {name!r}")
        engine = _ENGINES[name] = importlib.import_module(f"{__name__}.{_MODULES[name]}").ENGINE
    return engine


def game_spec(name: str) -> GameSpec:
    """What the platform needs to know of game ``name`` (seats, stakes, sides, tournaments)."""
    return get_engine(name).spec


def game_specs() -> list[GameSpec]:
    """Every game's spec, in the registry's order (the lobby's order)."""
    return [game_spec(name) for name in ENGINE_NAMES]


def available_engines() -> list[str]:
    """Names whose engine module is importable (all four once every game has landed)."""
    names = []
    for name in ENGINE_NAMES:
        try:
            get_engine(name)
        except ImportError:
            continue
        names.append(name)
    return names
