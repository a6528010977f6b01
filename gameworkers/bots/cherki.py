"""Cherki bots. They decide from their seat's view only: own hand, the discard pile and the
cards publicly taken from it (``known``); they never see the stock or another closed hand.

The collector scores a hand by how far it is from "two triples and a pair" and how live the
cards it still needs are: a needed key is live when copies of it are not in sight (own hand,
pile, cards others took from the pile). A waiting hand is only worth calling if its
completing key is still live.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations_with_replacement

from gameworkers.bots import Bot, Move, RandomBot

HONOURS = ("WF", "RF", "OT")
KEYS: tuple[str, ...] = tuple(str(n) for n in range(1, 10)) + HONOURS
TOTAL: dict[str, int] = {k: (4 if k in HONOURS else 12) for k in KEYS}  # copies of each set key
INF = float("inf")


def key_of(card: str) -> str:
    return card if card in HONOURS else card[1]


def points_of(card: str) -> int:
    return 1 if card in HONOURS else int(card[1])


def live_counts(view: dict) -> dict[str, int]:
    """Copies of each key not in sight of this seat: in the stock or closed in other hands."""
    seen = Counter(key_of(c) for c in view.get("hand", []))
    seen.update(key_of(c) for c in view.get("pile", []))
    me = view.get("seat")
    for s, cards in enumerate(view.get("known", [])):
        if s != me:
            seen.update(key_of(c) for c in cards)
    return {k: max(0, TOTAL[k] - seen[k]) for k in KEYS}


def hand_cost(cards: list[str], live: dict[str, int]) -> float:
    """Lower is better: expected effort to reach a ready hand with a live wait (INF: hopeless).

    Tries every choice of two triple keys and one pair key among the keys held; a missing card
    costs more when few copies are live, and the finished wait costs more when it has few outs.
    """
    have = Counter(key_of(c) for c in cards)
    held = list(have)
    best = INF
    for a, b in combinations_with_replacement(held, 2):
        for p in held:
            need = Counter({a: 3})
            need[b] += 3
            need[p] += 2
            cost = 0.0
            for k, n in need.items():
                if n > TOTAL[k]:
                    cost = INF
                    break
                missing = n - have[k]
                if missing > 0:
                    if missing > live[k]:
                        cost = INF
                        break
                    cost += missing * (1.0 + 3.0 / (live[k] + 1))
            if cost >= best:
                continue
            outs = live[p] - max(0, need[p] - have[p])
            if outs <= 0:
                continue  # the wait would be dead
            cost += 4.0 / outs
            if cost < best:
                best = cost
    return best


class CollectorBot(Bot):
    style = "collector"
    description = "Collects two triples and a pair from the live cards it can count, calls Cherki and waits."

    def choose(self, view: dict, legal: list[Move], rng: random.Random, *, optional: bool = False) -> Move | None:
        if not legal:
            return None
        if optional:
            return None  # Cherki has no optional moves: act only on our own turn
        types = {m["type"] for m in legal}
        if "take" in types and view["called"][view["seat"]]:
            return {"type": "take"}  # legal only when it completes the hand: win at once
        live = live_counts(view)
        if view["phase"] == "draw":
            return self._draw_or_take(view, legal, types, live)
        return self._discard(view, legal, live)

    def _draw_or_take(self, view: dict, legal: list[Move], types: set[str], live: dict[str, int]) -> Move:
        hand = view["hand"]
        if "call" in types and live.get(view.get("wait") or "", 0) > 0:
            return {"type": "call"}
        if "take" in types:
            top = view["top"]
            now = hand_cost(hand, live)
            after = self._best_discard([*hand, top], top, live)[1]
            # a draw is a free look at a new card, so taking must clearly improve the hand
            if after < now - 0.75:
                return {"type": "take"}
        return {"type": "draw"}

    @staticmethod
    def _best_discard(hand: list[str], forbidden: str | None, live: dict[str, int]) -> tuple[str, float]:
        best_card, best_cost = "", INF
        # Ties: throw the low card, keep the points; equal points by code, never by set order (which
        # follows PYTHONHASHSEED, so the same seeded game differed between processes).
        for card in sorted(set(hand), key=lambda c: (points_of(c), c)):
            if card == forbidden:
                continue
            kept = list(hand)
            kept.remove(card)
            cost = hand_cost(kept, live)
            if best_card == "" or cost < best_cost:
                best_card, best_cost = card, cost
        return best_card, best_cost

    def _discard(self, view: dict, legal: list[Move], live: dict[str, int]) -> Move:
        card, _ = self._best_discard(view["hand"], view.get("took"), live)
        calls = {m["card"] for m in legal if m.get("call")}
        if card in calls:
            kept = list(view["hand"])
            kept.remove(card)
            waits = Counter(key_of(c) for c in kept)
            wait = next(k for k, n in waits.items() if n % 3 == 2)
            if live[wait] > 0:
                return {"type": "discard", "card": card, "call": True}
        move = {"type": "discard", "card": card, "call": False}
        return move if move in legal else legal[0]


STYLES: dict[str, type[Bot]] = {
    "collector": CollectorBot,
    "random": RandomBot,
}
