"""mllib.neural training: XOR learned, the loss decreases, determinism, early stopping by its rule,
closed-form oracles for networks without hidden layers (logistic / ridge regression; Gaussian input noise of std s
= ridge with alpha = n s^2), sample weights as row duplication, and accuracy comparable with scikit-learn's
MLPClassifier on the same problem."""

import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.neural_network import MLPClassifier as SkMLPClassifier

from mllib.base import NotFittedError
from mllib.linear import LogisticRegression
from mllib.neural import MLPClassifier as _MLPClassifier
from mllib.neural import MLPRegressor


def MLPClassifier(**params):
    """These tests train for a fixed budget unless they say otherwise (the estimator's default stops early)."""
    return _MLPClassifier(**{"early_stopping": False, **params})


XOR_X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
XOR_Y = np.array([0, 1, 1, 0])


def test_xor_is_learned_by_a_small_tanh_net():
    net = MLPClassifier(
        hidden_layer_sizes=(4,),
        activation="tanh",
        learning_rate=0.05,
        max_iter=1000,
        alpha=0.0,
        tol=0.0,
        random_state=0,
    ).fit(XOR_X, XOR_Y)
    np.testing.assert_array_equal(net.predict(XOR_X), XOR_Y)
    P = net.predict_proba(XOR_X)
    assert (P[np.arange(4), XOR_Y] > 0.9).all()
    # no linear model separates XOR: the same training without a hidden layer cannot
    linear = MLPClassifier(hidden_layer_sizes=(), learning_rate=0.05, max_iter=1000, alpha=0.0, tol=0.0).fit(
        XOR_X, XOR_Y
    )
    assert (linear.predict(XOR_X) == XOR_Y).sum() <= 3


def test_xor_is_learned_with_the_hinge_loss_and_sgd_momentum():
    net = MLPClassifier(
        hidden_layer_sizes=(8,),
        activation="tanh",
        loss="hinge",
        solver="sgd",
        learning_rate=0.05,
        momentum=0.9,
        nesterov=True,
        max_iter=500,
        alpha=0.0,
        tol=0.0,
        random_state=1,
    ).fit(XOR_X, XOR_Y)
    np.testing.assert_array_equal(net.predict(XOR_X), XOR_Y)
    assert (np.where(XOR_Y == 1, 1, -1) * net.decision_function(XOR_X) >= 1 - 1e-6).all()  # margins reach 1
    assert net.loss_curve_[-1] < 1e-6


def test_full_batch_gradient_descent_decreases_the_loss_every_epoch():
    X, y = make_moons(200, noise=0.2, random_state=0)
    net = MLPClassifier(
        hidden_layer_sizes=(16,),
        solver="sgd",
        momentum=0.0,
        learning_rate=0.05,
        batch_size=200,
        max_iter=100,
        tol=0.0,
        random_state=0,
    ).fit(X, y)
    assert net.n_iter_ == 100 and net.loss_curve_.shape == (100,)
    assert (np.diff(net.loss_curve_) < 0).all()
    assert net.loss_curve_[-1] < 0.6 * net.loss_curve_[0]


def test_same_seed_gives_identical_weights_and_other_seeds_differ():
    X, y = make_moons(150, noise=0.3, random_state=1)
    params = dict(hidden_layer_sizes=(8, 6), batch_size=32, max_iter=15, dropout=0.3, input_noise=0.1, tol=0.0)
    a = MLPClassifier(random_state=5, **params).fit(X, y)
    b = MLPClassifier(random_state=5, **params).fit(X, y)
    c = MLPClassifier(random_state=6, **params).fit(X, y)
    for Wa, Wb, Wc in zip(a.coefs_ + a.intercepts_, b.coefs_ + b.intercepts_, c.coefs_ + c.intercepts_):
        np.testing.assert_array_equal(Wa, Wb)
    assert not np.array_equal(a.coefs_[0], c.coefs_[0])
    assert all(W.dtype == np.float64 for W in a.coefs_ + a.intercepts_)
    # dropout and noise are training-only: predictions are a plain deterministic forward pass
    h = np.maximum(X @ a.coefs_[0] + a.intercepts_[0], 0)
    h = np.maximum(h @ a.coefs_[1] + a.intercepts_[1], 0)
    np.testing.assert_allclose(
        a.decision_function(X), (h @ a.coefs_[2] + a.intercepts_[2])[:, 0], rtol=1e-12, atol=1e-12
    )


