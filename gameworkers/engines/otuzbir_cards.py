"""31's cards: card values, hand scores and categories, raise sizes, the showdown and the ebe draw
(../shared/spec/otuzbir.md; docs/rules/otuzbir.md). Pure tables and functions, no state; the bots'
fast simulator uses them too."""

from __future__ import annotations

from . import fairness

DECK: tuple[str, ...] = fairness.OTUZBIR_DECK

# Card facts used by the scorer (and by the bots' fast simulator).
LOW_VALUE: dict[str, int] = {
    c: (1 if c[1] == "A" else 10 if c[1] in "TJQK" else int(c[1])) for c in DECK
}
EBE_VALUE: dict[str, int] = {c: (11 if c[1] == "A" else LOW_VALUE[c]) for c in DECK}

# Hand scores: higher is better. Categories have no order inside them (every 31 ties every 31).
SCORE_31 = 100
SCORE_CIN = 90
SCORE_CENGEL = 80
SCORE_YONCA = 70
SCORE_14 = 60
SCORE_NONE = 0  # a total under 26 that is not special: may not stand
SCORE_BUST = -1
STAND_MIN = 26

CATEGORY_NAMES = {SCORE_31: "31", SCORE_CIN: "cin", SCORE_CENGEL: "cengel", SCORE_YONCA: "yonca",
                  SCORE_14: "14", SCORE_NONE: "none", SCORE_BUST: "bust"}

LIVE = ("in", "stood", "31")  # statuses still competing for the pot


def score_parts(low: int, aces: int, ncards: int, two_card_special: int) -> int:
    """Score from the low total (Aces as 1), the Ace count, the card count and the two-card class."""
    if low > 31:
        return SCORE_BUST
    best = low
    has14 = low == 14
    total = low
    for _ in range(aces):
        total += 10  # one more Ace counted as 11
        if total == 31:
            return SCORE_31
        if total == 14:
            has14 = True
        if total <= 31:
            best = total
    if low == 31:
        return SCORE_31
    if ncards == 2 and two_card_special:
        return two_card_special
    if has14:
        return SCORE_14
    return best if STAND_MIN <= best <= 30 else SCORE_NONE


def two_card_class(a: str, b: str) -> int:
    """Cin, Çengel, Yonca (or 0) for a two-card hand."""
    if a[1] == "A" and b[1] == "A":
        return SCORE_CIN
    if a[1] == "J" and b[1] == "J":
        return SCORE_CENGEL
    if a[0] == "C" and b[0] == "C":
        return SCORE_YONCA
    return 0


def hand_score(cards: list[str]) -> int:
    """The hand's best category over every way of counting its Aces (see the spec's list)."""
    low = sum(LOW_VALUE[c] for c in cards)
    aces = sum(1 for c in cards if c[1] == "A")
    special = two_card_class(cards[0], cards[1]) if len(cards) == 2 else 0
    return score_parts(low, aces, len(cards), special)


def category(score: int) -> str:
    """Public name of a score: "31", "cin", "cengel", "yonca", "14", "26".."30", "none", "bust"."""
    return CATEGORY_NAMES.get(score, str(score))


def can_stand(score: int) -> bool:
    """Standing needs 26 or more, or a special hand (31 ends the turn by itself)."""
    return score >= STAND_MIN and score != SCORE_31


def totals(cards: list[str]) -> list[int]:
    """Every total the hand can count (for displays)."""
    low = sum(LOW_VALUE[c] for c in cards)
    aces = sum(1 for c in cards if c[1] == "A")
    return [low + 10 * k for k in range(aces + 1)]


def raise_amounts(pot: int) -> list[int]:
    """Concrete raises offered: the minimum, a quarter, a half, three quarters and the whole pot."""
    return sorted({1, max(1, pot // 4), max(1, pot // 2), max(1, 3 * pot // 4), max(1, pot)})


def pick_winner(candidates: list[int], scores: dict[int, int], ebe: int, order: list[int]) -> int:
    """Best score wins; equal hands: the ebe, else the first in play order from ebe altı."""
    best = max(scores[s] for s in candidates)
    tied = [s for s in candidates if scores[s] == best]
    if ebe in tied:
        return ebe
    return min(tied, key=order.index)


def ebe_draw(seed: bytes, n: int) -> tuple[int, list[list[dict]], list[str]]:
    """High open card from shuffle 0:ebe; only tied players draw again, in seat order."""
    cards = fairness.shuffle(seed, 0, "ebe", list(DECK))
    pos, contenders, rounds = 0, list(range(n)), []
    while True:
        drawn = []
        for s in contenders:
            drawn.append({"seat": s, "card": cards[pos]})
            pos += 1
        rounds.append(drawn)
        best = max(EBE_VALUE[d["card"]] for d in drawn)
        contenders = [d["seat"] for d in drawn if EBE_VALUE[d["card"]] == best]
        if len(contenders) == 1:
            return contenders[0], rounds, cards
