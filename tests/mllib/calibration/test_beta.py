"""BetaCalibration: a worked example, the recovery of a known beta map, agreement with scikit-learn's unpenalised
logistic regression on the features (ln q, -ln(1 - q)) (Kull et al.'s own fit, betacal, is that regression), the
constrained fit's optimality (Karush-Kuhn-Tucker), and the invariants: strictly increasing, no ties created, ranking
unchanged, probabilities in (0, 1); one-vs-rest for K classes through OneVsRestCalibration."""

import warnings

import numpy as np
import pytest
from scipy import optimize, stats
from scipy.special import expit, log_expit

from mllib.base import NotFittedError, clone
from mllib.calibration import BetaCalibration, OneVsRestCalibration, PlattScaling
from mllib.calibration.beta import beta_features


def beta_law(a, b, c, n, seed, sd=2.5):
    """Log-odds scores s ~ N(0, sd) whose true probability is the beta map sigmoid(a ln q - b ln(1 - q) + c)."""
    rng = np.random.default_rng(seed)
    s = rng.normal(0, sd, n)
    y = (rng.random(n) < expit(a * log_expit(s) - b * log_expit(-s) + c)).astype(int)
    return s, y


def smoothed_loss_and_grad(theta, F, t):
    """The mean log loss against targets t of sigmoid(F @ theta[:2] + theta[2]), with its gradient."""
    z = F @ theta[:2] + theta[2]
    r = expit(z) - t
    return np.mean(np.logaddexp(0.0, z) - t * z), np.append(F.T @ r, r.sum()) / t.size


def test_worked_example_two_score_values_get_their_own_frequencies():
    """Two distinct scores: the least log loss puts each score at its rows' mean target, which a strictly increasing
    map through the two points reaches. Raw labels: 1/4 and 3/4. Platt's targets (N+ = N- = 4): t+ = 5/6, t- = 1/6, so
    (3/6 + 5/6) / 4 = 1/3 at s = -1 and (1/6 + 15/6) / 4 = 2/3 at s = 1."""
    s = np.array([-1.0] * 4 + [1.0] * 4)
    y = np.array([0, 0, 0, 1, 0, 1, 1, 1])
    raw = BetaCalibration(smooth_targets=False).fit(s, y)
    np.testing.assert_allclose(raw.transform([-1.0, 1.0]), [0.25, 0.75], atol=1e-9)
    smoothed = BetaCalibration().fit(s, y)
    np.testing.assert_allclose(smoothed.transform([-1.0, 1.0]), [1 / 3, 2 / 3], atol=1e-9)
    assert raw.a_ >= 0 and raw.b_ >= 0 and raw.a_ + raw.b_ > 0  # strictly increasing between the two scores


def test_identity_and_platt_are_members_of_the_family():
    """ln q - ln(1 - q) = s: a = b = 1, c = 0 is the identity, a = b Platt's sigmoid(a s + c)."""
    s = np.linspace(-30, 30, 601)
    log_q, minus_log_not_q = beta_features(s)
    np.testing.assert_allclose(log_q + minus_log_not_q, s, rtol=0, atol=1e-12)
    model = BetaCalibration()
    model.a_, model.b_, model.c_ = 1.0, 1.0, 0.0
    np.testing.assert_allclose(model.transform(s), expit(s), rtol=1e-12)
    model.a_, model.b_, model.c_ = 0.7, 0.7, -0.2
    np.testing.assert_allclose(model.transform(s), expit(0.7 * s - 0.2), rtol=1e-12)


@pytest.mark.parametrize("a, b, c", [(2.0, 0.5, -0.3), (1.0, 1.0, 0.0), (2.5, 0.0, 2.0)])
def test_recovers_the_generating_beta_map(a, b, c):
    s, y = beta_law(a, b, c, 200_000, seed=2024)
    model = BetaCalibration(smooth_targets=False).fit(s, y)
    # standard errors are ~0.01-0.02 at this n; 0.08 is four or more of them (b = 0 sits on the constraint)
    np.testing.assert_allclose([model.a_, model.b_, model.c_], [a, b, c], atol=0.08)


