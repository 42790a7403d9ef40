"""mllib.neural backpropagation and initialisation: analytic gradients (weights, biases and inputs) equal
central finite differences for every activation and loss; activation values from the catalogue; He and
Xavier standard deviations (the notes' sigma = 0.2 for 50 inputs, 0.1 for 200 hidden units)."""

import zlib

import numpy as np
import pytest

from mllib.neural import MLPClassifier, MLPRegressor
from mllib.neural.activations import ACTIVATIONS, backprop_activation
from mllib.neural.initialisation import initialise
from mllib.neural.network import Network

LOSS_LAYOUTS = {  # loss, number of outputs, target layout
    "cross_entropy_binary": ("cross_entropy", 1),
    "cross_entropy_softmax": ("cross_entropy", 3),
    "hinge_binary": ("hinge", 1),
    "hinge_crammer_singer": ("hinge", 3),
    "squared": ("squared", 1),
}


def _targets(rng, n, loss, K):
    if loss == "squared":
        return rng.normal(size=(n, 1))
    if K == 1:
        return rng.integers(0, 2, size=(n, 1)).astype(float)
    return np.eye(K)[rng.integers(0, K, size=n)]


def _relative_error(a, b):
    return np.linalg.norm(a - b) / max(np.linalg.norm(a), np.linalg.norm(b))


def _finite_difference(f, theta, h=1e-6):
    grad = np.empty_like(theta)
    for i in range(theta.size):
        up, down = theta.copy(), theta.copy()
        up[i] += h
        down[i] -= h
        grad[i] = (f(up) - f(down)) / (2 * h)
    return grad


@pytest.mark.parametrize("layout", sorted(LOSS_LAYOUTS))
@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
def test_backprop_equals_central_finite_differences(activation, layout):
    loss, K = LOSS_LAYOUTS[layout]
    rng = np.random.default_rng(zlib.crc32(f"{activation}/{layout}".encode()))  # stable across processes
    n = 7
    X = rng.normal(size=(n, 3))
    T = _targets(rng, n, loss, K)
    w = rng.uniform(0.5, 2.0, size=n)
    net = Network([3, 5, 4, K], activation, loss, alpha=0.3)
    theta = rng.normal(scale=0.8, size=net.n_params)
    net.allocate(n, dropout=0.0)
    g = np.empty(net.n_params)
    net.batch_gradient(theta, g, X, T, w)
    numeric = _finite_difference(lambda t: net.objective(t, X, T, w), theta)
    assert _relative_error(g, numeric) < 1e-6
    assert np.linalg.norm(g) > 1e-3  # a real gradient, not zeros compared with zeros


def _set_weights(est, sizes, rng, activation, n_classes=None):
    est.set_params(activation=activation)
    est.coefs_ = [rng.normal(scale=0.7, size=s) for s in zip(sizes[:-1], sizes[1:])]
    est.intercepts_ = [rng.normal(scale=0.3, size=s) for s in sizes[1:]]
    est.n_features_in_ = sizes[0]
    if n_classes is not None:
        est.classes_ = np.arange(n_classes)
    return est


@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
def test_input_gradient_equals_finite_differences_of_each_logit(activation):
    rng = np.random.default_rng(3)
    est = _set_weights(MLPClassifier(), [4, 6, 5, 3], rng, activation, n_classes=3)
    X = rng.normal(size=(5, 4))
    for k in range(3):
        G = est.input_gradient(X, output=k)
        for r in range(X.shape[0]):
            numeric = _finite_difference(lambda x: est.decision_function(x[None, :])[0, k], X[r].copy())
            assert _relative_error(G[r], numeric) < 1e-6
    # output=None explains each row's predicted class
    pred = np.argmax(est.decision_function(X), axis=1)
    G_none = est.input_gradient(X)
    for r in range(X.shape[0]):
        np.testing.assert_allclose(G_none[r], est.input_gradient(X[r : r + 1], output=int(pred[r]))[0], rtol=1e-12)


def test_input_gradient_of_regressor_and_binary_log_odds():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(3, 4))
    reg = _set_weights(MLPRegressor(), [4, 5, 1], rng, "tanh")
    clf = _set_weights(MLPClassifier(), [4, 5, 1], rng, "elu", n_classes=2)
    for est, f in ((reg, reg.predict), (clf, clf.decision_function)):
        G = est.input_gradient(X)
        for r in range(3):
            assert _relative_error(G[r], _finite_difference(lambda x: f(x[None, :])[0], X[r].copy())) < 1e-6
    with pytest.raises(ValueError, match="output must be None or an output index in 0..0"):
        clf.input_gradient(X, output=1)


