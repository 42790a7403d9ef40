"""Drift statistics (mllib/drift) against scipy on the same data (within 1e-9, most exactly), closed forms, and the
calibration of the tests: under no drift each test's false-alarm rate stays at its level."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mllib.comparison import benjamini_hochberg, bh_adjusted
from mllib.drift import (
    chi_squared_test,
    domain_classifier_test,
    ks_test,
    population_stability_index,
    wasserstein_distance,
)
from mllib.linear import LogisticRegression


@pytest.mark.parametrize("seed", range(4))
def test_ks_and_wasserstein_equal_scipy(seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=rng.integers(20, 900))
    b = np.round(rng.normal(0.1 * seed, 1 + 0.1 * seed, size=rng.integers(20, 600)), 1)  # ties across samples
    ours, theirs = ks_test(a, b), stats.ks_2samp(a, b, method="asymp")
    assert ours["statistic"] == pytest.approx(theirs.statistic, abs=1e-12)
    assert ours["p_value"] == pytest.approx(theirs.pvalue, abs=1e-9)
    assert wasserstein_distance(a, b) == pytest.approx(stats.wasserstein_distance(a, b), abs=1e-9)
    with_gaps = np.concatenate([a, [np.nan, np.nan]])  # missing values are left out
    assert ks_test(with_gaps, b) == ours


def test_chi_squared_equals_scipys_contingency_test():
    rng = np.random.default_rng(0)
    x = rng.choice(list("abcd"), 500, p=[0.4, 0.3, 0.2, 0.1])
    y = rng.choice(list("abcde"), 300, p=[0.35, 0.3, 0.2, 0.1, 0.05])  # "e" only in the current sample
    ours = chi_squared_test(x, y)
    table = pd.crosstab(np.r_[np.zeros(500), np.ones(300)], np.r_[x, y]).to_numpy()
    theirs = stats.chi2_contingency(table, correction=False)
    assert ours["statistic"] == pytest.approx(theirs.statistic, rel=1e-12) and ours["dof"] == theirs.dof == 4
    assert ours["p_value"] == pytest.approx(theirs.pvalue, abs=1e-12)
    assert chi_squared_test(["a"] * 5, ["a"] * 3) == {"statistic": 0.0, "dof": 0, "p_value": 1.0}


def test_psi_closed_form():
    # reference shares (0.5, 0.5), current (0.8, 0.2): PSI = 0.3 ln 1.6 + (-0.3) ln 0.4
    psi = population_stability_index(["a"] * 50 + ["b"] * 50, ["a"] * 80 + ["b"] * 20, categorical=True)
    assert psi == pytest.approx(0.3 * np.log(1.6) - 0.3 * np.log(0.4), rel=1e-12)
    same = np.arange(1000.0)
    assert population_stability_index(same, same) == 0.0
    # an empty bin is floored at 1e-4, not infinite
    assert np.isfinite(population_stability_index(["a"] * 10, ["b"] * 10, categorical=True))


def test_adjusted_p_values_equal_scipys_and_the_procedures_rejections():
    rng = np.random.default_rng(1)
    p = np.concatenate([rng.random(30), rng.random(10) * 1e-3])
    np.testing.assert_allclose(bh_adjusted(p), stats.false_discovery_control(p), rtol=1e-12)
    for q in (0.01, 0.1, 0.3):
        np.testing.assert_array_equal(benjamini_hochberg(p, q), bh_adjusted(p) <= q)
    assert np.isnan(bh_adjusted([0.1, np.nan])[1]) and bh_adjusted([0.1, np.nan])[0] == 0.1


def test_the_domain_classifier_sees_a_shift_and_holds_its_level_without_one():
    rng = np.random.default_rng(2)
    shifted = rng.normal(size=(300, 4))
    shifted[:, 1] += 0.5
    found = domain_classifier_test(rng.normal(size=(500, 4)), shifted, LogisticRegression, random_state=0)
    assert found["p_value"] < 1e-3 and found["interval"][0] > 0.5 and found["n_current"] == 150
    alarms = [
        domain_classifier_test(
            rng.normal(size=(200, 4)), rng.normal(size=(120, 4)), LogisticRegression, random_state=s
        )["p_value"]
        < 0.05
        for s in range(200)
    ]
    # 200 draws at a 5% level: a binomial(200, 0.05) count is below 19 with probability 0.99
    assert np.sum(alarms) < 19
