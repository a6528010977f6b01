"""31 (Otuz bir): a table of hands with antes, pot-limit raises, ebe passing and tournament stacks.

Rules of record: ../shared/spec/otuzbir.md (and economy.md for chips). The project's rules doc
docs/rules/otuzbir.md lists every [decided] point and every reading chosen here.

State layout (plain JSON; the exact shape is ``states.OtuzbirState``). Besides the base keys (see base.py):
``hand``        index d of the current hand (the table's own count, from 0; shuffle ``d:kocok``)
``ebe``         the current hand's dealer; ``order`` play order (ebe altı first, ebe last)
``phase``       "predeal" | "predeal_answer" | "turn" | "answer" | "over"
``turn``        the seat deciding in "predeal"/"turn"
``raise``       the raise being answered: {seat, amount, kind, queue, seen, folded} or None
``status``      per seat: "out" (not in this hand) | "in" | "stood" | "31" | "folded" | "bust"
``closed``/``open``  per seat, the cards of the current hand; ``deck`` the hand's shuffled deck
                and ``pos`` the next card to deal (``deck[pos:]`` is the stock)
``contrib``/``pot``  chips put in this hand; ``net`` per-seat net chips over finished hands
``stacks``      tournament stacks at the current hand's start (None at cash tables)

The registry loads this module for ``ENGINE``; the rules live in sibling modules, each importing
only the ones above it:

- ``otuzbir_cards``    card values, hand scores and categories, raise sizes, showdown, ebe draw
- ``otuzbir_options``  table options, rules revisions, the ante schedule
- ``otuzbir_hand``     ``OtuzbirHand``: the move handlers and the steps of a hand
- ``otuzbir_engine``   ``OtuzbirEngine``: the ``base.Engine`` contract (move table, setup, timers, views)

The names below are re-exported for the bots, the frontend and the tests that use them.
"""

from __future__ import annotations

from .otuzbir_cards import (
    CATEGORY_NAMES,
    DECK,
    EBE_VALUE,
    LIVE,
    LOW_VALUE,
    SCORE_14,
    SCORE_31,
    SCORE_BUST,
    SCORE_CENGEL,
    SCORE_CIN,
    SCORE_NONE,
    SCORE_YONCA,
    STAND_MIN,
    can_stand,
    category,
    ebe_draw,
    hand_score,
    pick_winner,
    raise_amounts,
    score_parts,
    totals,
    two_card_class,
)
from .otuzbir_engine import OtuzbirEngine
from .otuzbir_hand import PHASE_MOVES
from .otuzbir_options import (
    DEFAULT_CASH_HANDS,
    DEFAULT_DOUBLE_EVERY,
    LEGACY_RULES,
    OPTION_KEYS,
    RULES,
    _normal_options,
    ante_for,
)

__all__ = [
    "CATEGORY_NAMES",
    "DECK",
    "DEFAULT_CASH_HANDS",
    "DEFAULT_DOUBLE_EVERY",
    "EBE_VALUE",
    "ENGINE",
    "LEGACY_RULES",
    "LIVE",
    "LOW_VALUE",
    "OPTION_KEYS",
    "PHASE_MOVES",
    "RULES",
    "SCORE_14",
    "SCORE_31",
    "SCORE_BUST",
    "SCORE_CENGEL",
    "SCORE_CIN",
    "SCORE_NONE",
    "SCORE_YONCA",
    "STAND_MIN",
    "OtuzbirEngine",
    "_normal_options",
    "ante_for",
    "can_stand",
    "category",
    "ebe_draw",
    "hand_score",
    "pick_winner",
    "raise_amounts",
    "score_parts",
    "totals",
    "two_card_class",
]

ENGINE = OtuzbirEngine()
