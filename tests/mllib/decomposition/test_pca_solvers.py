"""PCA: the catalogue oracle (X = [[3,0],[-3,0],[0,1],[0,-1]]: singular values [3 sqrt 2, sqrt 2], variances with 1/N
[4.5, 0.5], PoV [0.9, 0.1], PC1 = e1), agreement with scikit-learn (components up to sign, explained variance
times N/(N-1), ratios, singular values), SVD == eigh == power iteration, the variance-fraction rule, the lecture's
identities (orthonormal components, score variances = eigenvalues, reconstruction MSE = dropped eigenvalues),
PCA whitening to identity covariance, and exact round trips with all components."""

import numpy as np
import pytest
from sklearn.decomposition import PCA as SkPCA

from mllib.decomposition import PCA

SOLVERS = ["svd", "eigh", "power"]


def _data(seed, n=120, d=6):
    """Correlated data with well-separated variances (power iteration converges at rate lambda2 / lambda1)."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    scales = 2.0 ** np.arange(d, 0, -1)
    return rng.normal(size=(n, d)) * scales @ Q.T + rng.normal(size=d) * 10


@pytest.mark.parametrize("solver", SOLVERS)
def test_catalogue_oracle(solver):
    X = np.array([[3.0, 0.0], [-3.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    pca = PCA(solver=solver).fit(X)
    np.testing.assert_allclose(pca.mean_, 0.0, atol=1e-15)
    np.testing.assert_allclose(pca.singular_values_, [3 * np.sqrt(2), np.sqrt(2)], rtol=1e-12)
    np.testing.assert_allclose(pca.explained_variance_, [4.5, 0.5], rtol=1e-12)
    np.testing.assert_allclose(pca.explained_variance_ratio_, [0.9, 0.1], rtol=1e-12)
    np.testing.assert_allclose(pca.components_, np.eye(2), atol=1e-12)  # largest loading positive: +e1, +e2


@pytest.mark.parametrize("seed", range(3))
def test_agrees_with_sklearn(seed):
    X = _data(seed)
    n = X.shape[0]
    for k in (None, 3):
        ours = PCA(n_components=k).fit(X)
        ref = SkPCA(n_components=k, svd_solver="full").fit(X)
        signs = np.sign(np.sum(ours.components_ * ref.components_, axis=1))
        np.testing.assert_allclose(ours.components_, ref.components_ * signs[:, None], atol=1e-10)
        np.testing.assert_allclose(ours.explained_variance_ * n / (n - 1), ref.explained_variance_, rtol=1e-10)
        np.testing.assert_allclose(ours.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=1e-10)
        np.testing.assert_allclose(ours.singular_values_, ref.singular_values_, rtol=1e-10)
        X_new = _data(seed + 10, n=15)
        np.testing.assert_allclose(ours.transform(X_new), ref.transform(X_new) * signs, rtol=1e-10, atol=1e-9)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("k", [1, 3, 6])
def test_three_solvers_agree(seed, k):
    X = _data(seed)
    fits = [PCA(n_components=k, solver=s).fit(X) for s in SOLVERS]
    for other in fits[1:]:
        # the sign convention makes them equal outright, not only up to sign
        np.testing.assert_allclose(other.components_, fits[0].components_, atol=1e-9)
        np.testing.assert_allclose(other.explained_variance_, fits[0].explained_variance_, rtol=1e-10)
        np.testing.assert_allclose(other.explained_variance_ratio_, fits[0].explained_variance_ratio_, rtol=1e-10)
        np.testing.assert_allclose(other.transform(X), fits[0].transform(X), rtol=1e-9, atol=1e-8)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("fraction", [0.3, 0.75, 0.9, 0.99, 0.999])
def test_variance_fraction_picks_the_smallest_k_reaching_it(solver, fraction):
    X = _data(4)
    full = PCA().fit(X)
    cumulative = np.cumsum(full.explained_variance_ratio_)
    k = int(np.argmax(cumulative >= fraction)) + 1
    pca = PCA(n_components=fraction, solver=solver).fit(X)
    assert pca.n_components_ == k
    assert pca.explained_variance_ratio_.sum() >= fraction
    assert k == 1 or cumulative[k - 2] < fraction
    ref = SkPCA(n_components=fraction, svd_solver="full").fit(X)
    assert ref.n_components_ == k  # no exact ties with the fraction here, so ">=" and sklearn's ">" agree


@pytest.mark.parametrize("solver", SOLVERS)
def test_lecture_identities(solver):
    X = _data(5)
    n = X.shape[0]
    full = PCA(solver=solver).fit(X)
    W = full.components_
    np.testing.assert_allclose(W @ W.T, np.eye(6), atol=1e-10)
    Z = full.transform(X)
    np.testing.assert_allclose(Z.T @ Z / n, np.diag(full.explained_variance_), atol=1e-8 * full.explained_variance_[0])
    assert (np.diff(full.explained_variance_) <= 0).all()
    Sigma = np.cov(X.T, bias=True)
    np.testing.assert_allclose(full.explained_variance_ratio_.sum(), 1.0, rtol=1e-12)
    np.testing.assert_allclose(W @ Sigma @ W.T, np.diag(full.explained_variance_), atol=1e-8 * np.trace(Sigma))
    for k in (1, 2, 4):
        pca = PCA(n_components=k, solver=solver).fit(X)
        mse = np.sum((X - pca.inverse_transform(pca.transform(X))) ** 2) / n
        np.testing.assert_allclose(mse, full.explained_variance_[k:].sum(), rtol=1e-8)


@pytest.mark.parametrize("solver", SOLVERS)
def test_all_components_round_trip_exactly(solver):
    X = _data(6)
    pca = PCA(solver=solver).fit(X)
    X_new = _data(7, n=20)
    np.testing.assert_allclose(pca.inverse_transform(pca.transform(X_new)), X_new, rtol=1e-12, atol=1e-10)
    whitened = PCA(solver=solver, whiten=True).fit(X)
    np.testing.assert_allclose(whitened.inverse_transform(whitened.transform(X_new)), X_new, rtol=1e-12, atol=1e-10)


@pytest.mark.parametrize("solver", SOLVERS)
def test_pca_whitening_gives_identity_covariance(solver):
    X = _data(8)
    Z = PCA(solver=solver, whiten=True).fit_transform(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-10)
    np.testing.assert_allclose(Z.T @ Z / Z.shape[0], np.eye(6), atol=1e-8)
    ref = SkPCA(whiten=True, svd_solver="full").fit_transform(X)
    # scikit-learn whitens with the N - 1 variance, so its scores are ours times sqrt((N - 1) / N), up to sign
    n = X.shape[0]
    np.testing.assert_allclose(np.abs(Z) * np.sqrt((n - 1) / n), np.abs(ref), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("solver", SOLVERS)
def test_more_features_than_rows(solver):
    X = np.random.default_rng(9).normal(size=(5, 8))
    pca = PCA(solver=solver).fit(X)
    assert pca.n_components_ == 5 and pca.components_.shape == (5, 8)
    np.testing.assert_allclose(pca.components_ @ pca.components_.T, np.eye(5), atol=1e-9)
    np.testing.assert_allclose(pca.explained_variance_[4], 0.0, atol=1e-12)  # 5 centred rows span 4 dimensions
    np.testing.assert_allclose(pca.inverse_transform(pca.transform(X)), X, atol=1e-10)
    with pytest.raises(ValueError, match="zero variance"):
        PCA(solver=solver, whiten=True).fit(X)
    np.testing.assert_allclose(
        PCA(n_components=4, solver=solver).fit(X).explained_variance_, pca.explained_variance_[:4], rtol=1e-9
    )


def test_power_iteration_is_reproducible_and_warns_without_convergence():
    X = _data(10)
    a = PCA(n_components=2, solver="power", random_state=3).fit(X)
    b = PCA(n_components=2, solver="power", random_state=3).fit(X)
    np.testing.assert_array_equal(a.components_, b.components_)
    with pytest.warns(UserWarning, match="did not converge in max_iter=2"):
        PCA(n_components=1, solver="power", max_iter=2).fit(X)


def test_errors():
    X = _data(11, n=10, d=3)
    for bad in (0, 4, 1.0, 0.0, -0.5, True, "all"):
        with pytest.raises(ValueError, match="n_components"):
            PCA(n_components=bad).fit(X)
    with pytest.raises(ValueError, match="solver must be one of"):
        PCA(solver="arpack").fit(X)
    with pytest.raises(ValueError, match="max_iter must be an integer >= 1"):
        PCA(solver="power", max_iter=0).fit(X)
    with pytest.raises(ValueError, match="tol must be a positive number"):
        PCA(solver="power", tol=0.0).fit(X)
    pca = PCA(n_components=2).fit(X)
    with pytest.raises(ValueError, match="Z has 3 components, but PCA was fitted with 2"):
        pca.inverse_transform(np.ones((1, 3)))
    with pytest.raises(ValueError, match="X has 2 features"):
        pca.transform(np.ones((1, 2)))
    assert pca.get_feature_names_out(["a", "b", "c"]) == ["pca0", "pca1"]
