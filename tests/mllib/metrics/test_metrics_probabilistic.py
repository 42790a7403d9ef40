"""Log-loss, Brier score and Murphy decomposition: hand values, erratum E7, sklearn agreement, exact identity."""

import numpy as np
import pytest
import sklearn.metrics as skm

from mllib.metrics import brier_decomposition, brier_score, log_loss

SEEDS = range(20)
EPS = np.finfo(np.float64).eps


def _binary_case(seed, rounded=False):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 300))
    p = rng.uniform(0, 1, n)
    if rounded:
        p = np.round(p, 1)  # few distinct forecasts, like a binned or tree model
    y = (rng.uniform(0, 1, n) < p).astype(int)
    y[:2] = [0, 1]
    p[2:4] = [0.0, 1.0]  # certain forecasts exercise the clipping
    return y, p, rng.uniform(0.1, 3.0, n)


def _multiclass_case(seed):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(3, 200)), int(rng.integers(2, 6))
    proba = rng.dirichlet(np.ones(k), n)
    proba[0] = np.eye(k)[0]  # a certain row: clipping matters if the class is wrong
    y = np.array([rng.choice(k, p=row) for row in proba])
    return y, proba, rng.uniform(0.1, 3.0, n)


# --- hand values and erratum E7 ------------------------------------------------------------------


def test_log_loss_hand_values():
    assert log_loss([1], [0.8]) == pytest.approx(-np.log(0.8), abs=1e-15)
    assert log_loss([0], [0.8]) == pytest.approx(-np.log(0.2), abs=1e-15)
    assert log_loss([1, 0], [0.8, 0.2]) == pytest.approx(-np.log(0.8), abs=1e-15)
    assert log_loss([2], [[0.2, 0.3, 0.5]]) == pytest.approx(-np.log(0.5), abs=1e-15)


def test_log_loss_is_nonnegative_not_the_notes_sign():
    # E7: D4:295 prints ln g(x), which is <= 0; the loss is -ln g(x)
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 1, 500)
    y = rng.integers(0, 2, 500)
    assert log_loss(y, p) > 0
    assert log_loss(y, p) == pytest.approx(-np.mean(np.where(y == 1, np.log(p), np.log(1 - p))), abs=1e-12)


def test_log_loss_clips_certain_mistakes_at_minus_log_eps():
    assert log_loss([1], [0.0]) == pytest.approx(-np.log(EPS), abs=1e-12)
    assert log_loss([0], [1.0]) == pytest.approx(-np.log(EPS), abs=1e-12)
    assert 0 < log_loss([1, 0], [1.0, 0.0]) < 1e-15


def test_brier_hand_values_and_binary_is_half_the_two_column_sum():
    assert brier_score([1, 0], [0.8, 0.4]) == pytest.approx((0.04 + 0.16) / 2, abs=1e-15)
    assert brier_score([2], [[0.2, 0.3, 0.5]]) == pytest.approx(0.04 + 0.09 + 0.25, abs=1e-15)
    y, p = np.array([1, 0, 1, 1]), np.array([0.9, 0.3, 0.2, 0.6])
    assert brier_score(y, np.c_[1 - p, p]) == pytest.approx(2 * brier_score(y, p), abs=1e-15)


