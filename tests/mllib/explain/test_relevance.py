"""mllib.explain.relevance: gradient x input and LRP for mllib MLPs. Oracles: the notes' two-step LRP
written out by hand; LRP-0 = gradient x input on bias-free ReLU nets; conservation sum_i R_i = f(x) on
bias-free nets (LRP-0, epsilon, z+); z+ relevances carry the sign of f(x) for non-negative inputs; a
linear model gives phi_i = w_i x_i; the conservation error with biases is what the biases absorb."""

import numpy as np
import pytest

from mllib.explain import gradient_x_input, lrp
from mllib.neural import MLPClassifier, MLPRegressor


def _net(sizes, rng, activation="relu", bias=False, classes=None, scale=0.8):
    est = MLPRegressor(activation=activation) if classes is None else MLPClassifier(activation=activation)
    est.coefs_ = [rng.normal(scale=scale, size=s) for s in zip(sizes[:-1], sizes[1:])]
    est.intercepts_ = [rng.normal(scale=0.5, size=s) if bias else np.zeros(s) for s in sizes[1:]]
    est.n_features_in_ = sizes[0]
    if classes is not None:
        est.classes_ = np.arange(classes)
    return est


def test_notes_two_step_lrp_example():
    """Seed 000, lines 4572-4594: inputs x1, x2, hidden a_3..a_6 (weights w_ij), output y = sum_j a_j v_j."""
    x = np.array([1.0, 2.0])
    w = np.array([[1.0, -1.0, 0.5, 2.0], [0.5, 1.0, -2.0, 1.0]])
    v = np.array([1.0, 2.0, -1.0, 0.5])
    est = MLPRegressor()
    est.coefs_, est.intercepts_, est.n_features_in_ = [w, v[:, None]], [np.zeros(4), np.zeros(1)], 2
    a = np.maximum(x @ w, 0)  # (2, 1, 0, 4): unit 5 is off
    y_out = a @ v
    R_hidden = a * v / (a @ v) * y_out  # step 1
    R_in = np.zeros(2)
    for i in range(2):  # step 2
        for j in range(4):
            z_j = x @ w[:, j]
            R_in[i] += x[i] * w[i, j] / z_j * R_hidden[j]
    out = lrp(est, x[None, :], rule="basic")
    np.testing.assert_allclose(out["relevance"][0], R_in, rtol=1e-12)
    np.testing.assert_allclose(out["output"], [y_out], rtol=1e-12)
    assert out["conservation_error"][0] < 1e-12
    assert R_in.sum() == pytest.approx(y_out)


