import json
from pathlib import Path

import pytest

from gameworkers.engines import fairness

# A copy of ../shared/spec/fairness-vectors.json, so the suite runs from any checkout;
# test_vectors_copy_matches_the_spec keeps it honest where the spec is beside us.
HERE = Path(__file__).resolve().parent
SPEC_VECTORS = HERE.parents[3] / "shared" / "spec" / "fairness-vectors.json"
VECTORS = json.loads((HERE / "fairness-vectors.json").read_text())["vectors"]


@pytest.mark.skipif(not SPEC_VECTORS.exists(), reason="../shared/spec not beside this checkout")
def test_vectors_copy_matches_the_spec():
    assert json.loads(SPEC_VECTORS.read_text())["vectors"] == VECTORS


@pytest.mark.parametrize("v", VECTORS, ids=lambda v: v["seed"][:8])
def test_every_published_vector(v):
    seed = bytes.fromhex(v["seed"])
    assert fairness.commitment(seed) == v["commitment"]
    for n, first in v["first_player"].items():
        assert fairness.first_player(seed, int(n)) == first
    assert fairness.shuffle(seed, 0, "kocok", list(fairness.LEMBAR_DECK)) == v["lembar_deal0"]
    assert fairness.shuffle(seed, 37, "kocok-ulang", list(fairness.LEMBAR_DECK[:20])) == (
        v["lembar_reshuffle_round37_of_first_20_cards"])
    assert fairness.shuffle(seed, 0, "kocok", list(fairness.BALOOT_DECK)) == v["baloot_deal0"]
    assert fairness.shuffle(seed, 3, "kocok", list(fairness.BALOOT_DECK)) == v["baloot_deal3"]
    assert fairness.shuffle(seed, 0, "ebe", list(fairness.OTUZBIR_DECK)) == v["otuzbir_ebe"]
    assert fairness.shuffle(seed, 0, "kocok", list(fairness.OTUZBIR_DECK)) == v["otuzbir_deal0"]
    assert fairness.shuffle(seed, 0, "kocok", list(fairness.CHERKI_DECK)) == v["cherki_deal0"]
    for message, value in v["draws"].items():
        assert fairness.draw(seed, message, 1000003) == value


def test_spec_text_vector():
    seed = bytes(range(32))
    assert fairness.shuffle(seed, 0, "kocok", list(fairness.LEMBAR_DECK))[:12] == (
        "K2 P6 P6 K8 M3 M3 T5 P4 T1 T4 KS T4".split())


def test_seed_is_fresh_and_hex_round_trips():
    a, b = fairness.new_seed(), fairness.new_seed()
    assert len(a) == 32 and a != b
    assert fairness.seed_from_hex(a.hex()) == a
    with pytest.raises(ValueError):
        fairness.seed_from_hex("zz")


def test_draw_rejects_empty_range():
    with pytest.raises(ValueError):
        fairness.draw(bytes(32), "x", 0)


@pytest.mark.parametrize("deck", ["LEMBAR_DECK", "BALOOT_DECK", "CHERKI_DECK", "OTUZBIR_DECK"])
def test_the_fast_shuffle_every_engine_uses_is_the_reference_shuffle(deck):
    """fairness.shuffle (hashing HMAC's pads once) equals the rule as written, for every deck and a few
    rounds, purposes, seeds and lengths (including 0 and 1 card)."""
    cards = list(getattr(fairness, deck))
    for seed in (bytes(32), bytes([255]) * 32, bytes(range(32))):
        for rnd, purpose, initial in ((0, "kocok", cards), (17, "kocok-ulang", cards[:40]), (123, "x", cards[:1]),
                                      (5, "ebe", [])):
            assert fairness.shuffle(seed, rnd, purpose, initial) == fairness.shuffle_reference(seed, rnd, purpose, initial)