# --- sklearn agreement ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_log_loss_and_brier_match_sklearn(seed, weighted):
    y, p, w = _binary_case(seed)
    w = w if weighted else None
    assert log_loss(y, p, sample_weight=w) == pytest.approx(skm.log_loss(y, p, sample_weight=w), abs=1e-12)
    assert brier_score(y, p, sample_weight=w) == pytest.approx(skm.brier_score_loss(y, p, sample_weight=w), abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_multiclass_log_loss_and_brier_match_sklearn(seed, weighted):
    y, proba, w = _multiclass_case(seed)
    w = w if weighted else None
    labels = np.arange(proba.shape[1])  # y need not contain every class
    assert log_loss(y, proba, sample_weight=w) == pytest.approx(
        skm.log_loss(y, proba, sample_weight=w, labels=labels), abs=1e-12
    )
    assert brier_score(y, proba, sample_weight=w) == pytest.approx(
        skm.brier_score_loss(y, proba, sample_weight=w, labels=labels, scale_by_half=False), abs=1e-12
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_two_column_log_loss_equals_one_column(seed):
    y, p, w = _binary_case(seed)
    assert log_loss(y, np.c_[1 - p, p], sample_weight=w) == pytest.approx(log_loss(y, p, sample_weight=w), abs=1e-12)


# --- Murphy decomposition ----------------------------------------------------------------------


def test_decomposition_hand_example():
    y, p = np.array([0, 1, 1, 0, 1]), np.array([0.1, 0.1, 0.7, 0.7, 0.3])
    parts = brier_decomposition(y, p)
    # groups 0.1: o=1/2, 0.7: o=1/2, 0.3: o=1; base rate 3/5
    assert parts["reliability"] == pytest.approx((2 * 0.4**2 + 2 * 0.2**2 + 0.7**2) / 5, abs=1e-15)
    assert parts["resolution"] == pytest.approx((4 * 0.1**2 + 0.4**2) / 5, abs=1e-15)
    assert parts["uncertainty"] == pytest.approx(0.24, abs=1e-15)
    assert parts["within_bin"] == 0.0 and parts["n_groups"] == 3


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("rounded", [False, True])
def test_decomposition_by_distinct_forecasts_is_exact(seed, rounded):
    y, p, _ = _binary_case(seed, rounded=rounded)
    parts = brier_decomposition(y, p)
    assert parts["within_bin"] == 0.0
    assert parts["brier"] == pytest.approx(brier_score(y, p), abs=1e-15)
    assert parts["reliability"] - parts["resolution"] + parts["uncertainty"] == pytest.approx(parts["brier"], abs=1e-12)
    assert parts["n_groups"] == np.unique(p).size


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_bins", [1, 3, 10, 50])
def test_binned_decomposition_sums_exactly_with_within_bin_term(seed, n_bins):
    y, p, _ = _binary_case(seed)
    parts = brier_decomposition(y, p, n_bins=n_bins)
    total = parts["reliability"] - parts["resolution"] + parts["uncertainty"] + parts["within_bin"]
    assert total == pytest.approx(parts["brier"], abs=1e-12)
    assert parts["reliability"] >= 0 and parts["resolution"] >= 0
    assert 1 <= parts["n_groups"] <= n_bins


def test_binned_decomposition_is_not_the_three_term_identity():
    # spread within a bin is real: without the fourth term the identity would fail
    y, p = np.array([0, 1, 0, 1]), np.array([0.02, 0.08, 0.91, 0.99])
    parts = brier_decomposition(y, p, n_bins=2)
    assert abs(parts["within_bin"]) > 1e-3
    assert parts["reliability"] - parts["resolution"] + parts["uncertainty"] != pytest.approx(parts["brier"], abs=1e-6)


def test_single_bin_reduces_to_calibration_in_the_large():
    y, p, _ = _binary_case(3)
    parts = brier_decomposition(y, p, n_bins=1)
    assert parts["reliability"] == pytest.approx((p.mean() - y.mean()) ** 2, abs=1e-15)
    assert parts["resolution"] == pytest.approx(0.0, abs=1e-15)


def test_bin_edges_are_right_open_and_last_bin_closed():
    parts = brier_decomposition([0, 1, 1], [0.5, 0.5 - 1e-12, 1.0], n_bins=2)
    assert parts["n_groups"] == 2  # 0.5 and 1.0 share the upper bin
    # 0.3 * 10 rounds to 3.0000000000000004: 0.3 must land in [0.3, 0.4), not [0.2, 0.3)
    assert brier_decomposition([0, 1], [0.3, 0.35], n_bins=10)["n_groups"] == 1
    assert brier_decomposition([0, 1], [0.3, 0.3 - 1e-12], n_bins=10)["n_groups"] == 2


def test_climatology_forecast_has_no_reliability_or_resolution():
    y = np.array([1, 0, 0, 1, 0])
    parts = brier_decomposition(y, np.full(5, 0.4))
    assert parts["reliability"] == pytest.approx(0.0, abs=1e-15)
    assert parts["resolution"] == pytest.approx(0.0, abs=1e-15)
    assert parts["brier"] == pytest.approx(parts["uncertainty"], abs=1e-15)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_bins", [None, 1, 3, 10])
def test_weighted_decomposition_sums_exactly_and_matches_the_weighted_brier(seed, n_bins):
    y, p, w = _binary_case(seed, rounded=n_bins is None)
    parts = brier_decomposition(y, p, n_bins=n_bins, sample_weight=w)
    total = parts["reliability"] - parts["resolution"] + parts["uncertainty"] + parts["within_bin"]
    assert total == pytest.approx(parts["brier"], abs=1e-12)
    assert parts["brier"] == pytest.approx(skm.brier_score_loss(y, p, sample_weight=w), abs=1e-12)
    base_rate = np.sum(w * y) / np.sum(w)
    assert parts["uncertainty"] == pytest.approx(base_rate * (1 - base_rate), abs=1e-15)
    if n_bins is None:
        assert parts["within_bin"] == 0.0
    # the weights matter: the unweighted decomposition differs
    assert parts["reliability"] != pytest.approx(brier_decomposition(y, p, n_bins=n_bins)["reliability"], abs=1e-9)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("n_bins", [None, 4])
def test_integer_weights_equal_repeated_rows_and_zero_weight_rows_are_left_out(seed, n_bins):
    y, p, _ = _binary_case(seed, rounded=True)
    w = np.random.default_rng(seed).integers(0, 4, y.size)
    w[0] = 1
    weighted = brier_decomposition(y, p, n_bins=n_bins, sample_weight=w)
    repeated = brier_decomposition(np.repeat(y, w), np.repeat(p, w), n_bins=n_bins)
    assert weighted.keys() == repeated.keys()
    for key in weighted:
        assert weighted[key] == pytest.approx(repeated[key], abs=1e-12), key
    assert brier_decomposition(y, p, n_bins=n_bins, sample_weight=np.ones(y.size)) == brier_decomposition(y, p, n_bins)


# --- bad inputs -----------------------------------------------------------------------------


@pytest.mark.parametrize("func", [log_loss, brier_score, brier_decomposition])
def test_bad_inputs_raise(func):
    with pytest.raises(ValueError, match="NaN"):
        func([0, 1], [0.2, np.nan])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        func([0, 1], [0.2, 1.2])
    with pytest.raises(ValueError, match=r"binary.*\[2\]"):
        func([0, 2], [0.2, 0.7])
    with pytest.raises(ValueError, match="entries, expected"):
        func([0, 1, 1], [0.2, 0.7])


@pytest.mark.parametrize("func", [log_loss, brier_score])
def test_multiclass_input_errors(func):
    proba = np.array([[0.2, 0.8], [0.5, 0.5]])
    with pytest.raises(ValueError, match=r"class indices 0..1 .* got \[2\]"):
        func([0, 2], proba)
    with pytest.raises(ValueError, match="sum to 1"):
        func([0, 1], [[0.2, 0.7], [0.5, 0.5]])
    with pytest.raises(ValueError, match="K >= 2"):
        func([0, 1], [[1.0], [1.0]])
    with pytest.raises(ValueError, match="class indices"):
        func(["a", "b"], proba)
    with pytest.raises(ValueError, match="entries, expected"):
        func([0, 1, 1], proba)


def test_decomposition_argument_errors():
    with pytest.raises(ValueError, match="1-D"):
        brier_decomposition([0, 1], [[0.5, 0.5], [0.1, 0.9]])
    with pytest.raises(ValueError, match="n_bins"):
        brier_decomposition([0, 1], [0.5, 0.5], n_bins=0)
    with pytest.raises(ValueError, match="n_bins"):
        brier_decomposition([0, 1], [0.5, 0.5], n_bins=2.5)
    with pytest.raises(ValueError, match="sample_weight has .* entries, expected"):
        brier_decomposition([0, 1], [0.5, 0.5], sample_weight=[1.0])
    with pytest.raises(ValueError, match="sample_weight must be finite, non-negative and not all zero"):
        brier_decomposition([0, 1], [0.5, 0.5], sample_weight=[0.0, 0.0])
