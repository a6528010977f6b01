"""Lembar's cards: the deck, precomputed card facts and the card tests the rules and the bots use
(../shared/spec/lembar.md; docs/rules/lembar.md). Pure tables and functions, no state."""

from __future__ import annotations

from . import fairness

DECK: tuple[str, ...] = fairness.LEMBAR_DECK
MOTIFS: tuple[str, ...] = fairness.LEMBAR_MOTIFS
HAND_SIZE = 7
CATCH_MS = 3000  # the seed's 3-second catch window: a catch is in time while now_ms <= since + CATCH_MS
CATCH_PENALTY = 2
TIMEOUTS_TO_REMOVE = 3
DEFAULT_TURN_SECONDS = 20

# Precomputed card facts. Canonical order = first index of the code in the deck.
CANON: dict[str, int] = {}
for _i, _c in enumerate(DECK):
    CANON.setdefault(_c, _i)
CARD_SET: frozenset[str] = frozenset(DECK)
WILDS: frozenset[str] = frozenset({"W", "F"})
MOTIF_OF: dict[str, str | None] = {c: (None if c in WILDS else c[0]) for c in CARD_SET}
SYMBOL_OF: dict[str, str | None] = {c: (None if c in WILDS else c[1:]) for c in CARD_SET}
VALUE_OF: dict[str, int] = {
    c: 50 if c in WILDS else (int(c[1]) if c[1].isdigit() else 20) for c in CARD_SET
}
IS_NUMBER: dict[str, bool] = {c: (c not in WILDS and c[1].isdigit()) for c in CARD_SET}
# What a played card does: None (a number or W: the next seat plays), "S", "R", "D" or "F".
EFFECT_OF: dict[str, str | None] = {c: ("F" if c == "F" else None if c == "W" or IS_NUMBER[c] else c[1])
                                    for c in CARD_SET}


def hand_value(hand: list[str]) -> int:
    """Penalty value of cards left in hand (number = its number, action 20, wild 50)."""
    return sum(map(VALUE_OF.__getitem__, hand))


def canonical_sorted(cards: list[str]) -> list[str]:
    return sorted(cards, key=CANON.__getitem__)


def _matching(motif: str, top: str) -> frozenset[str]:
    """Codes that may go on ``top`` while ``motif`` is current (F's hand condition aside)."""
    top_symbol = SYMBOL_OF[top]
    return frozenset(c for c in CARD_SET if MOTIF_OF[c] is None or MOTIF_OF[c] == motif
                     or (top_symbol is not None and SYMBOL_OF[c] == top_symbol))


# MATCH[motif][top]: precomputed so legal_moves/apply test a card with one set lookup.
MATCH: dict[str, dict[str, frozenset[str]]] = {m: {t: _matching(m, t) for t in CARD_SET} for m in MOTIFS}
MOTIF_CARDS: dict[str, frozenset[str]] = {m: frozenset(c for c in CARD_SET if MOTIF_OF[c] == m) for m in MOTIFS}


def is_playable(card: str, top: str, motif: str, hand: list[str]) -> bool:
    """Whether ``card`` may be played on ``top`` (current ``motif``) from ``hand``."""
    if card not in MATCH[motif][top]:
        return False
    if card == "F":
        # Wild draw four: only without a card of the current motif (wilds have no motif).
        return MOTIF_CARDS[motif].isdisjoint(hand)
    return True


def playable_cards(hand: list[str], top: str, motif: str) -> list[str]:
    """Distinct playable card codes of ``hand``, in hand order (deterministic, unlike a set)."""
    ok = MATCH[motif][top]
    found = dict.fromkeys([c for c in hand if c in ok])
    if "F" in found and not MOTIF_CARDS[motif].isdisjoint(hand):
        del found["F"]
    return list(found)


def favourite_motif(hand: list[str]) -> str:
    """The motif held most (ties P, K, T, M): the automatic move's choice for a wild."""
    counts = dict.fromkeys(MOTIFS, 0)
    for c in hand:
        m = MOTIF_OF[c]
        if m is not None:
            counts[m] += 1
    best = MOTIFS[0]
    for m in MOTIFS[1:]:
        if counts[m] > counts[best]:
            best = m
    return best
