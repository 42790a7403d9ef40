"""KNNImputer: a hand-worked example, the nan-Euclidean distance against scikit-learn's, and the imputations
against sklearn.impute.KNNImputer (uniform and distance weights, rows sharing no coordinate with any donor,
missing indicators) to 1e-10 on random data with NaNs."""

import numpy as np
import pytest
from sklearn.impute import KNNImputer as SkKNNImputer
from sklearn.metrics.pairwise import nan_euclidean_distances as sk_nan_euclidean

from mllib.preprocessing import KNNImputer
from mllib.preprocessing.knn_imputer import nan_euclidean_distances


def test_hand_worked_example():
    X_fit = np.array([[0.0, 0.0, 1.0], [1.0, 1.0, 2.0], [3.0, np.nan, 10.0], [10.0, 10.0, 30.0]])
    x = np.array([[1.0, np.nan, np.nan]])
    # distances on column 0 only, scaled by 3 / 1: sqrt(3) * |1 - x0| = [sqrt 3, 0, 2 sqrt 3, 9 sqrt 3]
    np.testing.assert_allclose(nan_euclidean_distances(x, X_fit), np.sqrt(3) * np.array([[1.0, 0.0, 2.0, 9.0]]))
    # column 1: donors are rows 0, 1, 3 (row 2 does not observe it); the two nearest are rows 1 and 0
    # column 2: donors are all rows; the two nearest are rows 1 and 0
    np.testing.assert_allclose(KNNImputer(n_neighbors=2).fit(X_fit).transform(x), [[1.0, 0.5, 1.5]])
    # distance weights: row 1 is at distance 0, so it takes all the weight
    np.testing.assert_allclose(KNNImputer(n_neighbors=2, weights="distance").fit(X_fit).transform(x), [[1.0, 1.0, 2.0]])
    # with 1/d weights and no exact match: x0 = 2 -> distances sqrt3 * [2, 1, 1, 8]; column 1 donors rows 1 and 0
    x2 = np.array([[2.0, np.nan, 5.0]])
    d = np.sqrt(3 / 2) * np.sqrt(np.array([4 + 16, 1 + 9, 1 + 25, 64 + 625]))
    w = 1 / d[[1, 0]]
    expected = (w @ np.array([1.0, 0.0])) / w.sum()
    np.testing.assert_allclose(
        KNNImputer(n_neighbors=2, weights="distance").fit(X_fit).transform(x2), [[2.0, expected, 5.0]], rtol=1e-14
    )


def test_row_without_a_shared_coordinate_gets_the_column_mean():
    X_fit = np.array([[1.0, np.nan], [3.0, np.nan], [np.nan, 5.0]])
    out = KNNImputer(n_neighbors=1).fit(X_fit).transform(np.array([[np.nan, 7.0]]))
    np.testing.assert_array_equal(out, [[2.0, 7.0]])  # rows 0, 1 observe only column 0; row 2 not column 0


