"""Baloot's constants, seats and cards: trick strength, card points, who wins a trick and what may
be played (../shared/spec/baloot.md, "Seats, direction, deck" and "Play")."""

from __future__ import annotations

from . import fairness
from .base import State

SUITS = "SHDC"
RANKS = "789TJQKA"  # canonical (hand) order and sequence order for projects
SUN_ORDER = "789JQKTA"  # trick strength, weakest first
TRUMP_ORDER = "78QKTA9J"
SUN_POINTS = {"7": 0, "8": 0, "9": 0, "J": 2, "Q": 3, "K": 4, "T": 10, "A": 11}
TRUMP_POINTS = {"7": 0, "8": 0, "Q": 3, "K": 4, "T": 10, "A": 11, "9": 14, "J": 20}
HAND_INDEX = {c: i for i, c in enumerate(fairness.BALOOT_DECK)}

TARGET = 152
FAST_START = 52

# Rules revisions (option ``rules``; docs/rules/baloot.md, "Rules revisions"). New games use RULES.
# Revision 1 is how games were played before issue 20: a Sawa could carry a Baloot claim, and a
# Gahwa deal's winner was judged without Baloot. It is kept only so that the move logs of those games
# replay to their recorded results (proof verification, replays); a state saved before revisions
# existed has no ``rules`` option and is revision 1.
RULES = 2
LEGACY_RULES = 1


def team_of(seat: int) -> int:
    return seat % 2


def position(state: State, seat: int) -> int:
    """Position from the dealer's right: P1..P4 (the dealer is P4)."""
    return (seat - state["dealer"] - 1) % 4 + 1


def rules_revision(state: State) -> int:
    """The rules revision the game is played by (a state saved before revisions: 1)."""
    return state["options"].get("rules", LEGACY_RULES)


def hand_sorted(cards: list[str]) -> list[str]:
    return sorted(cards, key=HAND_INDEX.__getitem__)


def strength(card: str, trump: str | None) -> int:
    """Rank within its suit for winning tricks (trump suit uses the trump order)."""
    if card[0] == trump:
        return TRUMP_ORDER.index(card[1])
    return SUN_ORDER.index(card[1])


def card_points(card: str, trump: str | None) -> int:
    return TRUMP_POINTS[card[1]] if card[0] == trump else SUN_POINTS[card[1]]


def trick_winner(cards: list[dict], trump: str | None) -> int:
    """Index (into ``cards``) of the card that wins; ``cards`` in play order."""
    best = 0
    for i in range(1, len(cards)):
        c, b = cards[i]["card"], cards[best]["card"]
        if c[0] == b[0]:
            if strength(c, trump) > strength(b, trump):
                best = i
        elif c[0] == trump:
            best = i  # the best so far is led suit (not trump): a trump beats it
    return best


def legal_cards(hand: list[str], trick: list[dict], trump: str | None, *, lock: bool = False,
                overtrump: bool = False) -> list[str]:
    """Cards of ``hand`` that may be played to ``trick`` (in hand order)."""
    if not trick:
        if lock and trump is not None and any(c[0] != trump for c in hand):
            return [c for c in hand if c[0] != trump]
        return list(hand)
    led = trick[0]["card"][0]
    follow = [c for c in hand if c[0] == led]
    if trump is None:
        return follow or list(hand)
    if follow:
        if led == trump and overtrump:
            return _overtrump_filter(follow, trick, trump)
        return follow
    trumps = [c for c in hand if c[0] == trump]
    if trumps:
        return _overtrump_filter(trumps, trick, trump) if overtrump else trumps
    return list(hand)


def _overtrump_filter(trumps: list[str], trick: list[dict], trump: str) -> list[str]:
    """When playing a trump you must beat the highest trump in the trick if you can."""
    played = [strength(p["card"], trump) for p in trick if p["card"][0] == trump]
    if not played:
        return trumps
    top = max(played)
    higher = [c for c in trumps if strength(c, trump) > top]
    return higher or trumps

