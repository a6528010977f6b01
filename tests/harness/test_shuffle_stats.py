"""Shuffle statistics (fairness.md): the platform's shuffle is position-uniform, known-bad shuffles fail.

The fast tests use a few thousand deterministic seeds (so they never flake); the slow one is the full
108,000-shuffle run of the issue. ``bench/shuffle_stats.py`` prints the same figures.
"""

from __future__ import annotations

import math

import pytest

from bench import shuffle_stats as ss
from gameworkers.engines import fairness


def test_index_shuffle_is_the_platform_shuffle_of_the_canonical_deck():
    for index in range(20):
        seed = ss.seed_for(index)
        order = ss.platform_shuffle(seed, ss.N_CARDS)
        assert sorted(order) == list(range(ss.N_CARDS))
        assert [fairness.LEMBAR_DECK[i] for i in order] == fairness.shuffle(seed, 0, "kocok", list(fairness.LEMBAR_DECK))


def test_published_vector_is_reproduced_through_indices():
    seed = bytes(range(32))
    order = ss.platform_shuffle(seed, ss.N_CARDS)
    assert [fairness.LEMBAR_DECK[i] for i in order[:12]] == "K2 P6 P6 K8 M3 M3 T5 P4 T1 T4 KS T4".split()


@pytest.mark.parametrize("df", [2, 10, 100, 1000, 11448])
@pytest.mark.parametrize("quantile_z", [-3.0, -1.0, 0.0, 1.0, 2.0, 3.09, 4.0])
def test_wilson_hilferty_tail_is_accurate(df, quantile_z):
    x = max(0.01, df + quantile_z * math.sqrt(2 * df))
    exact = ss.chi2_sf_even(x, df)
    approx = ss.chi2_sf(x, df)
    tolerance = 0.02 if df < 100 else 2e-4
    assert abs(exact - approx) < tolerance, (df, x, exact, approx)
    if exact < 0.01 and df >= 100:  # the tail that decides alpha = 0.001 is right relatively too
        assert abs(math.log(approx / exact)) < 0.1


def test_exact_even_tail_known_values():
    assert ss.chi2_sf_even(2.0, 2) == pytest.approx(math.exp(-1.0))
    assert ss.chi2_sf_even(9.487729, 4) == pytest.approx(0.05, abs=1e-6)  # the 5% point of chi2(4)


def test_corrected_statistic_has_the_expectation_of_its_degrees_of_freedom():
    # Perfectly balanced table: statistic 0; a single permutation repeated: maximal.
    n = 5
    balanced = [1] * (n * n)
    assert ss.corrected_statistic(balanced, n, n) == 0
    counts = ss.table_for("platform", 2000, n=n)
    stat = ss.corrected_statistic(counts, 2000, n)
    assert 1 < stat < 50  # expectation (n-1)^2 = 16


def test_platform_shuffle_passes_at_alpha_0001_fast():
    result = ss.evaluate("platform", 2160)
    assert result["df"] == 107 ** 2
    assert result["uniform"], result


@pytest.mark.parametrize("kind,shuffles", [("naive", 1080), ("off_by_one", 1080)])
def test_known_bad_shuffles_fail_fast(kind, shuffles):
    result = ss.evaluate(kind, shuffles)
    assert not result["uniform"], result
    assert result["p_value"] < 1e-6


@pytest.mark.slow
def test_platform_shuffle_108000_shuffles():
    result = ss.evaluate("platform", 108_000, processes=2)
    assert result["uniform"], result


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["naive", "off_by_one"])
def test_known_bad_shuffles_fail_at_108000(kind):
    result = ss.evaluate(kind, 108_000, processes=2)
    assert not result["uniform"], result
