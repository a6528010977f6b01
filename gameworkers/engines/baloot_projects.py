"""Baloot projects: the runs and fours a hand holds, what a declaration may contain, and how
projects compare (../shared/spec/baloot.md, "Projects")."""

from __future__ import annotations

from itertools import product

from .baloot_cards import RANKS, SUITS

PROJECT_KINDS = ("sira", "fifty", "hundred", "four_hundred")
PROJECT_RANK = {k: i for i, k in enumerate(PROJECT_KINDS)}
PROJECT_CARD_POINTS = {"sira": 20, "fifty": 50, "hundred": 100, "four_hundred": 200}
RUN_KIND = {3: "sira", 4: "fifty"}  # 5 or more: hundred


def _seq(card: str) -> int:
    return RANKS.index(card[1])


def held_runs(hand: list[str]) -> list[list[str]]:
    """Maximal runs of 3+ consecutive cards (sequence order) in one suit, low to high."""
    runs = []
    for s in SUITS:
        ranks = sorted(_seq(c) for c in hand if c[0] == s)
        cur: list[int] = []
        for r in ranks:
            if cur and r == cur[-1] + 1:
                cur.append(r)
            else:
                if len(cur) >= 3:
                    runs.append([s + RANKS[x] for x in cur])
                cur = [r]
        if len(cur) >= 3:
            runs.append([s + RANKS[x] for x in cur])
    return runs


def classify_project(cards: list[str], sun: bool) -> str | None:
    """The project these cards form (or None): a run of 3+ in one suit, or a counting four."""
    if len(cards) != len(set(cards)) or len(cards) < 3:
        return None
    if len(cards) == 4 and len({c[1] for c in cards}) == 1:
        rank = cards[0][1]
        if rank in "TJQK":
            return "hundred"
        if rank == "A":
            return "four_hundred" if sun else "hundred"
        return None
    if len({c[0] for c in cards}) != 1:
        return None
    seqs = sorted(_seq(c) for c in cards)
    if seqs != list(range(seqs[0], seqs[0] + len(seqs))):
        return None
    return RUN_KIND.get(len(cards), "hundred")


def project_top(project: dict) -> int:
    """Top card in sequence order (for a four: its rank)."""
    return max(_seq(c) for c in project["cards"])


def candidate_projects(hand: list[str], sun: bool) -> list[list[dict]]:
    """Every valid declaration (list of projects) for this hand, including none."""
    groups: list[list[dict | None]] = []
    for run in held_runs(hand):
        options: list[dict | None] = [None]
        for length in range(3, len(run) + 1):
            for start in range(0, len(run) - length + 1):
                cards = run[start:start + length]
                options.append({"kind": classify_project(cards, sun), "cards": cards})
        groups.append(options)
    for rank in "TJQKA":
        four = [s + rank for s in SUITS]
        if all(c in hand for c in four):
            groups.append([None, {"kind": classify_project(four, sun), "cards": four}])
    found = []
    for combo in product(*groups):
        chosen = [p for p in combo if p is not None]
        if declaration_problem(chosen) is None:
            found.append(chosen)
    return found


def declaration_problem(projects: list[dict]) -> str | None:
    """Why these projects may not be declared together (None: they may)."""
    used: set[str] = set()
    kinds: dict[str, int] = {}
    for p in projects:
        if used & set(p["cards"]):
            return "A card may be used in only one project."
        used |= set(p["cards"])
        kinds[p["kind"]] = kinds.get(p["kind"], 0) + 1
        if kinds[p["kind"]] > 2:
            return "The same project type counts at most twice."
    return None


def project_key(project: dict, position: int) -> tuple[int, int, int]:
    """Bigger is better: type, top card, then the earlier player from the dealer's right."""
    kind = project["kind"]
    rank = PROJECT_RANK["hundred"] if kind == "hundred" else PROJECT_RANK[kind]
    return (rank, project_top(project), -position)
