"""PlattScaling: optimality, the catalogue's recovery oracles, monotonicity, and agreement with scikit-learn."""

import warnings

import numpy as np
import pytest
from scipy import optimize, stats
from scipy.special import expit

from mllib.base import NotFittedError, clone
from mllib.calibration import PlattScaling


def _auc(y, s):
    """ROC-AUC as the Mann-Whitney statistic (ties count 1/2)."""
    ranks = stats.rankdata(s)
    n_pos = y.sum()
    n_neg = y.size - n_pos
    return (ranks[y == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def _smoothed_loss_and_grad(theta, s, t, w):
    z = theta[0] * s + theta[1]
    r = w * (expit(z) - t)
    return w @ (np.logaddexp(0.0, z) - t * z), np.array([r @ s, r.sum()])


@pytest.fixture
def noisy_scores():
    rng = np.random.default_rng(7)
    s = rng.normal(size=400) * 3.0 + 0.5
    y = (rng.random(400) < expit(0.8 * s - 0.3)).astype(int)
    return s, y


def test_libsvm_toy_set_matches_the_exact_optimum_and_the_libsvm_reference():
    s, y = np.array([5.0, -4.0, 1.0]), np.array([1, 0, 0])
    model = PlattScaling().fit(s, y)
    # exact stationary point of the smoothed log-loss, t+ = 2/3, t- = 1/4
    t = np.array([2 / 3, 1 / 4, 1 / 4])
    root = optimize.root(lambda th: _smoothed_loss_and_grad(th, s, t, np.ones(3))[1], [0.0, 0.0], tol=1e-14).x
    np.testing.assert_allclose([model.a_, model.b_], root, rtol=0, atol=1e-10)
    # LibSVM's (A, B) = (-0.2026, 0.6524) in its p = 1/(1 + exp(A s + B)) convention; that port stops at a
    # gradient tolerance of ~1e-5, so it agrees with the exact optimum only to ~1e-5 (sklearn checks 3 decimals)
    np.testing.assert_allclose([-model.a_, -model.b_], [-0.20261354391187855, 0.65236314980010512], atol=1e-5)


def test_fit_is_a_stationary_point_and_matches_scipy(noisy_scores):
    s, y = noisy_scores
    model = PlattScaling().fit(s, y)
    n_pos, n_neg = y.sum(), y.size - y.sum()
    t = np.where(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    _, grad = _smoothed_loss_and_grad(np.array([model.a_, model.b_]), s, t, np.ones(y.size))
    assert np.abs(grad).max() < 1e-9
    ref = optimize.minimize(
        _smoothed_loss_and_grad,
        [0.0, 0.0],
        args=(s, t, np.ones(y.size)),
        jac=True,
        method="BFGS",
        options={"gtol": 1e-12},
    ).x
    np.testing.assert_allclose([model.a_, model.b_], ref, atol=1e-7)


@pytest.mark.parametrize("a, b", [(2.0, -1.0), (1.0, 0.0)])
def test_recovers_the_generating_sigmoid(a, b):
    # catalogue 3.2: y ~ Bernoulli(sigmoid(2s - 1)) -> (2, -1); scores that are exact logits -> (1, 0)
    rng = np.random.default_rng(2024)
    s = rng.normal(size=200_000)
    y = (rng.random(s.size) < expit(a * s + b)).astype(int)
    model = PlattScaling(smooth_targets=False).fit(s, y)
    # standard errors are ~0.01 at this n; 0.05 is 5 of them
    assert model.a_ == pytest.approx(a, abs=0.05)
    assert model.b_ == pytest.approx(b, abs=0.05)


def test_map_is_increasing_and_auc_is_unchanged(noisy_scores):
    s, y = noisy_scores
    model = PlattScaling().fit(s, y)
    assert model.a_ > 0
    grid = np.linspace(-20, 20, 2001)
    assert np.all(np.diff(model.transform(grid)) >= 0)
    assert _auc(y, model.transform(s)) == pytest.approx(_auc(y, s), abs=1e-12)


def test_outputs_shapes_and_consistency(noisy_scores):
    s, y = noisy_scores
    model = PlattScaling().fit(s, y)
    proba = model.predict_proba(s)
    assert proba.shape == (s.size, 2) and proba.dtype == np.float64
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-15)
    np.testing.assert_array_equal(proba[:, 1], model.transform(s))
    np.testing.assert_allclose(model.decision_function(s), model.a_ * s + model.b_)


def test_sample_weights_equal_row_repetition(noisy_scores):
    s, y = noisy_scores
    w = np.random.default_rng(3).integers(1, 4, size=s.size)
    weighted = PlattScaling().fit(s, y, sample_weight=w)
    repeated = PlattScaling().fit(np.repeat(s, w), np.repeat(y, w))
    np.testing.assert_allclose([weighted.a_, weighted.b_], [repeated.a_, repeated.b_], atol=1e-10)


def test_scale_of_the_scores_does_not_matter(noisy_scores):
    s, y = noisy_scores
    base = PlattScaling().fit(s, y)
    # huge margins: no overflow (RuntimeWarnings are errors in mllib), and a scales exactly inversely
    big = PlattScaling().fit(s * 1e6, y)
    np.testing.assert_allclose([big.a_ * 1e6, big.b_], [base.a_, base.b_], rtol=1e-9, atol=1e-12)
    # extreme scores far outside the calibration range saturate cleanly
    np.testing.assert_array_equal(base.predict_proba(np.array([-1e300, 1e300])), [[1.0, 0.0], [0.0, 1.0]])


def test_constant_scores_give_the_prior_log_odds():
    model = PlattScaling().fit(np.full(10, 0.3), np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 0]))
    t_bar = (3 * 4 / 5 + 7 * 1 / 9) / 10  # mean smoothed target
    assert model.a_ == 0.0
    assert model.b_ == pytest.approx(np.log(t_bar / (1 - t_bar)), abs=1e-14)


