"""AdaBoost family: the three-round worked example of seed-001-003-004 catalogue 6.2 with its invariants after every
round checked on the model's own normalisers and reweighted errors (1/2, SAMME (K-1)/K), Real AdaBoost's stumps
minimising Z = 2 sum_b sqrt(p_b q_b), the population minimiser F = (1/2) log(p/(1-p)) (catalogue 6.4: p = 0.8 gives
0.693147), the LogitBoost update, staged predictions, margins and the tree protocol."""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from tree_protocol import ensemble_output

from mllib import io as mlio
from mllib.ensemble import AdaBoostClassifier

X10 = np.arange(1, 11, dtype=float)[:, None]
Y10 = np.array([1, 1, 1, -1, -1, -1, 1, 1, 1, -1])


def _stumps():
    return AdaBoostClassifier(n_estimators=3).fit(X10, Y10)  # default criterion: the smallest weighted error


def test_worked_example_three_rounds():
    model = _stumps()
    np.testing.assert_allclose(model.estimator_weights_, [0.423649, 0.649641, 0.752039], atol=1e-6)
    np.testing.assert_allclose(model.estimator_errors_, [0.3, 3 / 14, 2 / 11], rtol=1e-12)
    assert [t.threshold_[0] for t in model.estimators_] == [3.5, 9.5, 6.5]
    F = model.decision_function(X10)
    assert np.mean(np.exp(-Y10 * F)) == pytest.approx(0.580193, abs=1e-6)
    assert np.all(model.predict(X10) == Y10)
    staged_errors = [np.mean(p != Y10) for p in model.staged_predict(X10)]
    np.testing.assert_allclose(staged_errors, [0.3, 0.3, 0.0])


def test_invariants_after_every_round():
    model = _stumps()
    Z = model.normalizers_
    np.testing.assert_allclose(Z, [0.916515, 0.820652, 0.771389], atol=1e-6)
    eps = model.estimator_errors_
    np.testing.assert_allclose(Z, 2 * np.sqrt(eps * (1 - eps)), rtol=1e-12)  # Z_t(min) (D1:409)
    gamma = 0.5 - eps
    assert np.all(np.cumprod(Z) <= np.exp(-2 * np.cumsum(gamma**2)))  # (iii), E25
    # (i) under the new weights D_t the learner just chosen is a coin flip
    np.testing.assert_allclose(model.reweighted_errors_, 0.5, atol=1e-15)
    for t, F in enumerate(model.staged_decision_function(X10)):
        # (ii) prod_s Z_s = mean exp(-y F_t): holds only if every D_t is renormalised to sum 1 (iv)
        assert np.prod(Z[: t + 1]) == pytest.approx(np.mean(np.exp(-Y10 * F)), rel=1e-12)
        assert np.mean(np.sign(F) != Y10) <= np.prod(Z[: t + 1])  # (iii) training error <= prod Z
    h = np.where(model.estimators_[0].predict(X10) == 1, 1.0, -1.0)  # trees are fitted on class codes: 1 is +1
    d0 = np.full(10, 0.1)
    # alpha_1 minimises sum_i D_0(i) exp(-alpha y_i h_1(x_i)) (seed 000, catalogue J2)
    best = minimize_scalar(
        lambda a: np.dot(d0, np.exp(-a * Y10 * h)), bounds=(0, 5), method="bounded", options={"xatol": 1e-10}
    )
    assert model.estimator_weights_[0] == pytest.approx(best.x, abs=1e-6)


def test_probability_link_and_margins():
    model = _stumps()
    F = model.decision_function(X10)
    np.testing.assert_allclose(model.predict_proba(X10)[:, 1], 1 / (1 + np.exp(-2 * F)), rtol=1e-12)
    rho = model.margins(X10, Y10)
    np.testing.assert_allclose(rho, Y10 * F / model.estimator_weights_.sum(), rtol=1e-12)
    assert np.all(np.abs(rho) <= 1) and rho.min() > 0  # every point correct after round 3


