"""Shared by the Lembar golden-scenario modules (test_lembar*.py): positions built directly and the
move helpers (../shared/spec/lembar.md)."""

from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path

import pytest

from gameworkers.engines import IllegalMove, get_engine
from gameworkers.engines.lembar import DECK, MOTIF_OF

E = get_engine("lembar")
SEED = bytes(range(32))
ROOT = Path(__file__).resolve().parents[3]


def build(hands: list[list[str]], pile: list[str], *, stock: list[str] | None = None, turn: int = 0,
          motif: str | None = None, direction: int = 1) -> dict:
    """A position: given hands and pile (oldest first); the stock is ``stock`` or every other card
    of the deck in canonical order (so all 108 cards stay accounted for)."""
    s = E.new(SEED, len(hands))
    s["hands"] = [list(h) for h in hands]
    s["pile"] = list(pile)
    s["motif"] = motif or MOTIF_OF[pile[-1]]
    if stock is None:
        used = Counter(pile) + Counter(c for h in hands for c in h)
        rest = Counter(DECK) - used
        stock = [c for c in dict.fromkeys(DECK) for _ in range(rest[c])]
    s["stock"] = list(stock)
    s["turn"] = turn
    s["direction"] = direction
    return s


def play(s: dict, seat: int | None, move: dict, now: int = 1000) -> tuple[dict, list[dict]]:
    return E.apply(s, seat, move, now_ms=now)


def refused(s: dict, seat: int | None, move: object, code: str, now: int = 1000) -> None:
    before = copy.deepcopy(s)
    with pytest.raises(IllegalMove) as info:
        E.apply(s, seat, move, now_ms=now)  # type: ignore[arg-type]
    assert info.value.code == code, info.value.message
    assert s == before


def play_cards(s: dict, seat: int) -> set[str]:
    return {m["card"] for m in E.legal_moves(s, seat) if m["type"] == "play"}