def test_early_stopping_stops_by_its_rule_and_keeps_the_best_epoch():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + rng.normal(scale=2.0, size=300) > 0).astype(int)  # noisy: a wide net overfits soon
    net = MLPClassifier(
        hidden_layer_sizes=(64,),
        learning_rate=0.01,
        batch_size=32,
        max_iter=500,
        early_stopping=True,
        n_iter_no_change=5,
        tol=0.0,
        random_state=0,
    ).fit(X, y)
    assert net.n_iter_ < 500
    scores = net.validation_scores_
    assert scores.shape == (net.n_iter_,) and net.loss_curve_.shape == (net.n_iter_,)
    best = int(np.argmax(scores))
    assert net.n_iter_ == best + 1 + 5  # stopped n_iter_no_change epochs after the last improvement
    # the kept weights are the best epoch's, not the last: refit for exactly best + 1 epochs
    again = MLPClassifier(
        hidden_layer_sizes=(64,),
        learning_rate=0.01,
        batch_size=32,
        max_iter=best + 1,
        early_stopping=True,
        n_iter_no_change=5,
        tol=0.0,
        random_state=0,
    ).fit(X, y)
    np.testing.assert_array_equal(net.coefs_[0], again.coefs_[0])


def test_training_loss_convergence_stops_without_early_stopping():
    X, y = make_moons(100, noise=0.1, random_state=0)
    net = MLPClassifier(hidden_layer_sizes=(8,), max_iter=5000, tol=1e-3, n_iter_no_change=3, random_state=0).fit(X, y)
    assert net.n_iter_ < 5000 and net.validation_scores_ is None
    tail = net.loss_curve_[-4:]
    assert (tail[1:] > tail[:-1].min() - 1e-3).all()  # the last three epochs improved by less than tol


