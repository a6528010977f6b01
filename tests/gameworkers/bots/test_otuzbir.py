"""31 bots: view-only decisions, sensible play, learned bluff rates that change answers, styles."""

from __future__ import annotations

import json
import random

from gameworkers.bots import RandomBot, get_bot, styles
from gameworkers.bots import otuzbir as b
from gameworkers.engines import fairness, get_engine
from gameworkers.simulate import play_game

ENGINE = get_engine("otuzbir")
SEED = bytes(range(32))


def table(n: int, ebe: int, top: list[str], rest_reversed: bool = False) -> dict:
    state = ENGINE.new(SEED, n, {"ebe": ebe})
    rest = [c for c in fairness.OTUZBIR_DECK if c not in top]
    state["deck"] = list(top) + (rest[::-1] if rest_reversed else rest)
    return state


def apply_all(state: dict, moves: list[tuple[int, dict]]) -> dict:
    start = state["last_move_ms"] or 0  # time never runs backwards (the engine refuses it)
    for k, (seat, move) in enumerate(moves):
        state, _ = ENGINE.apply(state, seat, move, now_ms=start + 100 * k)
    return state


def test_styles_have_public_descriptions_and_a_default():
    found = styles("otuzbir")
    assert list(found)[:4] == ["balanced", "tight-passive", "loose-aggressive", "tricky"]
    for name, cls in b.STYLES.items():
        assert cls.style == name and cls.description.endswith(".") and len(cls.description) > 30
    assert get_bot("otuzbir").style == "balanced"
    assert len({cls.description for cls in b.STYLES.values()}) == len(b.STYLES)


def test_the_bot_sees_only_its_view_and_treats_others_closed_cards_as_unknown():
    # Two deals that differ only in hidden cards (others' closed cards, the stock order) give
    # seat 1 the same view, and so the same decision.
    moves = [(1, {"type": "pass"}), (1, {"type": "open"})]
    a = apply_all(table(3, 0, ["SK", "S2", "S3", "H5"]), moves)
    c = apply_all(table(3, 0, ["SK", "D9", "C4", "H5"], rest_reversed=True), moves)
    va, vc = ENGINE.view(a, 1), ENGINE.view(c, 1)
    assert va == vc and a["closed"] != c["closed"]
    bot = get_bot("otuzbir", "balanced")
    legal = ENGINE.legal_moves(a, 1)
    assert bot.choose(va, legal, random.Random(3)) == bot.choose(vc, legal, random.Random(3))
    model = b.SimModel(va)
    assert "S2" in model.pool and "S3" in model.pool  # seats 2 and 0 hold them, unseen by seat 1
    assert "SK" not in model.pool and "H5" not in model.pool and len(model.pool) == 50


def test_sensible_play_draws_under_26_stands_on_specials_and_sees_with_31():
    bot = get_bot("otuzbir", "tight-passive")
    rng = random.Random(1)
    # 20: may not stand, so it draws
    s = apply_all(table(2, 0, ["SK", "S2", "HQ"]), [(1, {"type": "pass"}), (1, {"type": "open"})])
    move = bot.choose(ENGINE.view(s, 1), ENGINE.legal_moves(s, 1), rng)
    assert move["type"] in ("open", "closed")
    # Cin (two Aces) is the second-best hand: stand (perhaps raising), never draw
    s = apply_all(table(2, 0, ["SA", "S2", "HA"]), [(1, {"type": "pass"}), (1, {"type": "open"})])
    move = bot.choose(ENGINE.view(s, 1), ENGINE.legal_moves(s, 1), rng)
    assert move["type"] in ("stand", "raise_stand")
    # holding 31 (A K K) against a pot-sized raise: see
    s = apply_all(table(2, 1, ["SA", "S2", "HK", "DK"]),
                  [(0, {"type": "pass"}), (0, {"type": "open"}), (0, {"type": "open"})])
    assert s["status"][0] == "31"
    s = apply_all(s, [(1, {"type": "closed", "amount": s["pot"]})])
    assert bot.choose(ENGINE.view(s, 0), ENGINE.legal_moves(s, 0), rng) == {"type": "see"}


