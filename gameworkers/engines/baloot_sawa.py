"""Sawa: may the leader claim every remaining trick? An exact search over the four hands."""

from __future__ import annotations

from itertools import product
from typing import Any

from . import fairness
from .baloot_cards import SUITS, strength

_CARD_INT = {c: i for i, c in enumerate(fairness.BALOOT_DECK)}


def sawa_possible(hands: list[list[str]], leader: int, trump: str | None, lock: bool) -> bool:
    """Can ``leader`` win every remaining trick whatever the other three play?

    Exact minimax: the leader picks a lead, the others any legal reply. Only comparisons
    with the leader's cards matter (any responder beating the leader already refutes Sawa),
    so a responder's card is known by its suit and how many of the leader's cards of that
    suit it outranks: positions are memoised on those classes, and of the replies only the
    undominated ones are searched (see below).
    """
    suit_of = [i // 8 for i in range(32)]
    st = [strength(c, trump) for c in fairness.BALOOT_DECK]
    t = SUITS.index(trump) if trump is not None else -1
    lead_hand = frozenset(_CARD_INT[c] for c in hands[leader])
    others = tuple(tuple(sorted(_CARD_INT[c] for c in hands[(leader + k) % 4])) for k in (1, 2, 3))
    memo: dict[Any, bool] = {}
    if _sawa_static(lead_hand, others, suit_of, st, t, lock):
        return True

    def gaps(mine: frozenset) -> list[int]:
        """For every card: how many of the leader's cards of its suit it outranks."""
        out = [0] * 32
        for y in mine:
            sy, ty = suit_of[y], st[y]
            base = sy * 8
            for x in range(base, base + 8):
                if st[x] > ty:
                    out[x] += 1
        return out

    def solve(mine: frozenset, opp: tuple) -> bool:
        if not mine:
            return True
        leads = sorted(mine, key=lambda c: -st[c])
        if lock and t >= 0 and any(suit_of[c] != t for c in mine):
            leads = [c for c in leads if suit_of[c] != t]
        # cheap filter first: leads that win this trick against every reply
        winning = []
        for c in leads:
            s, sc = suit_of[c], st[c]
            for o in opp:
                has_suit = False
                beaten = False
                has_trump = False
                for x in o:
                    sx = suit_of[x]
                    if sx == s:
                        has_suit = True
                        if st[x] > sc:
                            beaten = True
                            break
                    elif sx == t:
                        has_trump = True
                if beaten or (not has_suit and has_trump and s != t):
                    break  # beaten in suit, or a void responder must trump
            else:
                winning.append(c)
        if not winning:
            return False
        # Of the winning leads of one suit only the lowest is tried: the leader keeping the
        # higher card is never worse off (it is legal and wins wherever the lower one would).
        lowest_lead: dict[int, int] = {}
        for c in winning:
            k = suit_of[c]
            if k not in lowest_lead or st[c] < st[lowest_lead[k]]:
                lowest_lead[k] = c
        winning = list(lowest_lead.values())
        if len(mine) == 1:
            return True
        g = gaps(mine)
        key = (mine, tuple(tuple(sorted(suit_of[x] * 16 + g[x] for x in o)) for o in opp))
        hit = memo.get(key)
        if hit is not None:
            return hit
        answer = False
        for c in winning:
            s = suit_of[c]
            rest = mine - {c}
            replies: list[list[int]] = []
            for o in opp:
                # Keeping a higher card of a suit never hurts the defence (it is legal wherever
                # the lower one is and beats at least as much), so a responder following suit
                # plays its lowest card, and a void responder discards the lowest of some suit.
                follow = [x for x in o if suit_of[x] == s]
                lowest: dict[int, int] = {}
                for x in follow or o:
                    k = suit_of[x]
                    if k not in lowest or st[x] < st[lowest[k]]:
                        lowest[k] = x
                replies.append(list(lowest.values()))
            if all(solve(rest, tuple(tuple(x for x in o if x != r) for o, r in zip(opp, combo, strict=True)))
                   for combo in product(*replies)):
                answer = True
                break
        memo[key] = answer
        return answer

    return solve(lead_hand, others)


def _sawa_static(mine: frozenset, opp: tuple, suit_of: list[int], st: list[int], t: int, lock: bool) -> bool:
    """Quick sure win: every card of the leader tops its suit among the others' cards and, in
    Hokum, nobody else holds a trump, or (without Lock) the leader holds at least as many trumps
    as anyone and draws them first. The full search is then not needed."""
    theirs = [x for o in opp for x in o]
    for c in mine:
        if any(suit_of[x] == suit_of[c] and st[x] > st[c] for x in theirs):
            return False
    if t < 0:
        return True
    most = max(sum(1 for x in o if suit_of[x] == t) for o in opp)
    if most == 0:
        return True
    return not lock and sum(1 for c in mine if suit_of[c] == t) >= most