@pytest.mark.parametrize("activation", ["relu", "leaky_relu"])
def test_lrp0_equals_gradient_times_input_on_bias_free_piecewise_linear_nets(activation):
    rng = np.random.default_rng(0)
    est = _net([6, 10, 8, 1], rng, activation)
    X = rng.normal(size=(25, 6))
    a, b = lrp(est, X, rule="basic"), gradient_x_input(est, X)
    np.testing.assert_allclose(a["relevance"], b["relevance"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a["output"], est.predict(X), rtol=1e-12)
    # both conserve f(x) exactly (Euler's theorem for positively homogeneous nets)
    assert a["conservation_error"].max() < 1e-10 and b["conservation_error"].max() < 1e-10


@pytest.mark.parametrize("activation", ["relu", "tanh", "elu", "softplus"])
def test_conservation_on_bias_free_nets_for_lrp0_and_epsilon(activation):
    rng = np.random.default_rng(1)
    est = _net([5, 7, 6, 3], rng, activation, classes=3)
    X = rng.normal(size=(30, 5))
    for k in range(3):
        basic = lrp(est, X, output=k, rule="basic")
        np.testing.assert_allclose(basic["output"], est.decision_function(X)[:, k], rtol=1e-12)
        np.testing.assert_allclose(basic["relevance"].sum(axis=1), basic["output"], rtol=1e-9, atol=1e-12)
        eps = lrp(est, X, output=k, rule="epsilon", epsilon=1e-6)
        assert np.nanmedian(eps["conservation_error"]) < 1e-4  # epsilon absorbs a sliver of relevance
        big = lrp(est, X, output=k, rule="epsilon", epsilon=10.0)
        assert np.nanmedian(big["conservation_error"]) > 0.1  # ... a large epsilon absorbs a lot
        assert np.abs(big["relevance"].sum(axis=1)).mean() < np.abs(basic["output"]).mean()


def test_z_plus_relevances_have_the_sign_of_the_output_for_non_negative_inputs():
    rng = np.random.default_rng(2)
    est = _net([6, 12, 8, 1], rng, "relu")
    X = rng.uniform(0, 2, size=(40, 6))
    out = lrp(est, X, rule="z_plus")
    sign = np.sign(out["output"])[:, None]
    assert (out["relevance"] * sign >= 0).all()
    assert (np.abs(out["relevance"]).sum(axis=1) > 0).all()
    # bias-free: conserved wherever every neuron on the path has some positive input
    assert np.median(out["conservation_error"]) < 1e-10


def test_z_box_input_rule_by_hand():
    """x = (-1, 2) in the box l = (-2, 0), h = (1, 3); hidden z = x W = (3, 3); f = 6 with v = (1, 1).
    z+ at the top: R_hidden = (3, 3). z^B terms x_i w_ij - l_i w_ij^+ - h_i w_ij^-: unit 0 (weights 1, 2):
    (1, 4) / 5; unit 1 (weights -1, 1): ((-1 - 1)(-1), (2 - 0) 1) = (2, 2) / 4. R = (0.6 + 1.5, 2.4 + 1.5)."""
    est = MLPRegressor()
    est.coefs_ = [np.array([[1.0, -1.0], [2.0, 1.0]]), np.array([[1.0], [1.0]])]
    est.intercepts_, est.n_features_in_ = [np.zeros(2), np.zeros(1)], 2
    out = lrp(est, np.array([[-1.0, 2.0]]), rule="z_plus", input_bounds=([-2.0, 0.0], [1.0, 3.0]))
    np.testing.assert_allclose(out["output"], [6.0])
    np.testing.assert_allclose(out["relevance"][0], [2.1, 3.9], rtol=1e-14)
    assert out["conservation_error"][0] < 1e-15
    # a row on the box's edges is inside it: (-1, 2) with l = (-1, 0), h = (1, 2) gives unit 0 (0, 4) / 4 and
    # unit 1 ((-1 - 1)(-1), (2 - 0) 1) = (2, 2) / 4, so R = (0 + 1.5, 3 + 1.5)
    edge = lrp(est, np.array([[-1.0, 2.0]]), rule="z_plus", input_bounds=([-1.0, 0.0], [1.0, 2.0]))
    np.testing.assert_allclose(edge["relevance"][0], [1.5, 4.5], rtol=1e-14)
    # outside it (x_0 = -1 > h_0 = -1.5) unit 1's term (x_0 - h_0) w_01 = -0.5 < 0 would flip a relevance's sign
    with pytest.raises(ValueError, match=r"input_bounds \(low <= high\) must contain every row of X: widen them"):
        lrp(est, np.array([[-1.0, 2.0]]), rule="z_plus", input_bounds=([-2.0, 0.0], [-1.5, 3.0]))


def test_z_plus_with_z_box_inputs_conserves_with_biases_and_negative_inputs():
    rng = np.random.default_rng(7)
    est = _net([6, 32, 32, 1], rng, "relu", bias=True)
    train = rng.normal(size=(200, 6))
    X = train[:40]
    out = lrp(est, X, rule="z_plus", input_bounds=(train.min(axis=0), train.max(axis=0)))
    np.testing.assert_allclose(out["output"], est.predict(X), rtol=1e-12)
    # both rules ignore the biases, so f(x) is passed down whole, unless no unit with a positive weight to the
    # output is active: then z+ has nowhere to send it and every relevance is 0
    top = est.forward_activations(X)[-2] @ np.maximum(est.coefs_[-1][:, 0], 0)
    assert (top > 0).mean() > 0.8
    assert out["conservation_error"][top > 0].max() < 1e-12
    assert np.all(out["relevance"][top == 0] == 0)
    # inside the box every z^B term is >= 0, so every relevance has the sign of f(x), as z+ promises
    assert (out["relevance"] * np.sign(out["output"])[:, None] >= -1e-12).all()
    with pytest.raises(ValueError, match="input_bounds"):
        lrp(est, X, rule="z_plus")  # z+ alone on negative inputs
    with pytest.raises(ValueError, match="go with rule='z_plus'"):
        lrp(est, X, rule="basic", input_bounds=(train.min(axis=0), train.max(axis=0)))


def test_linear_model_gives_w_times_x():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20, 4))
    y = (X @ [1.0, -2.0, 0.5, 0.0] > 0).astype(int)
    est = MLPClassifier(hidden_layer_sizes=(), max_iter=30).fit(X, y)
    w, b = est.coefs_[0][:, 0], est.intercepts_[0][0]
    expected = X * w
    for out in (gradient_x_input(est, X), lrp(est, X, rule="basic")):
        np.testing.assert_allclose(out["relevance"], expected, rtol=1e-12, atol=1e-15)
        # what the bias takes is the conservation error
        f = X @ w + b
        np.testing.assert_allclose(out["conservation_error"], np.abs(b) / np.abs(f), rtol=1e-9)