def test_activation_values_from_the_catalogue():
    def g(name, z):
        return ACTIVATIONS[name](np.array([float(z)]))[0]

    assert g("leaky_relu", -2.0) == pytest.approx(-0.02)  # slope 0.01 here (the catalogue's example uses 0.1)
    assert g("elu", -1.0) == pytest.approx(np.exp(-1) - 1)  # -0.632121
    assert g("relu", -3.0) == 0.0 and g("relu", 2.5) == 2.5
    assert g("softplus", 0.0) == 0.0  # the notes' centred softplus passes through the origin
    assert g("softplus", 2.0) == pytest.approx(np.log1p(np.exp(2.0)) - np.log(2.0))
    assert g("sigmoid", 0.0) == 0.5 and g("tanh", 1.0) == pytest.approx(np.tanh(1.0))
    assert np.isfinite(ACTIVATIONS["elu"](np.array([800.0, -800.0]))).all()  # no overflow either side
    # relu'(0) = 0 by convention
    assert backprop_activation("relu", np.array([1.0]), np.array([0.0]))[0] == 0.0


def test_he_initialisation_matches_the_notes_sigmas():
    """50 inputs, 200 hidden, 1 output (seed 000, lines 2384-2386): sigma = sqrt(2/50) = 0.2, sqrt(2/200) = 0.1."""
    net = Network([50, 200, 1], "relu", "cross_entropy", 0.0)
    theta = np.full(net.n_params, np.nan)
    coefs, intercepts = net.views(theta)
    initialise(coefs, intercepts, "auto", "relu", np.random.default_rng(0))
    W1, W2 = coefs
    # sample std of n normal draws has relative standard error 1 / sqrt(2n): 0.7 % for 10,000, 5 % for 200
    assert abs(W1.std() / 0.2 - 1) < 0.03 and abs(W1.mean()) < 0.01
    assert abs(W2.std() / 0.1 - 1) < 0.15
    assert all((b == 0).all() for b in intercepts) and np.isfinite(theta).all()


def test_xavier_initialisation_and_auto_choice():
    rng = np.random.default_rng(1)
    net = Network([300, 100, 2], "tanh", "cross_entropy", 0.0)
    coefs, intercepts = net.views(np.empty(net.n_params))
    initialise(coefs, intercepts, "auto", "tanh", rng)  # auto = Xavier for tanh
    assert abs(coefs[0].std() / np.sqrt(2 / 400) - 1) < 0.03
    initialise(coefs, intercepts, "he", "tanh", rng)
    assert abs(coefs[0].std() / np.sqrt(2 / 300) - 1) < 0.03
    initialise(coefs, intercepts, "xavier", "relu", rng)
    assert abs(coefs[0].std() / np.sqrt(2 / 400) - 1) < 0.03


@pytest.mark.parametrize("activation", ["relu", "tanh", "softplus"])
def test_backprop_through_a_fixed_dropout_mask_equals_finite_differences(activation):
    """With the mask drawn from the same seed at every evaluation, the dropped-out network is a fixed
    function of theta, and batch_gradient must be its exact gradient."""
    rng = np.random.default_rng(11)
    X, T = rng.normal(size=(9, 3)), rng.integers(0, 2, size=(9, 1)).astype(float)
    net = Network([3, 6, 5, 1], activation, "cross_entropy", alpha=0.0)
    net.allocate(9, dropout=0.4)
    theta = rng.normal(scale=0.8, size=net.n_params)
    g = np.empty(net.n_params)
    net.batch_gradient(theta, g, X, T, rng=np.random.default_rng(0))
    scratch = np.empty(net.n_params)
    numeric = _finite_difference(
        lambda t: net.batch_gradient(t, scratch, X, T, rng=np.random.default_rng(0)) / 9, theta
    )
    assert _relative_error(g, numeric) < 1e-6
    # inverted dropout: about 40 % of the hidden units are zeroed, the rest scaled by 1 / (1 - 0.4)
    dropped, kept = net._dropped[0], net._z[0]
    zero = dropped == 0
    assert 0.15 < zero[kept != 0].mean() < 0.65  # (ReLU zeros are not dropout's)
    np.testing.assert_allclose(dropped[~zero], kept[~zero] / 0.6, rtol=1e-15)


def test_inverted_dropout_keeps_the_expected_activation():
    rng = np.random.default_rng(12)
    net = Network([20, 400, 1], "relu", "squared", alpha=0.0)
    net.allocate(50, dropout=0.5)
    theta = rng.normal(size=net.n_params)
    X, T = rng.normal(size=(50, 20)), rng.normal(size=(50, 1))
    net.batch_gradient(theta, np.empty(net.n_params), X, T, rng=rng)
    dropped, kept = net._dropped[0], net._z[0]
    assert abs((dropped == 0)[kept > 0].mean() - 0.5) < 0.02  # 10,000 Bernoulli(0.5) draws: sd 0.005
    assert abs(dropped.sum() / kept.sum() - 1) < 0.03
