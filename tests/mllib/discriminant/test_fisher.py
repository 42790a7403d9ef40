"""Fisher discriminant / MDA (catalogue 000 C2, 001-004 2.9.6): the worked 2-class example (m1, m2, S_W, unit w,
J = 3.050166), w proportional to S_W^-1 (m2 - m1), the generalised eigen-equation and w^T S_W w = 1, directions
parallel to scikit-learn's eigen-solver LDA, classifier posteriors equal to the shared-covariance Gaussian Bayes
(LDA) posteriors with K - 1 directions, integer weights = repeated rows."""

import numpy as np
import pytest
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from mllib.bayes import GaussianBayesClassifier
from mllib.discriminant import FisherDiscriminant, LinearDiscriminantProjection

C1 = np.array([[4, 2], [2, 4], [2, 3], [3, 6], [4, 4]], dtype=float)
C2 = np.array([[9, 10], [6, 8], [9, 5], [8, 7], [10, 8]], dtype=float)


def _problem(seed, n=240, d=5, k=4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    A = rng.normal(size=(d, d)) / np.sqrt(d) + np.eye(d)
    X = rng.normal(scale=2.0, size=(k, d))[y] + rng.normal(size=(n, d)) @ A
    return X, y


def test_worked_two_class_example():
    X, y = np.vstack([C1, C2]), np.repeat([1, 2], 5)
    proj = LinearDiscriminantProjection(reg=0.0).fit(X, y)
    assert proj.scalings_.shape == (2, 1)
    w = proj.scalings_[:, 0]
    np.testing.assert_allclose(w / np.linalg.norm(w), [0.908786, 0.417263], atol=1e-6)
    S_W = np.array([[13.2, -1.2], [-1.2, 22.0]])
    assert w @ S_W @ w == pytest.approx(1.0, rel=1e-12)  # eigh normalisation w^T S_W w = 1
    # S_B = sum n_i (m_i - m)(m_i - m)^T = (n1 n2 / N)(m1 - m2)(m1 - m2)^T, so lambda = 2.5 J
    assert proj.eigenvalues_[0] / 2.5 == pytest.approx(3.050166, abs=1e-6)
    d = np.array([8.4, 7.6]) - np.array([3.0, 3.8])
    assert (w @ d) ** 2 / (w @ S_W @ w) == pytest.approx(3.050166, abs=1e-6)  # the Rayleigh quotient J(w)
    assert proj.transform(C1).max() < proj.transform(C2).min()  # signed: the second class projects higher
    assert proj.get_feature_names_out(["a", "b"]) == ["lda0"]


@pytest.mark.parametrize("seed", [0, 1])
def test_two_class_direction_is_proportional_to_sw_inverse_mean_difference(seed):
    X, y = _problem(seed, k=2)
    w = LinearDiscriminantProjection(reg=0.0).fit(X, y).scalings_[:, 0]
    m1, m2 = X[y == 0].mean(0), X[y == 1].mean(0)
    S_W = sum((X[y == c] - X[y == c].mean(0)).T @ (X[y == c] - X[y == c].mean(0)) for c in (0, 1))
    ref = np.linalg.solve(S_W, m2 - m1)
    np.testing.assert_allclose(w / np.linalg.norm(w), ref / np.linalg.norm(ref), rtol=1e-10, atol=1e-12)


def test_multiclass_generalised_eigenproblem_and_sklearn_directions():
    X, y = _problem(2)
    proj = LinearDiscriminantProjection(reg=0.0).fit(X, y)
    W = proj.scalings_
    assert W.shape == (5, 3)  # K - 1 directions
    m = X.mean(0)
    S_W = sum((X[y == c] - X[y == c].mean(0)).T @ (X[y == c] - X[y == c].mean(0)) for c in range(4))
    S_B = sum((y == c).sum() * np.outer(X[y == c].mean(0) - m, X[y == c].mean(0) - m) for c in range(4))
    np.testing.assert_allclose(S_B @ W, S_W @ W * proj.eigenvalues_, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(W.T @ S_W @ W, np.eye(3), atol=1e-10)
    assert np.all(np.diff(proj.eigenvalues_) < 0)
    ref = LinearDiscriminantAnalysis(solver="eigen").fit(X, y).scalings_[:, :3]
    for a, b in zip(W.T, ref.T):  # same directions up to scale and sign
        assert abs(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b)) == pytest.approx(1.0, abs=1e-10)
    Z = proj.transform(X)
    np.testing.assert_allclose(Z, (X - m) @ W, rtol=1e-12)
    assert proj.get_feature_names_out(None) == ["lda0", "lda1", "lda2"]
    assert LinearDiscriminantProjection(n_components=2).fit(X, y).transform(X).shape == (240, 2)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_classifier_with_all_directions_equals_gaussian_bayes_lda(k):
    X, y = _problem(3 + k, k=k)
    fisher = FisherDiscriminant(reg=0.0).fit(X, y)
    lda = GaussianBayesClassifier(reg_param=0.0, covariance="shared").fit(X, y)
    np.testing.assert_allclose(fisher.predict_proba(X), lda.predict_proba(X), atol=1e-9)
    np.testing.assert_array_equal(fisher.predict(X), lda.predict(X))
    ref = LinearDiscriminantAnalysis().fit(X, y)
    np.testing.assert_allclose(fisher.predict_proba(X), ref.predict_proba(X), atol=1e-8)


def test_classifier_with_fewer_directions_is_gaussian_bayes_on_the_projected_scores():
    X, y = _problem(9)
    priors = [0.1, 0.2, 0.3, 0.4]
    one = FisherDiscriminant(reg=0.0, n_components=1, priors=priors).fit(X, y)
    z = one.transform(X)
    assert z.shape == (240, 1)
    on_scores = GaussianBayesClassifier(reg_param=0.0, priors=priors).fit(z, y)
    np.testing.assert_allclose(one.predict_proba(X), on_scores.predict_proba(z), atol=1e-10)


def test_integer_sample_weights_equal_repeating_rows():
    X, y = _problem(10, n=80, k=3)
    w = np.random.default_rng(0).integers(1, 4, size=80)
    a = FisherDiscriminant(reg=0.0).fit(X, y, sample_weight=w)
    b = FisherDiscriminant(reg=0.0).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(a.scalings_, b.scalings_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-10)


def test_singular_scatter_needs_reg():
    X, y = _problem(11, n=60, k=3)
    collinear = np.column_stack([X, X[:, 0] - X[:, 1]])
    with pytest.raises(ValueError, match="set reg > 0"):
        LinearDiscriminantProjection(reg=0.0).fit(collinear, y)
    Z = LinearDiscriminantProjection().fit(collinear, y).transform(collinear)  # default reg copes
    assert np.isfinite(Z).all() and Z.shape == (60, 2)


def test_errors():
    X, y = _problem(12, n=40, k=3)
    with pytest.raises(ValueError, match="n_components must be an integer in \\[1, 2\\]"):
        FisherDiscriminant(reg=0.0, n_components=3).fit(X, y)
    with pytest.raises(ValueError, match="reg must be a number >= 0"):
        LinearDiscriminantProjection(reg=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="supervised"):
        LinearDiscriminantProjection().fit(X)