def _answer_position() -> dict:
    """Heads-up, ebe 0: seat 1 shows K + 9 open and raises 2 as it stands; seat 0 holds a 9."""
    s = apply_all(table(2, 0, ["S9", "H9", "SK", "C9"]),
                  [(1, {"type": "pass"}), (1, {"type": "open"}), (1, {"type": "open"})])
    assert s["status"][1] == "in" and s["turn"] == 1 and s["pot"] == 2
    return apply_all(s, [(1, {"type": "raise_stand", "amount": 2})])


def test_memory_learns_weak_raises_from_showdowns_and_stays_plain_json():
    bot = get_bot("otuzbir", "balanced")
    view = ENGINE.view(_answer_position(), 0)
    summary = {"type": "hand_over", "hand": 4, "showdown": [{"seat": 1, "category": "26"}, {"seat": 0, "category": "29"}],
               "raises": [{"seat": 1, "amount": 3, "kind": "closed"}, {"seat": 0, "amount": 1, "kind": "stand"}]}
    before = bot.bluff_rate(view, 1)
    bot.observe(view, [summary])
    bot.observe(view, [summary])  # the same hand is counted once
    assert bot.memory["opponents"] == {"seat1": {"raised": 1, "weak": 1}}  # its own raise is not learned
    assert bot.bluff_rate(view, 1) > before
    strong = dict(summary, hand=5, showdown=[{"seat": 1, "category": "cin"}])
    bot.observe(view, [strong])
    assert bot.memory["opponents"]["seat1"] == {"raised": 2, "weak": 1}
    assert json.loads(json.dumps(bot.memory)) == bot.memory
    # the platform's player ids key the model when present
    keyed = get_bot("otuzbir", "balanced")
    keyed.observe(dict(view, player_ids=["me", "ayse"]), [summary])
    assert list(keyed.memory["opponents"]) == ["ayse"]


def test_a_learned_bluffer_is_seen_more_often_than_an_honest_raiser():
    view = ENGINE.view(_answer_position(), 0)
    legal = [{"type": "see"}, {"type": "fold"}]
    bluffer = {"version": 1, "last": None, "opponents": {"seat1": {"raised": 40, "weak": 32}}}
    honest = {"version": 1, "last": None, "opponents": {"seat1": {"raised": 40, "weak": 1}}}
    p_bluff = b.SimBot(json.loads(json.dumps(bluffer))).simulate_answer(view, random.Random(9), True)
    p_honest = b.SimBot(json.loads(json.dumps(honest))).simulate_answer(view, random.Random(9), True)
    assert p_bluff > p_honest + 0.1
    # the pot is 4 with seat 1's 2 chips: seeing 2 for 6 needs 1/3, times call_mult 1.7 = 0.57
    picky = type("Picky", (b.SimBot,), {"call_mult": 1.7})
    assert picky(bluffer).choose(view, legal, random.Random(9)) == {"type": "see"}
    assert picky(honest).choose(view, legal, random.Random(9)) == {"type": "fold"}
    # with learning switched off the model is ignored
    off = type("Off", (picky,), {"learn": False})
    assert off(bluffer).choose(view, legal, random.Random(9)) == off(honest).choose(view, legal, random.Random(9))


def test_every_style_plays_whole_tables_legally():
    for k, name in enumerate(b.STYLES):
        bots = [get_bot("otuzbir", name), get_bot("otuzbir", "random"), get_bot("otuzbir", name)]
        state = play_game("otuzbir", bytes([k + 1]) * 32, 3, options={"hands": 3}, bots=bots, rng_seed=k)
        assert ENGINE.is_over(state) and sum(ENGINE.result(state)["net"]) == 0


def test_the_default_bot_beats_a_random_player_over_seeded_hands():
    total = 0
    for t in range(6):
        bots = [get_bot("otuzbir", "balanced"), RandomBot()]
        if t % 2:
            bots.reverse()
        state = play_game("otuzbir", bytes([t + 40]) * 32, 2, options={"hands": 10}, bots=bots, rng_seed=t)
        total += ENGINE.result(state)["net"][t % 2]
    assert total > 0