def _blobs(seed, n=300, k=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = rng.normal(size=(n, 2)) + 2.0 * np.column_stack([np.cos(2 * np.pi * y / k), np.sin(2 * np.pi * y / k)])
    return X, y


def test_samme_multiclass_is_better_than_one_stump():
    X, y = _blobs(0)
    model = AdaBoostClassifier(n_estimators=40).fit(X, y)
    stages = [np.mean(p == y) for p in model.staged_predict(X)]
    assert stages[-1] > stages[0] + 0.15 and stages[-1] > 0.8
    S = model.decision_function(X)
    np.testing.assert_allclose(S.sum(axis=1), 0, atol=1e-10)  # symmetric SAMME coding
    assert np.all(model.estimator_errors_ < 1 - 1 / 3)
    # under the new weights the chosen learner errs with weight (K - 1)/K: chance level for 3 classes
    np.testing.assert_allclose(model.reweighted_errors_, 2 / 3, rtol=1e-12)
    # prod_t Z_t = sum_i D_0(i) prod_t exp(alpha_t (2 miss_it - 1)): the weights were renormalised every round
    miss = np.array([tree.predict(X) != y for tree in model.estimators_])
    exponent = model.estimator_weights_ @ (2.0 * miss - 1.0)
    assert np.prod(model.normalizers_) == pytest.approx(np.mean(np.exp(exponent)), rel=1e-10)


def _z_of_partition(leaves, code, d, n_classes):
    """Z = K sum_b w_b (prod_k p_bk)^(1/K) of a partition (binary: 2 sum_b sqrt(p_b q_b), p, q class masses)."""
    masses = np.array([[d[(leaves == b) & (code == k)].sum() for k in range(n_classes)] for b in np.unique(leaves)])
    return n_classes * np.sum(np.prod(masses, axis=1) ** (1 / n_classes))


def _smallest_stump_z(X, code, d, n_classes):
    """Brute force over every feature and midpoint threshold."""
    best = np.inf
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for t in (values[1:] + values[:-1]) / 2:
            best = min(best, _z_of_partition((X[:, j] <= t).astype(int), code, d, n_classes))
    return best


def test_real_adaboost_update_and_leaf_values():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=200) > 0).astype(int)
    model = AdaBoostClassifier(n_estimators=1, algorithm="real").fit(X, y)
    tree = model.estimators_[0]
    p = np.clip(tree.predict_proba(X)[:, 1], 1e-6, 1)
    q = np.clip(tree.predict_proba(X)[:, 0], 1e-6, 1)
    np.testing.assert_allclose(model.decision_function(X), 0.5 * np.log(p / q), rtol=1e-12)  # h = 1/2 ln(p/q)
    # the stump is the one of smallest Z = 2 sum_b sqrt(p_b q_b) (D1:471-478), and Z is the update's normaliser
    Z = _z_of_partition(tree.apply(X), y, np.full(200, 1 / 200), 2)
    assert Z == pytest.approx(_smallest_stump_z(X, y, np.full(200, 1 / 200), 2), rel=1e-12)
    assert model.normalizers_[0] == pytest.approx(Z, rel=1e-9) and Z < 1.0
    gini = AdaBoostClassifier(n_estimators=1, algorithm="real", criterion="gini").fit(X, y)
    assert _z_of_partition(gini.estimators_[0].apply(X), y, np.full(200, 1 / 200), 2) >= Z
    many = AdaBoostClassifier(n_estimators=30, algorithm="real").fit(X, y)
    assert np.mean(many.predict(X) == y) > np.mean(model.predict(X) == y)


def test_real_adaboost_multiclass_z():
    X, y = _blobs(5, n=240)
    X = X + np.random.default_rng(5).normal(scale=1.5, size=X.shape)  # every stump leaf holds all three classes
    model = AdaBoostClassifier(n_estimators=2, algorithm="real").fit(X, y)
    d = np.full(240, 1 / 240)
    Z = _z_of_partition(model.estimators_[0].apply(X), y, d, 3)
    assert Z == pytest.approx(_smallest_stump_z(X, y, d, 3), rel=1e-12)
    assert model.normalizers_[0] == pytest.approx(Z, rel=1e-9) and Z < 1.0


