"""Reject option and risk-coverage: catalogue oracles, coverage 1 = overall error, tie handling, AURC of a
perfect ranking in closed form, coverage at a target risk, and brute-force agreement."""

import itertools

import numpy as np
import pytest

from mllib.decisions import (
    REJECT,
    aurc,
    coverage_at_risk,
    excess_aurc,
    optimal_aurc,
    reject_option,
    risk_at_coverage,
    risk_coverage_curve,
    selective_risk,
)


def test_reject_option_catalogue_oracles():
    proba = np.array([[0.55, 0.45], [0.9, 0.1]])
    result = reject_option(proba, threshold=0.6)
    assert result["prediction"].tolist() == [REJECT, 0] and result["coverage"] == 0.5
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(3), size=300)
    assert reject_option(p, threshold=1 / 3)["coverage"] == 1.0  # theta <= 1/K never rejects
    coverages = [reject_option(p, threshold=t)["coverage"] for t in np.linspace(0, 1, 21)]
    assert all(a >= b for a, b in zip(coverages, coverages[1:]))  # non-increasing in theta
    margin = np.abs(p[:, 0] - p[:, 1])
    custom = reject_option(p, threshold=0.2, confidence=margin)
    np.testing.assert_array_equal(custom["accepted"], margin >= 0.2)


def test_selective_risk():
    result = selective_risk([0, 1, 1, 0], [0, 0, 1, 1], accepted=[True, True, True, False])
    assert result == {"coverage": 0.75, "selective_risk": pytest.approx(1 / 3), "n_accepted": 3, "n_errors": 1}
    assert np.isnan(selective_risk([0, 1], [0, 1], [False, False])["selective_risk"])


def _problem(seed=0, n=400):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    confidence = np.round(rng.random(n), 1)  # heavy ties
    correct = rng.random(n) < 0.5 + 0.45 * confidence
    return y, np.where(correct, y, 1 - y), confidence


def test_coverage_one_gives_the_overall_error_and_curve_is_per_distinct_confidence():
    y, y_hat, conf = _problem()
    curve = risk_coverage_curve(y, y_hat, conf)
    assert curve["coverage"][-1] == 1.0
    assert curve["risk"][-1] == pytest.approx(np.mean(y != y_hat))
    np.testing.assert_array_equal(curve["threshold"], np.unique(conf)[::-1])  # tied rows move together
    for t, c, r in zip(curve["threshold"], curve["coverage"], curve["risk"]):
        keep = conf >= t
        assert c == keep.mean() and r == pytest.approx(np.mean(y[keep] != y_hat[keep]))


def test_aurc_of_a_perfect_ranking_equals_the_closed_form():
    n, m = 50, 12
    y = np.zeros(n, dtype=int)
    y_hat = np.concatenate([np.ones(m, dtype=int), np.zeros(n - m, dtype=int)])
    conf = np.concatenate([np.linspace(0.1, 0.2, m), np.linspace(0.5, 1.0, n - m)])  # errors least confident
    expected = np.mean([max(0, k - (n - m)) / k for k in range(1, n + 1)])
    assert optimal_aurc(n, m) == pytest.approx(expected, abs=1e-15)
    assert aurc(y, y_hat, conf) == pytest.approx(optimal_aurc(n, m), abs=1e-15)
    assert excess_aurc(y, y_hat, conf) == pytest.approx(0.0, abs=1e-15)
    # large n: the continuous limit r + (1 - r) ln(1 - r) of Geifman et al.
    r = 0.2
    assert optimal_aurc(100_000, 20_000) == pytest.approx(r + (1 - r) * np.log(1 - r), abs=1e-4)


def test_aurc_averages_over_the_orders_of_tied_confidences():
    y = np.array([0, 0, 0, 0, 0])
    y_hat = np.array([0, 1, 0, 1, 0])
    conf = np.array([0.9, 0.5, 0.5, 0.5, 0.1])
    # brute force: mean over every order of the tied rows of (1/n) sum_k errors_k / k
    tied = [1, 2, 3]
    values = []
    for perm in itertools.permutations(tied):
        order = [0, *perm, 4]
        errors = np.cumsum((y != y_hat)[order])
        values.append(np.mean(errors / np.arange(1, 6)))
    assert aurc(y, y_hat, conf) == pytest.approx(np.mean(values), abs=1e-15)
    # and it does not depend on how the input happens to be ordered
    rev = slice(None, None, -1)
    assert aurc(y[rev], y_hat[rev], conf[rev]) == pytest.approx(aurc(y, y_hat, conf), abs=1e-15)


def test_coverage_at_risk_and_risk_at_coverage():
    y = np.zeros(10, dtype=int)
    y_hat = np.array([0, 0, 0, 0, 1, 0, 0, 1, 1, 1])
    conf = np.arange(10, 0, -1) / 10  # distinct, decreasing
    result = coverage_at_risk(y, y_hat, conf, target_risk=0.2)
    # risks at k = 1..10: 0,0,0,0,.2,1/6,1/7,.25,1/3,.4 -> largest k with risk <= .2 is 7
    assert result == {"coverage": 0.7, "threshold": 0.4, "risk": pytest.approx(1 / 7), "achievable": True}
    none = coverage_at_risk(np.zeros(3, dtype=int), np.ones(3, dtype=int), [0.9, 0.8, 0.7], target_risk=0.1)
    assert none["coverage"] == 0.0 and not none["achievable"] and np.isnan(none["risk"])
    at = risk_at_coverage(y, y_hat, conf, target_coverage=0.5)
    assert at["coverage"] == 0.5 and at["risk"] == pytest.approx(0.2)
