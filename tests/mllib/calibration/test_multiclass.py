"""Multiclass calibration: one-vs-rest binary maps with renormalisation, softmax as the identity map, and the
(n, K) log-probability scores every classifier hands the calibrators."""

import numpy as np
import pytest
from scipy.special import softmax

from mllib.calibration import (
    IsotonicCalibration,
    NoCalibration,
    OneVsRestCalibration,
    PlattScaling,
    TemperatureScaling,
    decision_scores,
)
from mllib.calibration.histogram import HistogramBinning
from mllib.linear import LogisticRegression
from mllib.metrics import log_loss


def three_class_scores(seed=0, n=3000, sharpness=3.0):
    """Over-confident scores: the true posterior is softmax(z), the model reports sharpness * z."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 3)) * 1.5
    y = np.array([rng.choice(3, p=p) for p in softmax(z, axis=1)])
    return sharpness * z, y, softmax(z, axis=1)


@pytest.mark.parametrize("binary", [PlattScaling(), IsotonicCalibration(), HistogramBinning()])
def test_one_vs_rest_rows_sum_to_one_and_fit_one_binary_map_per_class(binary):
    S, y, _ = three_class_scores()
    cal = OneVsRestCalibration(binary).fit(S, y)
    P = cal.predict_proba(S)
    assert P.shape == (S.shape[0], 3) and len(cal.calibrators_) == 3
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    for k, c in enumerate(cal.calibrators_):  # each map is the binary calibrator fitted on class k vs the rest
        ref = type(binary)(**binary.get_params()).fit(S[:, k], (y == k).astype(int))
        np.testing.assert_array_equal(c.transform(S[:, k]), ref.transform(S[:, k]))
        unnormalised = np.column_stack([m.transform(S[:, j]) for j, m in enumerate(cal.calibrators_)])
        np.testing.assert_allclose(P, unnormalised / unnormalised.sum(axis=1, keepdims=True), rtol=1e-12)


def test_one_vs_rest_platt_repairs_over_confident_scores():
    S, y, _ = three_class_scores()
    raw = NoCalibration().fit(S).predict_proba(S)
    S_new, y_new, _ = three_class_scores(seed=1)
    cal = OneVsRestCalibration(PlattScaling()).fit(S, y)
    raw_new = NoCalibration().fit(S_new).predict_proba(S_new)
    assert log_loss(y_new, cal.predict_proba(S_new)) < log_loss(y_new, raw_new) - 0.1
    assert log_loss(y, raw) > 0.9  # the scores are badly over-confident to begin with


def test_temperature_finds_the_sharpness_of_over_confident_logits():
    S, y, _ = three_class_scores(n=20000)
    T = TemperatureScaling().fit(S, y).temperature_
    assert T == pytest.approx(3.0, rel=0.05)  # z_model = 3 z_true: T = 3 recovers the true posterior


def test_identity_map_is_softmax_and_sigmoid():
    S, _, _ = three_class_scores(n=50)
    np.testing.assert_allclose(NoCalibration().fit(S).predict_proba(S), softmax(S, axis=1), rtol=1e-14)
    s = S[:, 0]
    np.testing.assert_allclose(NoCalibration().fit(s).predict_proba(s)[:, 1], 1 / (1 + np.exp(-s)), rtol=1e-14)


def test_every_row_mapped_to_zero_gets_the_class_frequencies():
    S, y, _ = three_class_scores(n=300)
    cal = OneVsRestCalibration(HistogramBinning(n_bins=5)).fit(S, y)
    for c in cal.calibrators_:
        c.bin_probability_ = np.zeros_like(c.bin_probability_)
    np.testing.assert_allclose(cal.predict_proba(S[:3]), np.tile(np.bincount(y) / y.size, (3, 1)))


def test_one_vs_rest_refuses_binary_scores_and_missing_classes():
    S, y, _ = three_class_scores(n=300)
    with pytest.raises(ValueError, match="K >= 3"):
        OneVsRestCalibration(PlattScaling()).fit(S[:, :2], (y == 1).astype(int))
    with pytest.raises(ValueError, match=r"classes \[2\] have no calibration rows"):
        OneVsRestCalibration(PlattScaling()).fit(S[y < 2], y[y < 2])


def test_multiclass_decision_scores_are_log_probabilities():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = np.argmax(X[:, :3] + rng.normal(size=(300, 3)), axis=1)
    model = LogisticRegression().fit(X, y)
    S = decision_scores(model, X)
    assert S.shape == (300, 3)
    np.testing.assert_allclose(np.exp(S), model.predict_proba(X), rtol=1e-12)
    binary = LogisticRegression().fit(X, (y == 0).astype(int))
    np.testing.assert_array_equal(decision_scores(binary, X), binary.decision_function(X))
