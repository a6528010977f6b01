"""Lembar: the rules of ../shared/spec/lembar.md (batik-card shedding game, 2-6 seats).

Docs for clients: docs/rules/lembar.md (move formats, error codes, every reading chosen).

The registry loads this module for ``ENGINE``; the rules live in sibling modules, each importing
only the ones above it:

- ``lembar_cards``   the deck, precomputed card facts, which card may go on which
- ``lembar_moves``   ``LembarMoves``: one handler per move type and the helpers they share
- ``lembar_engine``  ``LembarEngine``: the ``base.Engine`` contract (move table, setup, who acts,
                     timers, views, results)

The names below are re-exported for the bots, the frontend and the tests that use them.
"""

from __future__ import annotations

from .lembar_cards import (
    CANON,
    CARD_SET,
    CATCH_MS,
    CATCH_PENALTY,
    DECK,
    DEFAULT_TURN_SECONDS,
    EFFECT_OF,
    HAND_SIZE,
    IS_NUMBER,
    MATCH,
    MOTIF_CARDS,
    MOTIF_OF,
    MOTIFS,
    SYMBOL_OF,
    TIMEOUTS_TO_REMOVE,
    VALUE_OF,
    WILDS,
    canonical_sorted,
    favourite_motif,
    hand_value,
    is_playable,
    playable_cards,
)
from .lembar_engine import LembarEngine

__all__ = [
    "CANON",
    "CARD_SET",
    "CATCH_MS",
    "CATCH_PENALTY",
    "DECK",
    "DEFAULT_TURN_SECONDS",
    "EFFECT_OF",
    "ENGINE",
    "HAND_SIZE",
    "IS_NUMBER",
    "MATCH",
    "MOTIFS",
    "MOTIF_CARDS",
    "MOTIF_OF",
    "SYMBOL_OF",
    "TIMEOUTS_TO_REMOVE",
    "VALUE_OF",
    "WILDS",
    "LembarEngine",
    "canonical_sorted",
    "favourite_motif",
    "hand_value",
    "is_playable",
    "playable_cards",
]

ENGINE = LembarEngine()