def test_matches_sklearn_unpenalised_logistic_regression_on_the_two_features():
    linear_model = pytest.importorskip("sklearn.linear_model")
    s, y = beta_law(2.0, 0.5, -0.3, 3000, seed=1)
    F = np.column_stack(beta_features(s))
    w = np.random.default_rng(2).uniform(0.5, 2.0, s.size)
    for sample_weight in (None, w):
        ours = BetaCalibration(smooth_targets=False).fit(s, y, sample_weight=sample_weight)
        ref = linear_model.LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(F, y, sample_weight)
        assert ref.coef_.min() > 0  # the unconstrained fit is feasible here, so it is the constrained one
        np.testing.assert_allclose([ours.a_, ours.b_, ours.c_], [*ref.coef_[0], ref.intercept_[0]], atol=1e-5)
    # Platt's targets are soft labels: each row once as a positive with weight t and once as a negative with 1 - t
    n_pos, n_neg = y.sum(), (1 - y).sum()
    t = np.where(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    ref = linear_model.LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(
        np.vstack([F, F]), np.r_[np.ones(s.size), np.zeros(s.size)], np.r_[t, 1 - t]
    )
    ours = BetaCalibration().fit(s, y)
    np.testing.assert_allclose([ours.a_, ours.b_, ours.c_], [*ref.coef_[0], ref.intercept_[0]], atol=1e-5)


def test_a_negative_weight_is_held_at_zero_and_the_fit_is_the_constrained_optimum():
    """Scores whose top end carries no more information than its bottom's (true p capped at sigmoid(2)): the
    unconstrained fit puts a negative weight on -ln(1 - q); the fit sets it to 0 (betacal's refit without that
    feature, which scikit-learn reproduces) and satisfies the KKT conditions of the bounded problem."""
    linear_model = pytest.importorskip("sklearn.linear_model")
    rng = np.random.default_rng(5)
    s = rng.normal(0, 3, 4000)
    y = (rng.random(s.size) < expit(2.5 * log_expit(s) + 2.0 - 0.3 * np.tanh(s))).astype(int)
    F = np.column_stack(beta_features(s))
    free = linear_model.LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(F, y)
    assert free.coef_[0, 1] < 0  # the unconstrained map would fall at the top: not a calibration map
    model = BetaCalibration(smooth_targets=False).fit(s, y)
    assert model.b_ == 0.0 and model.a_ > 0
    face = linear_model.LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(F[:, :1], y)
    np.testing.assert_allclose([model.a_, model.c_], [face.coef_[0, 0], face.intercept_[0]], atol=1e-5)
    # KKT: zero gradient along the free coordinates (a, c), a non-negative one along b, held at its bound
    _, grad = smoothed_loss_and_grad(np.array([model.a_, model.b_, model.c_]), F, y.astype(float))
    assert abs(grad[0]) < 1e-8 and abs(grad[2]) < 1e-8 and grad[1] >= 0
    # no feasible point does better (scipy's bounded quasi-Newton from the identity map)
    bounded = optimize.minimize(
        smoothed_loss_and_grad, [1.0, 1.0, 0.0], args=(F, y.astype(float)), jac=True, method="L-BFGS-B",
        bounds=[(0, None), (0, None), (None, None)], options={"ftol": 1e-15, "gtol": 1e-12},
    )  # fmt: skip
    ours, _ = smoothed_loss_and_grad(np.array([model.a_, model.b_, model.c_]), F, y.astype(float))
    assert ours <= bounded.fun + 1e-12


@pytest.mark.parametrize("seed", range(5))
def test_strictly_increasing_no_ties_ranking_kept_probabilities_inside_the_unit_interval(seed):
    rng = np.random.default_rng(seed)
    a, b, c = rng.uniform(0, 3), rng.uniform(0, 3), rng.normal()
    s, y = beta_law(a, b, c, 2000, seed=seed, sd=rng.uniform(0.5, 4))
    model = BetaCalibration().fit(s, y)
    assert model.a_ >= 0 and model.b_ >= 0 and model.a_ + model.b_ > 0
    grid = np.linspace(-30, 30, 20_001)
    z = model.decision_function(grid)
    assert np.all(np.diff(z) > 0)  # strictly increasing: no two distinct scores share a log-odds
    # float64 rounds sigmoid(z) to 1 beyond z ~ 36.7 (and resolves it to ~1e-16 before): read p where it resolves
    inside = np.abs(z) < 30
    p = model.transform(grid[inside])
    assert inside.sum() > 1000 and np.all(np.diff(p) > 0) and np.all((p > 0) & (p < 1))
    calibrated = model.transform(s)
    resolved = np.abs(model.decision_function(s)) < 30
    assert np.unique(calibrated[resolved]).size == np.unique(s[resolved]).size  # no ties created
    np.testing.assert_array_equal(stats.rankdata(calibrated), stats.rankdata(s))  # the ranking is the model's
    proba = model.predict_proba(s)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-15)
    np.testing.assert_array_equal(proba[:, 1], calibrated)


