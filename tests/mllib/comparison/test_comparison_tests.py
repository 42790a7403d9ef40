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
    # the standard error behind t, and the difference's corrected t interval (scipy's t quantile)
    se = math.sqrt((1 / 5 + 200 / 800) * variance)
    assert out["standard_error"] == pytest.approx(se) and out["t"] == pytest.approx(0.02 / se)
    half = stats.t.ppf(0.975, 4) * se
    assert out["interval"] == pytest.approx([0.02 - half, 0.02 + half])
    ninety = corrected_resampled_t_test(a, b, n_train=800, n_test=200, confidence_level=0.9)["interval"]
    assert ninety == pytest.approx([0.02 - stats.t.ppf(0.95, 4) * se, 0.02 + stats.t.ppf(0.95, 4) * se])


def test_corrected_t_test_edge_cases():
    # no spread in the differences: the formula's 0 / 0 and d / 0, as scipy's paired test gives them
    same = corrected_resampled_t_test([0.7, 0.7], [0.7, 0.7], 10, 2)
    assert math.isnan(same["t"]) and math.isnan(same["p_value"])
    shifted = corrected_resampled_t_test([0.8, 0.8], [0.7, 0.7], 10, 2)
    assert shifted["t"] == math.inf and shifted["p_value"] == 0.0
    with pytest.raises(ValueError, match="need at least 2 entries each"):
        corrected_resampled_t_test([0.8], [0.7], 10, 2)
    with pytest.raises(ValueError, match="n_train must be a positive finite number"):
        corrected_resampled_t_test([0.8, 0.7], [0.7, 0.7], 0, 2)


def test_corrected_t_test_takes_fractional_mean_split_sizes():
    """Grouped splits differ in size: n_2 / n_1 from the mean sizes, not their integer parts (159.6 / 638.4 = 0.25,
    where int() would give 159 / 638)."""
    a, b = [0.80, 0.82, 0.78, 0.81, 0.79], [0.78, 0.79, 0.77, 0.78, 0.78]
    out = corrected_resampled_t_test(a, b, n_train=638.4, n_test=159.6)
    d = np.array(a) - np.array(b)
    t = d.mean() / math.sqrt((1 / 5 + 0.25) * d.var(ddof=1))
    assert out["correction"] == pytest.approx(1 / 5 + 0.25, rel=1e-15) and out["t"] == pytest.approx(t, rel=1e-12)
    assert out["t"] != pytest.approx(corrected_resampled_t_test(a, b, 638, 159)["t"], rel=1e-6)


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


@pytest.mark.filterwarnings("ignore::RuntimeWarning:scipy")  # scipy warns of its own catastrophic cancellation
@pytest.mark.parametrize("shift", [0.0, 0.5, -0.25])
def test_paired_t_test_without_spread_equals_scipy(shift):
    """Identical differences: t = d / 0 = +-inf with p = 0, or 0 / 0 = NaN when there is no difference."""
    e2 = np.array([0.5, 1.0, 2.0, 4.0])
    out, ref = paired_t_test(e2 + shift, e2), stats.ttest_rel(e2 + shift, e2)
    np.testing.assert_equal([out["t"], out["p_value"]], [ref.statistic, ref.pvalue])