def test_no_hidden_layer_is_l2_logistic_regression():
    """Objective sum_k E_k + alpha/2 ||w||^2 = logistic regression with lam = alpha / 2 (intercept unpenalised)."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(120, 3))
    y = (X @ [1.0, -2.0, 0.5] + rng.logistic(size=120) > 0).astype(int)
    net = MLPClassifier(
        hidden_layer_sizes=(),
        alpha=4.0,
        solver="sgd",
        learning_rate=0.5,
        batch_size=120,
        max_iter=1000,
        n_iter_no_change=1000,
    ).fit(X, y)  # full-batch gradient descent with momentum
    ref = LogisticRegression(lam=2.0).fit(X, y)
    np.testing.assert_allclose(net.coefs_[0][:, 0], ref.coef_[0], atol=1e-8)
    np.testing.assert_allclose(net.intercepts_[0], ref.intercept_, atol=1e-8)


def test_no_hidden_layer_regressor_is_ridge_with_unpenalised_intercept():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 4))
    y = X @ [1.0, 0.5, -1.0, 2.0] + 3.0 + 0.1 * rng.normal(size=80)
    alpha = 10.0
    net = MLPRegressor(
        hidden_layer_sizes=(),
        alpha=alpha,
        solver="sgd",
        learning_rate=0.1,
        batch_size=80,
        max_iter=1000,
        n_iter_no_change=1000,
    ).fit(X, y)
    Xc = X - X.mean(axis=0)
    w = np.linalg.solve(
        Xc.T @ Xc + alpha * np.eye(4), Xc.T @ (y - y.mean())
    )  # argmin ||y - Xw - b||^2/2 + alpha/2 ||w||^2
    np.testing.assert_allclose(net.coefs_[0][:, 0], w, atol=1e-8)
    np.testing.assert_allclose(net.intercepts_[0][0], y.mean() - X.mean(axis=0) @ w, atol=1e-8)


def test_input_noise_on_a_linear_model_is_ridge_with_alpha_n_s2():
    """Bishop (1995): with squared loss, E_e[(w.(x + e) + b - y)^2] / 2 = (w.x + b - y)^2 / 2 + s^2 ||w||^2 / 2 for
    e ~ N(0, s^2 I), so full-batch gradient descent on noisy inputs follows, in expectation, the ridge gradient with
    alpha = n s^2. The noisy steps scatter the weights around the ridge solution: at learning rate 0.01 by 0.004
    here, at most 0.0074 (intercept 0.0062) over random_state 0-19, against 0.15 between the ridge and the
    noise-free (least-squares) solutions."""
    rng = np.random.default_rng(3)
    n, s = 200, 0.3
    X = rng.normal(size=(n, 3))
    y = X @ [1.0, -2.0, 0.5] + 1.0 + 0.3 * rng.normal(size=n)
    Xc = X - X.mean(axis=0)

    def ridge(alpha):  # unpenalised intercept
        return np.linalg.solve(Xc.T @ Xc + alpha * np.eye(3), Xc.T @ (y - y.mean()))

    w_ridge, w_ls = ridge(n * s**2), ridge(0.0)
    assert np.abs(w_ridge - w_ls).max() > 0.1
    net = MLPRegressor(
        hidden_layer_sizes=(),
        alpha=0.0,
        input_noise=s,
        solver="sgd",
        momentum=0.0,
        learning_rate=0.01,
        batch_size=n,
        max_iter=2000,
        n_iter_no_change=2000,
        tol=0.0,
    ).fit(X, y)
    w, b = net.coefs_[0][:, 0], net.intercepts_[0][0]
    np.testing.assert_allclose(w, w_ridge, rtol=0, atol=0.008)
    assert abs(b - (y.mean() - X.mean(axis=0) @ w_ridge)) < 0.008
    np.testing.assert_allclose(net.predict(X), X @ w + b, rtol=1e-13, atol=1e-13)  # noise-free prediction


def test_identity_activation_network_is_a_linear_model():
    X, y = make_moons(100, noise=0.2, random_state=3)
    net = MLPClassifier(hidden_layer_sizes=(5, 4), activation="identity", max_iter=20).fit(X, y)
    W = net.coefs_[0] @ net.coefs_[1] @ net.coefs_[2]
    b = (net.intercepts_[0] @ net.coefs_[1] + net.intercepts_[1]) @ net.coefs_[2] + net.intercepts_[2]
    np.testing.assert_allclose(net.decision_function(X), (X @ W + b)[:, 0], rtol=1e-10, atol=1e-12)


def test_integer_sample_weights_equal_duplicated_rows():
    """Full batch, no weight decay: weight-2 rows give the gradient of duplicated rows up to a constant factor,
    which Adam's update does not see (up to its epsilon)."""
    X, y = make_moons(60, noise=0.3, random_state=4)
    w = np.where(np.arange(60) % 3 == 0, 2.0, 1.0)
    dup = np.repeat(np.arange(60), w.astype(int))
    params = dict(hidden_layer_sizes=(6,), alpha=0.0, batch_size=1000, max_iter=50, tol=0.0, learning_rate=0.01)
    a = MLPClassifier(**params).fit(X, y, sample_weight=w)
    b = MLPClassifier(**params).fit(X[dup], y[dup])
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-6)


