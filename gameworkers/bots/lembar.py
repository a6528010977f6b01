"""Lembar bots: decide from ``view`` (what the seat may see) and the legal moves only.

Two styles share the reflexes (call "Lembar!" at once, catch every missing call, play rather
than draw, play a playable drawn card) and differ in which card they play:
- ``cerdik`` (default) sheds expensive cards while keeping its strongest motif going, saves
  wilds for when nothing else fits, and turns its attack cards on a next player about to win;
- ``agresif`` plays attack cards (draw four/two, skip, reverse) whenever it can.
"""

from __future__ import annotations

import random
from typing import Any

from gameworkers.bots import Bot

Move = dict[str, Any]
MOTIFS = ("P", "K", "T", "M")
WILDS = ("W", "F")


def _motif_counts(hand: list[str]) -> dict[str, int]:
    counts = dict.fromkeys(MOTIFS, 0)
    for c in hand:
        if c not in WILDS:
            counts[c[0]] += 1
    return counts


def _next_seat(view: dict) -> int:
    """The next player in play order after this seat (removed seats skipped)."""
    n, d, active, seat = view["seats"], view["direction"], view["active"], view["seat"]
    i = seat
    for _ in range(n):
        i = (i + d) % n
        if active[i]:
            return i
    return seat


class LembarBot(Bot):
    game = "lembar"
    style = "cerdik"
    description = ("Sheds its costliest cards while keeping its strongest motif in play, saves wilds "
                   "for emergencies and attacks a next player who is close to winning.")

    def choose(self, view: dict, legal: list[Move], rng: random.Random, *, optional: bool = False) -> Move | None:
        if not legal:
            return None
        turn_moves: list[Move] = []
        catch: Move | None = None
        for m in legal:
            t = m["type"]
            if t == "call":
                return m  # never leave a missing call open
            if t == "catch":
                catch = catch or m
            elif t in ("play", "draw", "keep"):
                turn_moves.append(m)
        if catch is not None:
            return catch
        if not turn_moves:
            return None
        return self.turn_move(view, turn_moves, rng)

    # ----- the card choice ----------------------------------------------------------------
    def turn_move(self, view: dict, moves: list[Move], rng: random.Random) -> Move:
        plays = [m for m in moves if m["type"] == "play"]
        if not plays:
            return moves[0]  # draw (or keep)
        hand: list[str] = view["hand"]
        # A play that leaves one card always carries the call.
        leaves_one = len(hand) == 2
        plays = [m for m in plays if bool(m.get("call")) == leaves_one] or plays
        counts = _motif_counts(hand)
        best_motif = max(MOTIFS, key=lambda mo: (counts[mo], -MOTIFS.index(mo)))
        # A wild names the motif held most; drop the other motif variants.
        plays = [m for m in plays if m["card"] not in WILDS or m["motif"] == best_motif] or plays
        nxt = _next_seat(view)
        threat = view["hand_counts"][nxt] <= 2
        scored = [(self.score(m["card"], hand, counts, threat, view), rng.random(), i) for i, m in enumerate(plays)]
        return plays[max(scored)[2]]

    def score(self, card: str, hand: list[str], counts: dict[str, int], threat: bool, view: dict) -> float:
        if card == "F":
            return 80.0 if threat else -40.0
        if card == "W":
            return -50.0
        symbol = card[1]
        after = counts[card[0]] - 1  # cards of the new motif left after this play
        if symbol in "SRD":
            attack = {"D": 60.0, "S": 45.0, "R": 45.0 if sum(view["active"]) == 2 else 10.0}[symbol]
            return 20.0 + 3.0 * after + (attack if threat else 0.0)
        return float(symbol) + 3.0 * after


class AgresifBot(LembarBot):
    style = "agresif"
    description = "Plays its attack cards (draw four, draw two, skip, reverse) as soon as they fit."

    def score(self, card: str, hand: list[str], counts: dict[str, int], threat: bool, view: dict) -> float:
        if card == "F":
            return 100.0
        if card == "W":
            return -20.0
        symbol = card[1]
        after = counts[card[0]] - 1
        bonus = {"D": 90.0, "S": 70.0, "R": 60.0}.get(symbol, float(symbol) if symbol.isdigit() else 0.0)
        return bonus + 2.0 * after


STYLES: dict[str, type[Bot]] = {"cerdik": LembarBot, "agresif": AgresifBot}
