"""DeLong's test (mllib.comparison.delong_test). Oracles: the AUC of the placements is the Mann-Whitney AUC
(mllib.metrics.roc_auc_score, ties counted half); the standard error equals DeLong's formula computed from the full
m x n matrix of pairwise comparisons; K = 2 classes read one-vs-rest give the two-class figures; a bootstrap of the
macro one-vs-rest difference agrees with the K-class standard error."""

from __future__ import annotations

import numpy as np
import pytest

from mllib.comparison import delong_test, placements
from mllib.metrics import roc_auc_ovr, roc_auc_score


def pair(n=300, seed=0, ties=True):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a, b = y + rng.normal(size=n), 0.5 * y + rng.normal(size=n)
    return y, (np.round(a, 1) if ties else a), (np.round(b, 1) if ties else b)


def brute_force(y, a, b):
    """DeLong et al. (1988) from the pairwise kernel psi(x, y) = [x > y] + [x = y] / 2 of every positive-negative
    pair: placements are the kernel's row and column means, S10 and S01 their sample variances."""

    def kernel(s):
        x, z = s[y == 1][:, None], s[y == 0][None, :]
        return (x > z) + 0.5 * (x == z)

    ka, kb = kernel(a), kernel(b)
    m, n = ka.shape
    s10 = np.var(ka.mean(1) - kb.mean(1), ddof=1)
    s01 = np.var(ka.mean(0) - kb.mean(0), ddof=1)
    return ka.mean() - kb.mean(), np.sqrt(s10 / m + s01 / n)


@pytest.mark.parametrize("ties", [True, False])
def test_placements_average_to_the_auc(ties):
    y, a, _ = pair(ties=ties)
    v, auc = placements(y, a)
    assert auc == pytest.approx(roc_auc_score(y, a), abs=1e-12)
    assert v[y == 0].mean() == pytest.approx(auc, abs=1e-12)  # both roles average to it


@pytest.mark.parametrize("seed", range(3))
def test_standard_error_is_delongs_formula(seed):
    y, a, b = pair(seed=seed)
    result = delong_test(y, a, b)
    difference, se = brute_force(y, a, b)
    assert result["difference"] == pytest.approx(difference, abs=1e-12)
    assert result["standard_error"] == pytest.approx(se, rel=1e-10)
    assert result["auc_a"] == pytest.approx(roc_auc_score(y, a), abs=1e-12)
    assert result["p_value"] == pytest.approx(2 * (1 - __import__("scipy").stats.norm.cdf(abs(result["z"]))))


def test_two_classes_read_one_against_the_rest_are_the_binary_test():
    y, a, b = pair(seed=4)
    binary = delong_test(y, a, b)
    ovr = delong_test(y, np.column_stack([-a, a]), np.column_stack([-b, b]))
    for key in ("auc_a", "auc_b", "difference", "standard_error"):
        assert ovr[key] == pytest.approx(binary[key], rel=1e-12)


def test_macro_one_vs_rest_standard_error_agrees_with_a_bootstrap():
    rng = np.random.default_rng(0)
    K, n = 4, 1500
    y = rng.integers(0, K, n)
    A = rng.normal(size=(n, K))
    A[np.arange(n), y] += 1
    B = A + rng.normal(scale=0.8, size=(n, K))
    result = delong_test(y, A, B)
    assert result["difference"] == pytest.approx(roc_auc_ovr(y, A) - roc_auc_ovr(y, B), abs=1e-12)
    boot = []
    for _ in range(400):
        i = rng.integers(0, n, n)
        boot.append(roc_auc_ovr(y[i], A[i]) - roc_auc_ovr(y[i], B[i]))
    assert result["standard_error"] == pytest.approx(np.std(boot), rel=0.12)  # 400 draws: ~3.5% sampling error


def test_identical_rankings_have_no_spread():
    y, a, _ = pair()
    result = delong_test(y, a, 2 * a + 1)  # a monotone transform: the same ranking
    assert result["difference"] == 0 and result["standard_error"] == 0 and np.isnan(result["p_value"])


def test_one_class_is_refused():
    with pytest.raises(ValueError, match="both classes"):
        delong_test(np.ones(5, dtype=int), np.arange(5.0), np.arange(5.0))


def test_midranks_are_scipys_average_ranks():
    from scipy.stats import rankdata

    from mllib.comparison.delong import midranks

    x = np.round(np.random.default_rng(0).normal(size=500), 1)
    np.testing.assert_array_equal(midranks(x), rankdata(x))