def test_multiclass_labels_probabilities_and_hinge():
    rng = np.random.default_rng(5)
    centres = np.array([[0.0, 3.0], [3.0, -2.0], [-3.0, -2.0]])
    codes = rng.integers(0, 3, size=240)
    X = centres[codes] + rng.normal(size=(240, 2))
    y = np.array(["a", "b", "c"])[codes]
    for loss in ("cross_entropy", "hinge"):
        net = MLPClassifier(hidden_layer_sizes=(16,), loss=loss, batch_size=32, max_iter=100, random_state=0).fit(X, y)
        P = net.predict_proba(X)
        np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
        assert net.decision_function(X).shape == (240, 3)
        assert np.mean(net.predict(X) == y) > 0.95
        assert list(net.classes_) == ["a", "b", "c"]


def test_regressor_fits_a_smooth_function():
    rng = np.random.default_rng(6)
    X = rng.uniform(-2, 2, size=(400, 2))
    y = np.sin(2 * X[:, 0]) + X[:, 1] ** 2
    net = MLPRegressor(
        hidden_layer_sizes=(32, 32), activation="elu", learning_rate=0.01, batch_size=32, max_iter=200, random_state=0
    ).fit(X, y)
    pred = net.predict(X)
    assert pred.dtype == np.float64 and pred.shape == (400,)
    assert 1 - np.mean((pred - y) ** 2) / np.var(y) > 0.97


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # both run all max_iter epochs
def test_accuracy_comparable_with_sklearn_mlpclassifier():
    X, y = make_moons(600, noise=0.25, random_state=7)
    Xt, yt = make_moons(2000, noise=0.25, random_state=8)
    settings = dict(hidden_layer_sizes=(32,), alpha=1e-4, batch_size=50, max_iter=200, random_state=0)
    ours = MLPClassifier(learning_rate=1e-2, tol=0.0, **settings).fit(X, y)
    ref = SkMLPClassifier(learning_rate_init=1e-2, tol=0.0, n_iter_no_change=1000, **settings).fit(X, y)
    acc_ours, acc_ref = np.mean(ours.predict(Xt) == yt), np.mean(ref.predict(Xt) == yt)
    assert acc_ours > 0.9 and abs(acc_ours - acc_ref) < 0.02, (acc_ours, acc_ref)


@pytest.mark.parametrize(
    "bad, match",
    [
        (dict(hidden_layer_sizes=(10, 0)), "hidden_layer_sizes"),
        (dict(activation="swish"), "activation must be one of"),
        (dict(loss="squared"), "loss must be one of"),
        (dict(solver="lbfgs"), "solver must be one of"),
        (dict(init="normal"), "init must be one of"),
        (dict(dropout=1.0), "dropout"),
        (dict(momentum=1.0), "momentum"),
        (dict(learning_rate=0.0), "learning_rate must be a positive number"),
        (dict(batch_size=20.5), "batch_size must be an integer >= 1"),
        (dict(max_iter=0), "max_iter must be an integer >= 1"),
        (dict(alpha=-1.0), "alpha must be a number >= 0"),
        (dict(early_stopping=True, validation_fraction=0.0), "validation_fraction"),
    ],
)
def test_bad_hyperparameters_raise_clear_errors(bad, match):
    with pytest.raises(ValueError, match=match):
        MLPClassifier(**bad).fit(XOR_X, XOR_Y)


def test_not_fitted_and_wrong_width():
    with pytest.raises(NotFittedError):
        MLPClassifier().predict_proba(XOR_X)
    net = MLPClassifier(max_iter=2).fit(XOR_X, XOR_Y)
    with pytest.raises(ValueError, match="features"):
        net.predict(np.ones((2, 3)))


def test_divergent_training_raises_one_clear_error():
    X, y = make_moons(100, noise=0.2, random_state=0)
    with pytest.raises(ValueError, match="diverged in epoch .* lower learning_rate"):
        MLPClassifier(hidden_layer_sizes=(8, 8), solver="sgd", learning_rate=1e10, max_iter=200).fit(X, y)
