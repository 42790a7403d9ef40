"""TemperatureScaling (recovers a known temperature; the NLL optimum; binary = 2-class logits) and
HistogramBinning (hand-computed bins, smoothing prior, empty bins explicit)."""

import numpy as np
import pytest
from scipy import optimize
from scipy.special import expit, log_softmax, softmax

from mllib.calibration import HistogramBinning, TemperatureScaling


def _synthetic_logits(temperature, n=40_000, k=4, seed=0):
    rng = np.random.default_rng(seed)
    true_logits = rng.normal(scale=2.0, size=(n, k))
    y = (rng.random(n)[:, None] > np.cumsum(softmax(true_logits, axis=1), axis=1)).sum(axis=1)
    return true_logits * temperature, y  # over-confident model: logits T times too large


def test_recovers_a_known_temperature():
    logits, y = _synthetic_logits(2.5)
    model = TemperatureScaling().fit(logits, y)
    # standard error of T at this n is ~0.02
    assert model.temperature_ == pytest.approx(2.5, abs=0.08)
    proba = model.predict_proba(logits)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_array_equal(proba.argmax(axis=1), logits.argmax(axis=1))  # accuracy never changes


def test_temperature_is_the_exact_nll_minimiser():
    logits, y = _synthetic_logits(0.6, n=2000, k=3, seed=1)
    model = TemperatureScaling().fit(logits, y)

    def nll(log_t):
        return -np.mean(log_softmax(logits / np.exp(log_t), axis=1)[np.arange(y.size), y])

    ref = optimize.minimize_scalar(nll, bounds=(-5, 5), method="bounded", options={"xatol": 1e-12}).x
    assert model.temperature_ == pytest.approx(np.exp(ref), rel=1e-6)


def test_binary_scores_equal_two_class_logits():
    rng = np.random.default_rng(3)
    s = rng.normal(size=500) * 3
    y = (rng.random(500) < expit(s / 2)).astype(int)
    one_d = TemperatureScaling().fit(s, y)
    two_d = TemperatureScaling().fit(np.column_stack([np.zeros_like(s), s]), y)
    assert one_d.temperature_ == pytest.approx(two_d.temperature_, rel=1e-12)
    np.testing.assert_allclose(one_d.transform(s), expit(s / one_d.temperature_), atol=1e-15)
    assert one_d.predict_proba(s).shape == (500, 2)
    assert one_d.temperature_ == pytest.approx(2.0, abs=0.5)


def test_temperature_refuses_uninformative_scores_and_bad_labels():
    with pytest.raises(ValueError, match="uniform guessing"):
        TemperatureScaling().fit(np.array([1.0, 2.0, -1.0, -2.0]), [0, 0, 1, 1])
    with pytest.raises(ValueError, match="class indices 0..2 .*logits"):
        TemperatureScaling().fit(np.zeros((3, 3)), [0, 1, 3])


def test_histogram_binning_hand_computed():
    s = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
    y = np.array([0, 0, 0, 1, 0, 1, 1, 0, 1, 1])
    raw = HistogramBinning(n_bins=2, strategy="uniform", prior_strength=0).fit(s, y)
    np.testing.assert_allclose(raw.bin_edges_, [0, 4.5, 9])
    np.testing.assert_allclose(raw.bin_probability_, [1 / 5, 4 / 5])
    np.testing.assert_allclose(raw.transform([-3, 4.4, 4.5, 100]), [0.2, 0.2, 0.8, 0.8])
    smooth = HistogramBinning(n_bins=2, strategy="uniform", prior_strength=2).fit(s, y)
    # (pos + m * base_rate) / (n + m) with base rate 0.5
    np.testing.assert_allclose(smooth.bin_probability_, [(1 + 1) / 7, (4 + 1) / 7])


def test_histogram_binning_keeps_empty_bins_explicit():
    s = np.array([0.0, 0.1, 0.2, 9.8, 9.9, 10.0])
    y = np.array([0, 0, 1, 1, 1, 0])
    model = HistogramBinning(n_bins=5, strategy="uniform", prior_strength=1).fit(s, y)
    np.testing.assert_array_equal(model.bin_count_, [3, 0, 0, 0, 3])
    np.testing.assert_allclose(model.bin_probability_[1:4], 0.5)  # the prior mean, the base rate
    assert model.transform([5.0])[0] == 0.5


def test_histogram_quantile_bins_have_equal_mass_and_converge():
    rng = np.random.default_rng(4)
    s = rng.normal(size=50_000)
    p_true = expit(1.5 * s)
    y = (rng.random(s.size) < p_true).astype(int)
    model = HistogramBinning(n_bins=20).fit(s, y)
    assert model.bin_count_.min() >= 2490 and model.bin_count_.max() <= 2510
    # the step map tracks the true curve up to within-bin spread and sampling error
    assert np.mean(np.abs(model.transform(s) - p_true)) < 0.03


def test_histogram_invalid_hyperparameters():
    with pytest.raises(ValueError, match="prior_strength"):
        HistogramBinning(prior_strength=-1).fit([0.0, 1.0], [0, 1])
    with pytest.raises(ValueError, match="strategy"):
        HistogramBinning(strategy="kmeans").fit([0.0, 1.0], [0, 1])
    with pytest.raises(ValueError, match="n_bins"):
        HistogramBinning(n_bins=0).fit([0.0, 1.0], [0, 1])


@pytest.mark.parametrize("binary", [True, False])
def test_temperature_refuses_perfectly_separated_scores(binary):
    """Every row's true class has the largest score: the NLL falls towards 0 as T -> 0 and has no minimiser, so the
    fit stops with its message instead of returning whatever T the bracket search stopped at."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2 if binary else 3, 200)
    if binary:
        scores = np.where(y == 1, 1.0, -1.0) * rng.uniform(0.1, 3.0, 200)
    else:
        scores = rng.normal(0, 1, (200, 3))
        scores[np.arange(200), y] = scores.max(axis=1) + rng.uniform(0.1, 2.0, 200)
    with pytest.raises(ValueError, match="separate the classes perfectly"):
        TemperatureScaling().fit(scores, y)
    # one row scored the wrong way round is enough for a finite minimiser
    if binary:
        scores[0] = -scores[0]
    else:
        scores[0, y[0]] = scores[0].min() - 1.0
    assert 0 < TemperatureScaling().fit(scores, y).temperature_ < np.inf