def test_extreme_scores_saturate_cleanly_and_constant_scores_give_the_prior():
    s, y = beta_law(2.0, 0.5, -0.3, 500, seed=3)
    model = BetaCalibration().fit(s, y)
    # no overflow (RuntimeWarnings are errors in mllib): log-odds of -/+inf, probabilities exactly 0 and 1
    np.testing.assert_array_equal(model.predict_proba(np.array([-1e300, 1e300])), [[1.0, 0.0], [0.0, 1.0]])
    constant = BetaCalibration().fit(np.full(10, 0.3), np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 0]))
    platt = PlattScaling().fit(np.full(10, 0.3), np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 0]))
    assert constant.a_ == constant.b_ == 0.0
    assert constant.transform([0.3])[0] == pytest.approx(platt.transform([0.3])[0], abs=1e-14)


def test_sample_weights_equal_row_repetition():
    s, y = beta_law(2.0, 0.5, -0.3, 800, seed=4)
    w = np.random.default_rng(3).integers(1, 4, size=s.size)
    weighted = BetaCalibration().fit(s, y, sample_weight=w)
    repeated = BetaCalibration().fit(np.repeat(s, w), np.repeat(y, w))
    np.testing.assert_allclose([weighted.a_, weighted.b_, weighted.c_], [repeated.a_, repeated.b_, repeated.c_],
                               atol=1e-9)  # fmt: skip


def test_separable_scores_with_raw_labels_are_refused_but_smoothing_keeps_them_finite():
    s, y = np.array([-2.0, -1.0, 1.0, 2.0]), np.array([0, 0, 1, 1])
    with pytest.raises(ValueError, match="separate the classes"):
        BetaCalibration(smooth_targets=False).fit(s, y)
    model = BetaCalibration().fit(s, y)
    assert np.isfinite([model.a_, model.b_, model.c_]).all() and model.a_ + model.b_ > 0


def test_one_vs_rest_for_three_classes():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(3000, 3)) * 1.5
    y = np.array([rng.choice(3, p=p) for p in np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)])
    S = np.log(np.exp(3 * z) / np.exp(3 * z).sum(axis=1, keepdims=True))  # over-confident log-probabilities
    cal = OneVsRestCalibration(BetaCalibration()).fit(S, y)
    P = cal.predict_proba(S)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert ((P > 0) & (P < 1)).all()
    for k, c in enumerate(cal.calibrators_):
        np.testing.assert_array_equal(c.transform(S[:, k]), BetaCalibration().fit(S[:, k], y == k).transform(S[:, k]))


def test_hyperparameters_non_convergence_and_unfitted_use():
    model = BetaCalibration(smooth_targets=False, max_iter=7, tol=1e-9)
    assert model.get_params() == {"max_iter": 7, "smooth_targets": False, "tol": 1e-9}
    assert not hasattr(clone(model), "a_")
    s, y = beta_law(2.0, 0.5, -0.3, 500, seed=6)
    with pytest.warns(UserWarning, match="BetaCalibration stopped after 1 Newton steps"):
        BetaCalibration(max_iter=1).fit(s, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        BetaCalibration().fit(s, y)
    with pytest.raises(ValueError, match="max_iter"):
        BetaCalibration(max_iter=0).fit(s, y)
    with pytest.raises(ValueError, match="every class needs positive total"):
        BetaCalibration().fit([0.1, 0.2, 0.3], [1, 1, 1])
    with pytest.raises(NotFittedError):
        BetaCalibration().transform([0.0, 1.0])
