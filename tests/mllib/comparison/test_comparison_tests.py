"""Model comparison tests against hand-computed values and scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from mllib.comparison import corrected_resampled_t_test, mcnemar_test, paired_t_test


def test_corrected_resampled_t_test_by_hand():
    a, b = [0.80, 0.82, 0.78, 0.81, 0.79], [0.78, 0.79, 0.77, 0.78, 0.78]
    d = np.array(a) - np.array(b)  # 0.02, 0.03, 0.01, 0.03, 0.01
    out = corrected_resampled_t_test(a, b, n_train=800, n_test=200)
    variance = d.var(ddof=1)  # 0.0001
    t = d.mean() / math.sqrt((1 / 5 + 200 / 800) * variance)
    assert out["mean_difference"] == pytest.approx(0.02) and out["t"] == pytest.approx(t)
    assert out["p_value"] == pytest.approx(2 * stats.t.sf(t, 4)) and out["df"] == 4
    plain = stats.ttest_rel(a, b)  # the uncorrected test overstates the evidence
    assert out["p_value"] > plain.pvalue and out["t"] < plain.statistic


def test_corrected_t_test_edge_cases():
    assert corrected_resampled_t_test([0.7, 0.7], [0.7, 0.7], 10, 2)["p_value"] == 1.0
    assert corrected_resampled_t_test([0.8, 0.8], [0.7, 0.7], 10, 2)["t"] == math.inf
    with pytest.raises(ValueError, match="one score per split"):
        corrected_resampled_t_test([0.8], [0.7], 10, 2)


def test_mcnemar_exact_and_chi_square():
    y = np.array([1] * 20)
    a = np.array([1] * 15 + [0] * 5)  # A right on 15
    b = np.array([1] * 8 + [0] * 7 + [1] * 3 + [0] * 2)  # B right on rows 0-7 and 15-17
    out = mcnemar_test(y, a, b)
    assert (out["only_a_right"], out["only_b_right"]) == (7, 3)
    assert out["p_value"] == pytest.approx(stats.binomtest(3, 10, 0.5).pvalue)
    assert out["chi2"] == pytest.approx((abs(7 - 3) - 1) ** 2 / 10)
    assert out["chi2_p_value"] == pytest.approx(stats.chi2.sf(0.9, 1))
    assert mcnemar_test(y, a, a)["p_value"] == 1.0


def test_mcnemar_exact_tail_on_a_large_test_set():
    # 100,000 discordant rows (a million-row test set's scale): the exact binomial tail, still to 1e-8
    y = np.zeros(100_000, dtype=int)
    a = np.r_[np.zeros(47_500, dtype=int), np.ones(52_500, dtype=int)]
    out = mcnemar_test(y, a, 1 - a)
    assert (out["only_a_right"], out["only_b_right"]) == (47_500, 52_500)
    assert out["p_value"] == pytest.approx(stats.binomtest(47_500, 100_000, 0.5).pvalue, rel=1e-8)


def test_paired_t_test_equals_scipy():
    rng = np.random.default_rng(0)
    e1, e2 = rng.normal(1.0, 1, 50) ** 2, rng.normal(1.2, 1, 50) ** 2
    out = paired_t_test(e1, e2)
    ref = stats.ttest_rel(e1, e2)
    assert out["t"] == pytest.approx(ref.statistic) and out["p_value"] == pytest.approx(ref.pvalue)
