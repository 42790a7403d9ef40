"""Perceptron (catalogue 000 C3, 001-004 7.2): AND gate separable (zero errors, positive functional margins), XOR
never converges, an independent pure-Python Rosenblatt loop (plain and averaged), scikit-learn Perceptron with the
same visiting order (shuffle=False), lr only rescales, zero-weight rows are ignored."""

import numpy as np
import pytest
from sklearn.linear_model import Perceptron as SkPerceptron

from mllib.linear import Perceptron


def _reference(X, t, epochs, lr=1.0, averaged=False):
    w, b = np.zeros(X.shape[1]), 0.0
    history = []
    for _ in range(epochs):
        mistakes = 0
        for x, ti in zip(X, t):
            if ti * (w @ x + b) <= 0:
                w, b = w + lr * ti * x, b + lr * ti
                mistakes += 1
            history.append((w.copy(), b))
        if mistakes == 0:
            break
    if averaged:
        return np.mean([h[0] for h in history], axis=0), np.mean([h[1] for h in history])
    return w, b


def _problem(seed, n=120, d=3, k=2):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    return rng.normal(scale=1.5, size=(k, d))[y] + rng.normal(size=(n, d)), y


def test_and_gate_is_learned_with_positive_margins():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    y = np.array([-1, -1, -1, 1])
    model = Perceptron(averaged=False, max_iter=100).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), y)
    assert (y * model.decision_function(X) > 0).all()
    assert model.n_iter_ < 100


def test_xor_does_not_converge():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    y = np.array([-1, 1, 1, -1])
    model = Perceptron(averaged=False, max_iter=50).fit(X, y)
    assert model.n_iter_ == 50
    assert np.mean(model.predict(X) == y) < 1


@pytest.mark.parametrize("averaged", [False, True])
def test_equals_independent_rosenblatt_loop(averaged):
    X, y = _problem(0)
    model = Perceptron(shuffle=False, averaged=averaged, max_iter=7, lr=0.5).fit(X, y)
    w, b = _reference(X, np.where(y == 1, 1.0, -1.0), 7, lr=0.5, averaged=averaged)
    np.testing.assert_allclose(model.coef_[0], w, rtol=1e-12, atol=1e-12)
    assert model.intercept_[0] == pytest.approx(b, abs=1e-12)


@pytest.mark.parametrize("k", [2, 3])
def test_equals_sklearn_with_the_same_visiting_order(k):
    X, y = _problem(1, k=k)
    ref = SkPerceptron(eta0=1.0, max_iter=5, tol=None, shuffle=False).fit(X, y)
    model = Perceptron(averaged=False, shuffle=False, max_iter=5).fit(X, y)
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.intercept_, ref.intercept_, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))


def test_learning_rate_only_rescales():
    X, y = _problem(2, k=3)
    a = Perceptron(lr=1.0).fit(X, y)
    b = Perceptron(lr=0.01).fit(X, y)
    np.testing.assert_allclose(b.coef_, 0.01 * a.coef_, rtol=1e-10)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_zero_weight_rows_are_ignored():
    X, y = _problem(3)
    w = np.ones(y.size)
    w[::3] = 0.0
    for averaged in [False, True]:
        a = Perceptron(shuffle=False, max_iter=5, averaged=averaged).fit(X, y, sample_weight=w)
        b = Perceptron(shuffle=False, max_iter=5, averaged=averaged).fit(X[w > 0], y[w > 0])
        np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-14)
        np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-14)


def test_shuffling_is_seeded_and_outputs_are_consistent():
    X, y = _problem(4, k=3)
    a = Perceptron(random_state=5).fit(X, y)
    b = Perceptron(random_state=5).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    P = a.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(a.predict(X), a.classes_[P.argmax(axis=1)])
    assert np.mean(a.predict(X) == y) > 0.8


def test_errors():
    X, y = _problem(5, n=20)
    with pytest.raises(ValueError, match="lr must be a positive number"):
        Perceptron(lr=0).fit(X, y)
    with pytest.raises(ValueError, match="max_iter must be an integer >= 1"):
        Perceptron(max_iter=0).fit(X, y)