def test_identity_activation_net_gives_product_weights_times_x():
    rng = np.random.default_rng(4)
    est = _net([4, 5, 3, 1], rng, "identity", bias=True)
    X = rng.normal(size=(10, 4))
    w = (est.coefs_[0] @ est.coefs_[1] @ est.coefs_[2])[:, 0]
    np.testing.assert_allclose(gradient_x_input(est, X)["relevance"], X * w, rtol=1e-10, atol=1e-14)


def test_biases_break_conservation_and_it_is_reported():
    rng = np.random.default_rng(5)
    est = _net([5, 8, 1], rng, "relu", bias=True)
    X = rng.normal(size=(50, 5))
    out = lrp(est, X, rule="basic")
    err = out["conservation_error"]
    assert err.shape == (50,) and np.nanmedian(err) > 1e-3
    manual = np.abs(out["relevance"].sum(axis=1) - out["output"]) / np.abs(out["output"])
    np.testing.assert_allclose(err, manual, rtol=1e-12)


def test_default_output_is_the_predicted_class_and_bad_arguments_raise():
    rng = np.random.default_rng(6)
    est = _net([3, 4, 3], rng, "relu", classes=3)
    X = rng.normal(size=(8, 3))
    pred = np.argmax(est.decision_function(X), axis=1)
    auto = gradient_x_input(est, X)
    for r in range(8):
        one = gradient_x_input(est, X[r : r + 1], output=int(pred[r]))
        np.testing.assert_allclose(auto["relevance"][r], one["relevance"][0], rtol=1e-12)
    with pytest.raises(ValueError, match="rule must be one of"):
        lrp(est, X, rule="gamma")
    with pytest.raises(ValueError, match="output must be None or an output index"):
        lrp(est, X, output=3)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        lrp(est, X, rule="epsilon", epsilon=0.0)
    with pytest.raises(TypeError, match="fitted mllib MLP"):
        lrp(object(), X)
    tanh = _net([3, 4, 3], rng, "tanh", classes=3)  # z+ splits by positive weights only: wrong for negative units
    with pytest.raises(ValueError, match="non-negative hidden activations"):
        lrp(tanh, np.abs(X), rule="z_plus")