@pytest.mark.parametrize("seed", [0, 1])
def test_nan_euclidean_distances_agree_with_sklearn(seed):
    rng = np.random.default_rng(seed)
    A, B = rng.normal(size=(20, 6)) * 10 + 3, rng.normal(size=(30, 6)) * 10 + 3
    A[rng.random(A.shape) < 0.4] = np.nan
    B[rng.random(B.shape) < 0.4] = np.nan
    ours, ref = nan_euclidean_distances(A, B), sk_nan_euclidean(A, B)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(ref))
    np.testing.assert_allclose(ours, ref, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("n_neighbors", [1, 3, 5, 200])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agrees_with_sklearn_on_random_data_with_nans(weights, n_neighbors, seed):
    rng = np.random.default_rng(seed)
    # scikit-learn expands ||x - y||^2 = ||x||^2 - 2 x.y + ||y||^2 around the origin, which cancels digits when x and
    # y are close (~1e-9 relative error in 1/d weights on continuous data; see the next test). Values on a grid of
    # 2^-20 with |x| < 8 make its expansion exact (squares and sums of six need < 53 bits), so the comparison
    # measures our rounding only; the grid is fine enough that ties between neighbours do not occur.
    X = np.round(np.clip(rng.normal(size=(100, 6)) * rng.uniform(0.5, 2, size=6), -7.9, 7.9) * 2.0**20) / 2.0**20
    X[rng.random(X.shape) < 0.3] = np.nan
    X_new = np.round(np.clip(rng.normal(size=(40, 6)) * 2, -7.9, 7.9) * 2.0**20) / 2.0**20
    X_new[rng.random(X_new.shape) < 0.6] = np.nan  # many rows share few (or no) coordinates with a donor
    ours = KNNImputer(n_neighbors=n_neighbors, weights=weights).fit(X)
    ref = SkKNNImputer(n_neighbors=n_neighbors, weights=weights).fit(X)
    for Z in (X_new, X):
        np.testing.assert_allclose(ours.transform(Z), ref.transform(Z), rtol=1e-10, atol=1e-10)


def test_distances_stay_accurate_far_from_the_origin():
    # the expansion is done around the training means, so an offset does not cancel digits away
    rng = np.random.default_rng(3)
    X = rng.normal(size=(100, 6)) * rng.uniform(0.5, 20, size=6) + 1e3
    X[rng.random(X.shape) < 0.3] = np.nan
    X_new = rng.normal(size=(40, 6)) * 10 + 1e3
    X_new[rng.random(X_new.shape) < 0.6] = np.nan
    diff = X_new[:, None, :] - X[None, :, :]
    shared = (~np.isnan(diff)).sum(axis=2)
    exact = np.sqrt(6 * np.nansum(diff**2, axis=2) / np.maximum(shared, 1))
    exact[shared == 0] = np.nan
    mean = np.nanmean(X, axis=0)
    ours = nan_euclidean_distances(X_new - mean, X - mean)
    np.testing.assert_allclose(ours, exact, rtol=1e-10)
    imp = KNNImputer(weights="distance").fit(X)
    Z = imp.transform(X_new)
    # brute-force oracle from the exact distances
    for i, j in zip(*np.nonzero(np.isnan(X_new))):
        donors = np.flatnonzero(~np.isnan(X[:, j]))
        d = exact[i, donors]
        if np.isnan(d).all():
            assert Z[i, j] == pytest.approx(mean[j], rel=1e-12)
            continue
        nearest = donors[np.argsort(d, kind="stable")[:5]]
        w = np.nan_to_num(1 / exact[i, nearest])
        assert Z[i, j] == pytest.approx(w @ X[nearest, j] / w.sum(), rel=1e-10)


def test_missing_indicators_agree_with_sklearn():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 4))
    X[rng.random(X.shape) < 0.2] = np.nan
    X[:, 2] = rng.normal(size=60)  # complete at fit: no indicator
    X_new = rng.normal(size=(15, 4))
    X_new[rng.random(X_new.shape) < 0.3] = np.nan
    ours = KNNImputer(add_indicator=True).fit(X)
    ref = SkKNNImputer(add_indicator=True).fit(X)
    np.testing.assert_allclose(ours.transform(X_new), ref.transform(X_new), rtol=1e-10, atol=1e-10)
    assert ours.get_feature_names_out(["a", "b", "c", "d"]) == [
        "a",
        "b",
        "c",
        "d",
        "a_missing",
        "b_missing",
        "d_missing",
    ]


def test_donors_are_the_fit_rows_only():
    X_fit = np.array([[0.0, 0.0], [10.0, 10.0]])
    imp = KNNImputer(n_neighbors=1).fit(X_fit)
    # the second row (9, 9) would be the nearest donor for the first if transform rows could donate
    out = imp.transform(np.array([[9.1, np.nan], [9.0, 9.0]]))
    np.testing.assert_array_equal(out, [[9.1, 10.0], [9.0, 9.0]])


def test_errors():
    X = np.array([[1.0, np.nan], [2.0, 3.0]])
    with pytest.raises(ValueError, match="n_neighbors must be an integer >= 1"):
        KNNImputer(n_neighbors=0).fit(X)
    with pytest.raises(ValueError, match="weights must be one of"):
        KNNImputer(weights="gaussian").fit(X)
    with pytest.raises(ValueError, match="column 1 has no observed values"):
        KNNImputer().fit(np.array([[1.0, np.nan], [2.0, np.nan]]))
    with pytest.raises(ValueError, match="inf"):
        KNNImputer().fit(np.array([[1.0, np.inf]]))
