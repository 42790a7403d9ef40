"""The leakage property (seed 004, D4:567: everything computed from data is refitted on the training fold only),
for every transformer of mllib.preprocessing and mllib.decomposition and every projection of the features stage
(lda, pls, kernel_pca, nystroem; the supervised ones fit on A with its labels): fit on A, transform rows B.
(1) Row-wise independence: changing the values of the other rows of B does not change a given row's transform.
(2) The fitted state depends only on A: transform does not alter it, and refitting on A gives the same state
    whatever the instance saw before."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mllib.decomposition import PCA
from mllib.discriminant import LinearDiscriminantProjection
from mllib.kernels import KernelPCA, Nystroem
from mllib.preprocessing import (
    CholeskyWhitening,
    GroupImputer,
    KNNImputer,
    MinMaxScaler,
    OneHotEncoder,
    OrdinalEncoder,
    PiecewiseFeatures,
    PolynomialFeatures,
    RBFFeatures,
    RobustScaler,
    SimpleImputer,
    StandardScaler,
)
from mllib.regression import PLSRegression

D = 3
# name -> (factory, kind of data: "gappy" floats with NaN, "codes" small integers, "dense" floats, "labelled"
# dense floats with three classes for the supervised projections)
TRANSFORMERS = {
    "simple_imputer": (lambda: SimpleImputer(strategy="median", add_indicator=True), "gappy"),
    "group_imputer": (lambda: GroupImputer(group_column=0, add_indicator=True), "gappy"),
    "knn_imputer": (lambda: KNNImputer(n_neighbors=3, weights="distance", add_indicator=True), "gappy"),
    "one_hot_encoder": (lambda: OneHotEncoder(), "codes"),
    "ordinal_encoder": (lambda: OrdinalEncoder(), "codes"),
    "standard_scaler": (lambda: StandardScaler(), "dense"),
    "min_max_scaler": (lambda: MinMaxScaler(), "dense"),
    "robust_scaler": (lambda: RobustScaler(), "dense"),
    "cholesky_whitening": (lambda: CholeskyWhitening(), "dense"),
    "pca": (lambda: PCA(n_components=2), "dense"),
    "pca_power_whiten": (lambda: PCA(solver="power", whiten=True), "dense"),
    "polynomial_features": (lambda: PolynomialFeatures(degree=3), "dense"),
    "rbf_features": (lambda: RBFFeatures(n_centers=5), "dense"),
    "piecewise_features": (lambda: PiecewiseFeatures(kind="linear"), "dense"),
    "lda": (lambda: LinearDiscriminantProjection(), "labelled"),
    "pls": (lambda: PLSRegression(n_components=2), "labelled"),
    "kernel_pca": (lambda: KernelPCA(n_components=3), "dense"),
    "nystroem": (lambda: Nystroem(n_components=10), "dense"),
}


def _training_rows(kind, seed=0, n=40):
    """(X, y): y (three classes that depend on X) only for the "labelled" kind, else None."""
    rng = np.random.default_rng(seed)
    if kind == "codes":
        return rng.integers(0, 4 - seed % 2, size=(n, D)).astype(float), None  # odd seeds never see category 3
    X = rng.normal(size=(n, D)) @ rng.normal(size=(D, D))
    if kind == "gappy":
        X[:, 0] = rng.integers(0, 3, size=n)  # group codes for the group imputer
        X[:, 1:][rng.random((n, D - 1)) < 0.25] = np.nan
    if kind != "labelled":
        return X, None
    score = X[:, 0] - X[:, 1] + rng.normal(size=n)
    return X, np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))


def _fit(name, **rows):
    make, kind = TRANSFORMERS[name]
    return make().fit(*_training_rows(kind, **rows))


def _rows(kind):
    """Strategy for a block of rows to transform, of the same kind as the training rows."""
    if kind == "codes":
        value = st.sampled_from([0.0, 1.0, 2.0, 3.0])
    else:
        finite = st.floats(-5, 5, allow_nan=False, width=64)
        value = st.one_of(finite, st.just(np.nan)) if kind == "gappy" else finite
    return st.lists(st.lists(value, min_size=D, max_size=D), min_size=2, max_size=6)


def _state(est):
    return {
        k: (v.copy() if isinstance(v, np.ndarray) else [a.copy() for a in v] if isinstance(v, list) else v)
        for k, v in vars(est).items()
        if k.endswith("_") and not k.startswith("_")
    }


def _assert_same_state(a, b):
    assert a.keys() == b.keys()
    for k in a:
        x, y = a[k], b[k]
        for u, v in zip(x, y) if isinstance(x, list) else [(x, y)]:
            assert np.array_equal(np.asarray(u), np.asarray(v), equal_nan=np.asarray(u).dtype.kind == "f"), k


@pytest.mark.parametrize("name", sorted(TRANSFORMERS))
def test_transform_of_a_row_ignores_the_other_rows_and_the_state_depends_only_on_A(name):
    make, kind = TRANSFORMERS[name]
    est = _fit(name)
    state = _state(est)

    @settings(max_examples=30, deadline=None)
    @given(B=_rows(kind), other=_rows(kind), i=st.integers(0, 5))
    def check(B, other, i):
        B = np.array(B)
        i %= B.shape[0]
        B2 = np.resize(np.array(other), B.shape)  # other values for every row ...
        B2[i] = B[i]  # ... except row i
        out, out2 = est.transform(B), est.transform(B2)
        assert np.array_equal(out[i], out2[i], equal_nan=True)
        alone = est.transform(B[i : i + 1])[0]
        np.testing.assert_allclose(alone, out[i], rtol=1e-12, atol=1e-12)
        _assert_same_state(_state(est), state)

    check()
    # refitting on A after fitting on something else gives exactly the state of a fresh fit on A
    other = make().fit(*_training_rows(kind, seed=1, n=30)).fit(*_training_rows(kind))
    _assert_same_state(_state(other), state)


@pytest.mark.parametrize("name", sorted(set(TRANSFORMERS) - {"polynomial_features"}))  # its state is data-free
def test_fitted_state_changes_with_the_training_rows(name):
    # the state comparison above cannot pass vacuously: the state does depend on A
    a, b = _state(_fit(name, seed=0)), _state(_fit(name, seed=1))
    with pytest.raises(AssertionError):
        _assert_same_state(a, b)