def test_separable_scores_with_raw_targets_are_refused_but_smoothing_keeps_them_finite():
    s, y = np.array([-2.0, -1.0, 1.0, 2.0]), np.array([0, 0, 1, 1])
    with pytest.raises(ValueError, match="separate the classes"):
        PlattScaling(smooth_targets=False).fit(s, y)
    model = PlattScaling().fit(s, y)
    assert np.isfinite(model.a_) and model.a_ > 0


def test_hyperparameters_and_clone():
    model = PlattScaling(smooth_targets=False, max_iter=7, tol=1e-9)
    assert model.get_params() == {"max_iter": 7, "smooth_targets": False, "tol": 1e-9}
    assert not hasattr(clone(model), "a_")


def test_non_convergence_warns(noisy_scores):
    s, y = noisy_scores
    with pytest.warns(UserWarning, match="did not converge|stopped after"):
        PlattScaling(max_iter=1).fit(s, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PlattScaling().fit(s, y)


@pytest.mark.parametrize(
    "scores, y, match",
    [
        (np.zeros((4, 2)), [0, 1, 0, 1], "1-D"),
        ([0.1, np.nan, 0.3], [0, 1, 0], "NaN"),
        ([0.1, 0.2, 0.3], [0, 1], "expected 3"),
        ([0.1, 0.2, 0.3], [0, 2, 1], "binary"),
        ([0.1, 0.2, 0.3], ["a", "b", "a"], "binary"),
        ([0.1, 0.2, 0.3], [1, 1, 1], "both classes"),
    ],
)
def test_invalid_inputs_raise(scores, y, match):
    with pytest.raises(ValueError, match=match):
        PlattScaling().fit(scores, y)


def test_invalid_hyperparameters_and_unfitted_use_raise():
    with pytest.raises(ValueError, match="max_iter"):
        PlattScaling(max_iter=0).fit([0.0, 1.0], [0, 1])
    with pytest.raises(ValueError, match="tol"):
        PlattScaling(tol=-1.0).fit([0.0, 1.0], [0, 1])
    with pytest.raises(NotFittedError):
        PlattScaling().transform([0.0, 1.0])


def test_matches_sklearn_sigmoid_calibration(noisy_scores):
    calibration = pytest.importorskip("sklearn.calibration")
    s, y = noisy_scores
    w = np.random.default_rng(5).uniform(0.5, 2.0, size=s.size)
    for sample_weight in (None, w):
        ours = PlattScaling().fit(s, y, sample_weight=sample_weight)
        ref = calibration._SigmoidCalibration().fit(s, y, sample_weight=sample_weight)
        # sklearn: p = 1 / (1 + exp(a s + b)), so its (a, b) is minus ours
        np.testing.assert_allclose([ours.a_, ours.b_], [-ref.a_, -ref.b_], atol=1e-6)


def test_matches_sklearn_calibrated_classifier_cv():
    pytest.importorskip("sklearn")
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.frozen import FrozenEstimator
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(11)
    X = rng.normal(size=(600, 3))
    y = (X @ [1.5, -1.0, 0.5] + rng.normal(size=600) > 0).astype(int)
    # base model on one half, calibrator on the other (the leakage rule of catalogue 3.2)
    base = LogisticRegression(C=0.01).fit(X[:300], y[:300])
    calibrated = CalibratedClassifierCV(FrozenEstimator(base), method="sigmoid").fit(X[300:], y[300:])
    ours = PlattScaling().fit(base.decision_function(X[300:]), y[300:])
    ref = calibrated.calibrated_classifiers_[0].calibrators[0]
    np.testing.assert_allclose([ours.a_, ours.b_], [-ref.a_, -ref.b_], atol=1e-6)
    np.testing.assert_allclose(
        ours.predict_proba(base.decision_function(X[:300])), calibrated.predict_proba(X[:300]), atol=1e-6
    )
