"""Saudi Baloot (../shared/spec/baloot.md): 4 seats, partners 0 & 2 and 1 & 3, race to 152.

The state is plain JSON data. A game is a sequence of deals; deal ``d`` is shuffle
``d:kocok`` of the canonical 32-card deck. Phases of a deal: ``bidding`` -> (``doubling``)
-> ``projects`` -> ``play``; scoring and the next deal happen inside the move that ends
a deal, so there is never a system step (``deadline`` always names a seat).
See docs/rules/baloot.md for the readings chosen where the spec is open.

The registry loads this module for ``ENGINE``; the rules live in sibling modules, each
importing only the ones above it:

- ``baloot_cards``    constants, seats, trick strength and points, legal cards
- ``baloot_projects`` runs and fours, what a declaration may hold, how projects compare
- ``baloot_sawa``     the exact search behind Sawa
- ``baloot_scoring``  game points, the failed-bid test, the score of a finished deal
- ``baloot_deal``     ``BalootDeal``: dealing, copying a state for a move, ending a deal
- ``baloot_moves``    ``BalootMoves``: legal moves and one handler per phase
- ``baloot_engine``   ``BalootEngine``: the ``base.Engine`` contract (dispatch, timers, views)

The names below are re-exported for the bots and tests that use them.
"""

from __future__ import annotations

from .baloot_cards import SUITS, card_points, hand_sorted, legal_cards, strength, trick_winner
from .baloot_engine import BalootEngine
from .baloot_projects import candidate_projects
from .baloot_sawa import sawa_possible
from .baloot_scoring import hokum_game_points, sun_game_points

__all__ = [
    "ENGINE",
    "SUITS",
    "BalootEngine",
    "candidate_projects",
    "card_points",
    "hand_sorted",
    "hokum_game_points",
    "legal_cards",
    "sawa_possible",
    "strength",
    "sun_game_points",
    "trick_winner",
]

ENGINE = BalootEngine()
