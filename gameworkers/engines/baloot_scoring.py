"""Baloot scoring: card points to game points, the failed-bid test, and the score of a finished deal
(../shared/spec/baloot.md, "Scoring a deal"). Pure functions: nothing here changes the state."""

from __future__ import annotations

from .baloot_cards import LEGACY_RULES, TARGET, card_points, position, rules_revision, team_of
from .baloot_projects import project_key
from .base import State

LAST_TRICK = 10
# Game points of a project: x2/10 in Sun, /10 in Hokum.
PROJECT_GAME_SUN = {"sira": 4, "fifty": 10, "hundred": 20, "four_hundred": 40}
PROJECT_GAME_HOKUM = {"sira": 2, "fifty": 5, "hundred": 10}


def sun_game_points(raw: int) -> int:
    """Round to the nearest 10 (a total ending in 5 is not rounded), then divide by 5."""
    if raw % 10 == 5:
        return raw // 5
    return ((raw + 5) // 10 * 10) // 5


def hokum_game_points(raw: int) -> int:
    """Divide by 10; a remainder of 6-9 rounds up, 5 or less rounds down."""
    return raw // 10 + (1 if raw % 10 >= 6 else 0)


def bid_failed(final: list[int], card_points: list[int], bidders: int) -> bool:
    """The spec's one test of a failed bid, for every contract, sweeps and Gahwa included.

    ``final`` is each team's game points after the multiplier, Baloot included; the bidders fail
    unless theirs is more than the defenders' (equal: unless their card points, last trick
    included, are more; still equal: they fail).
    """
    defenders = 1 - bidders
    if final[bidders] != final[defenders]:
        return final[bidders] < final[defenders]
    return card_points[bidders] <= card_points[defenders]


def best_project_team(state: State) -> int | None:
    """The team holding the best declared project (only its projects score), None if nobody declared."""
    best: tuple | None = None
    team = None
    for seat in range(4):
        for p in state["projects"][seat] or []:
            key = project_key(p, position(state, seat))
            if best is None or key > best:
                best, team = key, team_of(seat)
    return team


def score_deal(state: State) -> dict:
    """The finished deal's scoring, as a card-free summary."""
    c = state["contract"]
    trump = c["trump"]
    sun = c["kind"] in ("sun", "ashkal")
    raw = [0, 0]
    trick_teams = []
    for t in state["tricks"]:
        raw[team_of(t["winner"])] += t["points"]
        trick_teams.append(team_of(t["winner"]))
    if state["sawa_by"] is not None:
        st = team_of(state["sawa_by"])
        raw[st] += sum(card_points(x, trump) for x in state["sawa_pile"]) + LAST_TRICK
        last_team = st
    else:
        last_team = team_of(state["tricks"][-1]["winner"])
        raw[last_team] += LAST_TRICK
    sweep = None
    if all(t == last_team for t in trick_teams):
        sweep = last_team
    dbl = state["doubling"] or {}
    mult = dbl.get("level", 1)
    gahwa = bool(dbl.get("gahwa"))
    baloot = [0, 0]
    if trump is not None:
        for s in state["baloot"]:
            baloot[team_of(s)] += 2
    best = best_project_team(state)
    table = PROJECT_GAME_SUN if sun else PROJECT_GAME_HOKUM
    proj = [0, 0]
    if best is not None:
        for s in (best, best + 2):
            proj[best] += sum(table[p["kind"]] for p in state["projects"][s] or [])
    bidders = c["team"]
    defenders = 1 - bidders
    total = 26 if sun else 16
    game = [0, 0]
    if sweep is not None:
        base = 44 if sun else 25
        deal = [0, 0]
        deal[sweep] = (base + proj[sweep]) * mult
        proj[1 - sweep] = 0
        game[sweep] = base
        deal = [deal[t] + baloot[t] for t in (0, 1)]
        # The sweep's own scores are the final game points: the sweepers always come out ahead,
        # so the bidders fail exactly when the defenders sweep (no transfer: a sweep is a sweep).
        failed = bid_failed(deal, raw, bidders)
    else:
        conv = sun_game_points if sun else hokum_game_points
        game[bidders] = conv(raw[bidders])
        game[defenders] = total - game[bidders]
        fin = [mult * (game[t] + proj[t]) + baloot[t] for t in (0, 1)]
        failed = bid_failed(fin, raw, bidders)
        if failed:
            deal = [0, 0]
            deal[bidders] = baloot[bidders]
            deal[defenders] = mult * (game[0] + game[1] + proj[0] + proj[1]) + baloot[defenders]
        else:
            deal = fin
    # "The bidders unless they fail"; Baloot is ignored only in a Gahwa deal's score.
    winner = defenders if failed else bidders
    if gahwa and sweep is None and rules_revision(state) == LEGACY_RULES:
        # Revision 1 judged the Gahwa winner without Baloot (replays of old games only).
        plain = [mult * (game[t] + proj[t]) for t in (0, 1)]
        winner = defenders if bid_failed(plain, raw, bidders) else bidders
    if gahwa:
        deal = [0, 0]
        deal[winner] = TARGET
    return {
        "deal": state["deal_no"], "dealer": state["dealer"], "void": False,
        "contract": dict(c), "multiplier": mult, "gahwa": gahwa,
        "lock": bool(dbl.get("lock")), "card_points": raw, "game_points": game,
        "project_points": proj, "best_project_team": best, "baloot": baloot,
        "sweep": sweep, "failed": failed, "sawa": state["sawa_by"],
        "deal_score": deal, "winner": winner if gahwa else None,
    }
