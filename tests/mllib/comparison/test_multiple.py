"""Benjamini-Hochberg (mllib.comparison.benjamini_hochberg) against statsmodels' multipletests(method="fdr_bh") on
the same p-values, with ties, NaN and the edge cases; and its promise: over independent null tests it rejects none
most of the time, where a per-test level would reject a share q of them."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from mllib.comparison import benjamini_hochberg


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("q", [0.05, 0.2])
def test_agrees_with_statsmodels(seed, q):
    rng = np.random.default_rng(seed)
    p = np.concatenate([rng.uniform(size=80), rng.uniform(0, 0.002, size=20)])
    p[:5] = p[5]  # ties
    np.testing.assert_array_equal(benjamini_hochberg(p, q), multipletests(p, alpha=q, method="fdr_bh")[0])


def test_nan_is_never_rejected_and_not_counted():
    p = np.array([0.01, np.nan, 0.02, 0.9])
    np.testing.assert_array_equal(benjamini_hochberg(p, 0.05), [True, False, True, False])  # m = 3: 0.02 <= 2/3 * 0.05
    assert not benjamini_hochberg(np.full(3, np.nan)).any()


def test_null_tests_are_rarely_rejected():
    rng = np.random.default_rng(0)
    rejected = [benjamini_hochberg(rng.uniform(size=5000), 0.05).any() for _ in range(200)]
    assert np.mean(rejected) <= 0.1  # FDR control: any rejection is a false one, at most ~q of the time


def test_bad_q_is_refused():
    with pytest.raises(ValueError, match="q must be in"):
        benjamini_hochberg([0.1], 1.0)
