"""The ROC AUC's Hanley-McNeil score interval (mllib.metrics.auc_score_interval). Oracles: the Hanley-McNeil variance
is exact for the negative-exponential scores model it was derived from (simulated AUCs' variance); the interval
covers the true AUC about as often as asked on small samples; far from the boundary it is Wald's; at AUC 1 it is not
degenerate and its lower end solves the score equation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mllib.metrics import auc_score_interval, hanley_mcneil_variance, roc_auc_score


def exponential_scores(rng, auc: float, m: int, n: int):
    """Negatives Exp(1), positives Exp(rate b) with P(positive > negative) = 1 / (1 + b) = auc."""
    b = 1 / auc - 1
    y = np.r_[np.ones(m, dtype=int), np.zeros(n, dtype=int)]
    return y, np.r_[rng.exponential(1 / b, m), rng.exponential(1.0, n)]


@pytest.mark.parametrize("auc, m, n", [(0.75, 20, 40), (0.9, 50, 25)])
def test_the_variance_is_exact_for_exponential_scores(auc, m, n):
    rng = np.random.default_rng(0)
    draws = [roc_auc_score(*exponential_scores(rng, auc, m, n)) for _ in range(4000)]
    assert np.var(draws) == pytest.approx(hanley_mcneil_variance(auc, m, n), rel=0.08)


def test_small_samples_are_covered_about_as_often_as_asked():
    rng = np.random.default_rng(1)
    covered = []
    for _ in range(2000):
        y, s = exponential_scores(rng, 0.9, 8, 12)
        low, high = auc_score_interval(roc_auc_score(y, s), 8, 12)
        covered.append(low <= 0.9 <= high)
    assert np.mean(covered) == pytest.approx(0.95, abs=0.03)


def test_far_from_the_boundary_it_is_walds():
    low, high = auc_score_interval(0.75, 3000, 900)
    half = 1.959963984540054 * math.sqrt(hanley_mcneil_variance(0.75, 3000, 900))
    assert low == pytest.approx(0.75 - half, rel=1e-3) and high == pytest.approx(0.75 + half, rel=1e-3)


@pytest.mark.parametrize("m, n", [(5, 12), (2, 15), (55, 112)])
def test_perfect_separation_is_not_certainty(m, n):
    """17 test rows at AUC 1.000: the bootstrap's interval is [1, 1]; this one is not, and it narrows with the rows."""
    low, high = auc_score_interval(1.0, m, n)
    assert high == 1.0 and low < 1.0
    z = 1.959963984540054
    assert 1.0 - low == pytest.approx(z * math.sqrt(hanley_mcneil_variance(low, m, n)), abs=1e-9)  # on the boundary
    assert auc_score_interval(1.0, 4 * m, 4 * n)[0] > low


def test_one_class_is_refused():
    with pytest.raises(ValueError, match="n_positive must be an integer >= 1"):
        auc_score_interval(0.5, 0, 10)
