"""Classical MDS (seed 001, lines 244-257; seed 001-003-004 catalogue 9.3).

Oracles: a Euclidean configuration is recovered up to rotation / reflection (all pairwise distances to 1e-10,
stress 0); the embedding equals the PCA scores up to sign; Gower's formula gives transform(training rows) ==
embedding_ and places new points at their true distances from every training point; precomputed distances give
the same embedding; stress against an independent formula; non-Euclidean dissimilarities refuse more components
than B has positive eigenvalues."""

import numpy as np
import pytest
from scipy.spatial.distance import pdist, squareform

from mllib.manifold import ClassicalMDS, stress


def _configuration(seed=0, n=30, d=3):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) * [3.0, 1.5, 0.5][:d] + 10.0


@pytest.mark.parametrize("d", [2, 3])
def test_euclidean_configuration_is_recovered_up_to_rotation(d):
    X = _configuration(d=d)
    Y = ClassicalMDS(n_components=d).fit_transform(X)
    np.testing.assert_allclose(pdist(Y), pdist(X), rtol=1e-10, atol=1e-10)
    assert stress(squareform(pdist(Y)), squareform(pdist(X))) < 1e-20


def test_embedding_is_the_pca_scores_up_to_sign_and_eigenvalues_are_scatter_eigenvalues():
    X = _configuration(1)
    model = ClassicalMDS(n_components=2).fit(X)
    Xc = X - X.mean(0)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    scores = Xc @ Vt[:2].T
    np.testing.assert_allclose(np.abs(model.embedding_), np.abs(scores), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(model.eigenvalues_, s[:2] ** 2, rtol=1e-10)


def test_gower_formula_reproduces_training_rows_and_places_new_points_exactly():
    X = _configuration(2)
    model = ClassicalMDS(n_components=3).fit(X)
    np.testing.assert_allclose(model.transform(X), model.embedding_, rtol=1e-10, atol=1e-10)
    X_new = _configuration(3, n=5)
    Y_new = model.transform(X_new)
    dist_true = np.linalg.norm(X_new[:, None] - X[None], axis=2)
    dist_embedded = np.linalg.norm(Y_new[:, None] - model.embedding_[None], axis=2)
    np.testing.assert_allclose(dist_embedded, dist_true, rtol=1e-9)
    assert model.get_feature_names_out() == ["mds0", "mds1", "mds2"]


def test_fewer_components_project_new_points_like_pca():
    X, X_new = _configuration(4), _configuration(5, n=6)
    model = ClassicalMDS(n_components=2).fit(X)
    Vt = np.linalg.svd(X - X.mean(0), full_matrices=False)[2][:2]
    signs = np.sign(np.sum(model.embedding_ * ((X - X.mean(0)) @ Vt.T), axis=0))
    np.testing.assert_allclose(model.transform(X_new), (X_new - X.mean(0)) @ Vt.T * signs, rtol=1e-9)


def test_precomputed_dissimilarities_give_the_same_embedding():
    X = _configuration(6)
    a = ClassicalMDS(n_components=2).fit(X)
    D = squareform(pdist(X))
    b = ClassicalMDS(n_components=2, dissimilarity="precomputed").fit(D)
    np.testing.assert_allclose(b.embedding_, a.embedding_, rtol=1e-9, atol=1e-10)
    X_new = _configuration(7, n=4)
    D_new = np.linalg.norm(X_new[:, None] - X[None], axis=2)
    np.testing.assert_allclose(b.transform(D_new), a.transform(X_new), rtol=1e-9, atol=1e-10)


def test_stress_formula():
    D = np.array([[0.0, 3.0], [3.0, 0.0]])
    E = np.array([[0.0, 4.0], [4.0, 0.0]])
    assert stress(E, D) == pytest.approx(2 * 1.0 / (2 * 9.0))
    assert stress(D, D) == 0.0


def test_non_euclidean_dissimilarities_and_bad_input():
    # four points at mutual distance 1 plus one at distance 2 from all: B has a negative eigenvalue
    D = np.ones((4, 4)) - np.eye(4)
    D[0, 1] = D[1, 0] = 3.0  # violates the triangle inequality
    with pytest.raises(ValueError, match="positive eigenvalues"):
        ClassicalMDS(n_components=3, dissimilarity="precomputed").fit(D)
    assert ClassicalMDS(n_components=1, dissimilarity="precomputed").fit(D).embedding_.shape == (4, 1)
    with pytest.raises(ValueError, match="square, symmetric"):
        ClassicalMDS(dissimilarity="precomputed").fit(np.ones((3, 4)))
    with pytest.raises(ValueError, match="dissimilarity must be one of"):
        ClassicalMDS(dissimilarity="cosine").fit(_configuration())
