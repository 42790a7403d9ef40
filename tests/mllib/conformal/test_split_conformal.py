"""Split-conformal prediction sets: the quantile rule by hand, the finite-sample coverage guarantee over seeds,
and the set rule's invariants."""

import math

import numpy as np
import pytest
from scipy.special import softmax

from mllib.conformal import SplitConformalClassifier, conformal_quantile, set_summary


def test_quantile_is_the_ceil_n_plus_one_coverage_order_statistic():
    scores = np.array([0.5, 0.1, 0.9, 0.3, 0.7, 0.2, 0.8, 0.4, 0.6])  # n = 9
    assert conformal_quantile(scores, 0.5) == 0.5  # ceil(10 * 0.5) = 5th smallest
    assert conformal_quantile(scores, 0.8) == 0.8  # ceil(10 * 0.8) = 8th smallest (no float push to the 9th)
    assert conformal_quantile(scores, 0.85) == 0.9  # ceil(8.5) = 9th
    assert conformal_quantile(scores, 0.95) == math.inf  # ceil(9.5) = 10 > n: every set is full
    assert conformal_quantile(np.arange(99) / 99, 0.9) == pytest.approx(89 / 99)  # 100 * 0.9 = 90th exactly


def test_sets_hold_the_classes_within_the_threshold():
    P = np.array([[0.7, 0.2, 0.1], [0.4, 0.35, 0.25], [0.05, 0.05, 0.9]])
    conformal = SplitConformalClassifier(coverage=0.5).fit(P, np.array([0, 1, 2]))
    # nonconformity 1 - p_y: 0.3, 0.65, 0.1 -> ceil(4 * 0.5) = 2nd smallest = 0.3: keep p_k >= 0.7
    assert conformal.threshold_ == pytest.approx(0.3)
    np.testing.assert_array_equal(
        conformal.predict_set(P), [[True, False, False], [False, False, False], [False, False, True]]
    )
    summary = set_summary(conformal.predict_set(P), np.array([0, 1, 2]))
    assert summary == {
        "coverage": 2 / 3,
        "mean_set_size": 2 / 3,
        "empty_rate": 1 / 3,
        "singleton_rate": 2 / 3,
        "full_rate": 0.0,
        "n": 3,
    }


def _problem(rng, n, K=4):
    z = rng.normal(size=(n, K)) * 1.2
    y = np.array([rng.choice(K, p=p) for p in softmax(z, axis=1)])
    model = softmax(1.8 * z, axis=1)  # a miscalibrated but fixed model: the guarantee needs no calibration
    return model, y


@pytest.mark.parametrize("coverage", [0.8, 0.9])
def test_coverage_reaches_its_nominal_level_over_seeds(coverage):
    """Marginal coverage over 60 seeds of (200 calibration, 1000 test) exchangeable rows lies in
    [1 - alpha, 1 - alpha + 1/(n + 1)] up to three standard errors of the mean over seeds."""
    n_cal, n_test, seeds = 200, 1000, 60
    covered = []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        P_cal, y_cal = _problem(rng, n_cal)
        P_test, y_test = _problem(rng, n_test)
        sets = SplitConformalClassifier(coverage=coverage).fit(P_cal, y_cal).predict_set(P_test)
        covered.append(set_summary(sets, y_test)["coverage"])
    mean, se = np.mean(covered), np.std(covered, ddof=1) / np.sqrt(seeds)
    assert coverage - 3 * se <= mean <= coverage + 1 / (n_cal + 1) + 3 * se, (mean, se)


def test_higher_coverage_gives_nested_larger_sets():
    rng = np.random.default_rng(0)
    P, y = _problem(rng, 500)
    small = SplitConformalClassifier(0.7).fit(P, y).predict_set(P)
    large = SplitConformalClassifier(0.95).fit(P, y).predict_set(P)
    assert (large | ~small).all() and large.sum() > small.sum()


def test_bad_inputs_are_refused():
    P = np.full((4, 3), 1 / 3)
    with pytest.raises(ValueError, match="coverage"):
        SplitConformalClassifier(coverage=1.0).fit(P, np.array([0, 1, 2, 0]))
    with pytest.raises(ValueError, match="class indices 0..2"):
        SplitConformalClassifier().fit(P, np.array([0, 1, 3, 0]))
    fitted = SplitConformalClassifier().fit(P, np.array([0, 1, 2, 0]))
    with pytest.raises(ValueError, match="fitted with 3"):
        fitted.predict_set(np.full((2, 2), 0.5))