def test_population_minimiser_with_constant_features():
    """One leaf with p(y = 1) = 0.8: F* = (1/2) ln(0.8 / 0.2) = 0.693147 for Real AdaBoost in one round and for
    LogitBoost's Newton steps in the limit (catalogue 6.4, E26); both give back p = sigma(2 F*) = 0.8."""
    X = np.zeros((50, 2))
    y = np.array([1] * 40 + [0] * 10)
    for model in (
        AdaBoostClassifier(n_estimators=1, algorithm="real"),
        AdaBoostClassifier(n_estimators=12, algorithm="logit"),
    ):
        model.fit(X, y)
        np.testing.assert_allclose(model.decision_function(X), 0.693147, atol=1e-6)
        np.testing.assert_allclose(model.predict_proba(X)[:, 1], 0.8, rtol=1e-9)
    logit_path = [F[0] for F in model.staged_decision_function(X)]
    assert logit_path[0] == pytest.approx(0.6)  # Newton from F = 0: (1/2) (0.8 - 0.5) / 0.25
    assert np.all(np.diff(logit_path) >= 0)


def test_logitboost_loss_decreases_and_probabilities():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] - X[:, 1] + 0.7 * rng.normal(size=300) > 0).astype(int)
    # Newton steps decrease the log-loss when they are not too long (catalogue 6.4): stumps, or shrinkage
    for kw in (dict(max_depth=1), dict(max_depth=2, learning_rate=0.5)):
        steps = AdaBoostClassifier(n_estimators=30, algorithm="logit", **kw).fit(X, y)
        assert np.all(np.diff(steps.train_loss_) <= 1e-12)
    model = AdaBoostClassifier(n_estimators=30, algorithm="logit", max_depth=2).fit(X, y)
    assert model.train_loss_[-1] < 0.5 * model.train_loss_[0]
    P = model.predict_proba(X)
    assert np.all((P > 0) & (P < 1))
    np.testing.assert_allclose(P[:, 1], 1 / (1 + np.exp(-2 * model.decision_function(X))), rtol=1e-12)
    Xm, ym = _blobs(3)
    multi = AdaBoostClassifier(n_estimators=20, algorithm="logit", learning_rate=0.5).fit(Xm, ym)
    assert np.all(np.diff(multi.train_loss_) <= 1e-12) and np.mean(multi.predict(Xm) == ym) > 0.8


@pytest.mark.parametrize("algorithm", ["discrete", "real", "logit"])
@pytest.mark.parametrize("k", [2, 3])
def test_tree_ensemble_and_staged_outputs_and_io(algorithm, k, tmp_path):
    X, y = _blobs(4, n=150, k=k)
    model = AdaBoostClassifier(n_estimators=6, algorithm=algorithm, max_depth=2).fit(X, y)
    ens = model.tree_ensemble()
    assert ens["output"] == "raw"
    out = ensemble_output(ens, X)
    decision = model.decision_function(X)
    np.testing.assert_allclose(out[:, 0] if k == 2 else out, decision, rtol=1e-12, atol=1e-12)
    staged = list(model.staged_decision_function(X))
    np.testing.assert_allclose(staged[-1], decision, rtol=1e-12, atol=1e-12)
    mlio.save(model, tmp_path / "ada")
    np.testing.assert_array_equal(mlio.load(tmp_path / "ada").predict_proba(X), model.predict_proba(X))


def test_perfect_first_learner_stops_and_bad_params():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    model = AdaBoostClassifier(n_estimators=10).fit(X, y)
    assert len(model.estimators_) == 1 and model.estimator_errors_[0] == 0.0
    assert np.all(model.predict(X) == y)
    with pytest.raises(ValueError, match="algorithm"):
        AdaBoostClassifier(algorithm="gentle").fit(X, y)
    with pytest.raises(ValueError, match="learning_rate"):
        AdaBoostClassifier(learning_rate=0).fit(X, y)
