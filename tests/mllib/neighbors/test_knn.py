"""kNN / Parzen (catalogue 002 P5-P6, 001-004 7.7): kd-tree neighbours == brute force == scipy cKDTree (indices
and distances), kd-tree invariants (every point in exactly one leaf, split invariant), predictions and
probabilities identical to scikit-learn KNeighborsClassifier / Regressor (uniform and distance weights), 1-NN
training accuracy 1, k = n gives the prior / mean, Parzen posteriors written out directly (kd-tree radius query and
brute force), kd-tree window sums == written-out sums (boundary rows inclusive), box window == scikit-learn's
RadiusNeighborsClassifier / Regressor, Epanechnikov support, integer weights = repeated rows (Parzen), empty windows
fall back to the priors."""

import numpy as np
import pytest
from scipy.spatial import cKDTree
from sklearn.neighbors import KNeighborsClassifier as SkKNN
from sklearn.neighbors import KNeighborsRegressor as SkKNNRegressor
from sklearn.neighbors import RadiusNeighborsClassifier, RadiusNeighborsRegressor

from mllib.base import NotFittedError
from mllib.neighbors import (
    KNeighborsClassifier,
    KNeighborsRegressor,
    brute_kneighbors,
    build_kdtree,
    kdtree_query,
    kdtree_window_sums,
)


def _problem(seed, n=300, d=3, k=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    return rng.normal(size=(k, d))[y] + rng.normal(size=(n, d)), y


@pytest.mark.parametrize("d", [1, 2, 5, 10])
@pytest.mark.parametrize("leaf_size", [1, 8, 40])
def test_kdtree_equals_brute_force_and_scipy(d, leaf_size):
    rng = np.random.default_rng(d)
    X, Q = rng.normal(size=(400, d)), rng.normal(size=(60, d))
    index, nodes, split = build_kdtree(X, leaf_size)
    dt, it = kdtree_query(X, index, nodes, split, Q, 6)
    db, ib = brute_kneighbors(X, Q, 6)
    ds, is_ = cKDTree(X).query(Q, k=6)
    np.testing.assert_array_equal(it, ib)
    np.testing.assert_array_equal(it, is_)
    np.testing.assert_allclose(dt, ds, rtol=1e-12)
    np.testing.assert_allclose(db, ds, rtol=1e-7, atol=1e-7)


def test_kdtree_invariants():
    X = np.random.default_rng(0).normal(size=(257, 4))
    index, nodes, split = build_kdtree(X, 5)
    leaves = nodes[nodes[:, 2] < 0]
    assert (leaves[:, 1] - leaves[:, 0] <= 5).all()
    covered = np.concatenate([index[s:e] for s, e in leaves[:, :2]])
    np.testing.assert_array_equal(np.sort(covered), np.arange(257))  # every point in exactly one leaf
    for node, (s, e, left, right, dim) in enumerate(nodes):
        if left >= 0:
            assert (X[index[nodes[left, 0] : nodes[left, 1]], dim] <= split[node]).all()
            assert (X[index[nodes[right, 0] : nodes[right, 1]], dim] >= split[node]).all()


def test_kdtree_handles_duplicate_points_like_brute_force():
    X = np.repeat(np.random.default_rng(1).integers(0, 3, size=(30, 2)).astype(float), 3, axis=0)
    Q = X[:10] + 0.25
    index, nodes, split = build_kdtree(X, 4)
    dt, it = kdtree_query(X, index, nodes, split, Q, 5)
    db, ib = brute_kneighbors(X, Q, 5)
    np.testing.assert_array_equal(it, ib)  # ties ordered by training index in both


def _written_out_window_sums(X, Q, h, V, epanechnikov):
    s2 = ((Q[:, None, :] - X[None]) ** 2).sum(-1) / h**2
    K = np.where(s2 <= 1, 0.75 * (1 - s2) if epanechnikov else 1.0, 0.0)
    return K @ V


@pytest.mark.parametrize("epanechnikov", [False, True])
@pytest.mark.parametrize("d", [1, 2, 5, 10])
@pytest.mark.parametrize("leaf_size", [1, 8, 40])
def test_kdtree_window_sums_equal_written_out_sums(epanechnikov, d, leaf_size):
    rng = np.random.default_rng(d)
    X, Q, V = rng.normal(size=(400, d)), rng.normal(size=(60, d)), rng.normal(size=(400, 3))
    index, nodes, split = build_kdtree(X, leaf_size)
    for h in (0.3, 1.0, 2.5, 50.0):  # from mostly empty windows to every row in every window
        got = kdtree_window_sums(X, index, nodes, split, Q, h, V, epanechnikov)
        np.testing.assert_allclose(got, _written_out_window_sums(X, Q, h, V, epanechnikov), rtol=1e-12, atol=1e-12)


def test_kdtree_window_includes_rows_exactly_on_its_edge():
    # integer grid, repeated points: distances are exact, many rows lie at exactly h (box: inside) and on the planes
    X = np.repeat(np.random.default_rng(2).integers(0, 6, size=(80, 3)).astype(float), 2, axis=0)
    Q = np.random.default_rng(3).integers(-1, 7, size=(50, 3)).astype(float)
    V = np.ones((X.shape[0], 1))
    index, nodes, split = build_kdtree(X, 3)
    for h in (1.0, 2.0, np.sqrt(2.0), 3.0):
        counts = kdtree_window_sums(X, index, nodes, split, Q, h, V, False)[:, 0]
        np.testing.assert_array_equal(counts, (((Q[:, None, :] - X[None]) ** 2).sum(-1) <= h * h).sum(1))


@pytest.mark.parametrize("algorithm", ["kd_tree", "brute"])
@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("k", [1, 4, 15])
def test_classifier_equals_sklearn(algorithm, weights, k):
    X, y = _problem(k)
    Xq = _problem(k + 100, n=100)[0]
    labels = np.array(["x", "y", "z"])[y]
    ref = SkKNN(n_neighbors=k, weights=weights, algorithm="brute").fit(X, labels)
    model = KNeighborsClassifier(n_neighbors=k, weights=weights, algorithm=algorithm).fit(X, labels)
    np.testing.assert_allclose(model.predict_proba(Xq), ref.predict_proba(Xq), atol=1e-12)
    np.testing.assert_array_equal(model.predict(Xq), ref.predict(Xq))
    if weights == "distance":  # training rows: distance 0 to themselves, so they are reproduced
        np.testing.assert_array_equal(model.predict(X), labels)


@pytest.mark.parametrize("algorithm", ["kd_tree", "brute"])
@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_regressor_equals_sklearn(algorithm, weights):
    X, _ = _problem(5)
    y = X @ [1.0, -2.0, 0.5] + np.sin(3 * X[:, 0])
    Xq = _problem(6, n=80)[0]
    ref = SkKNNRegressor(n_neighbors=7, weights=weights).fit(X, y)
    model = KNeighborsRegressor(n_neighbors=7, weights=weights, algorithm=algorithm).fit(X, y)
    np.testing.assert_allclose(model.predict(Xq), ref.predict(Xq), rtol=1e-12, atol=1e-12)


def test_one_nn_reproduces_training_labels_and_k_equals_n_gives_priors():
    X, y = _problem(7, n=60)
    assert (KNeighborsClassifier(n_neighbors=1).fit(X, y).predict(X) == y).all()
    P = KNeighborsClassifier(n_neighbors=60).fit(X, y).predict_proba(X[:5])
    np.testing.assert_allclose(P, np.tile(np.bincount(y) / 60, (5, 1)))
    r = KNeighborsRegressor(n_neighbors=60, algorithm="brute").fit(X, X[:, 0])
    np.testing.assert_allclose(r.predict(X[:5]), X[:, 0].mean())


@pytest.mark.parametrize("algorithm", ["auto", "brute"])  # auto: kd-tree for box and Epanechnikov
@pytest.mark.parametrize("kernel", ["box", "epanechnikov", "gaussian"])
def test_parzen_posteriors_written_out(kernel, algorithm):
    X, y = _problem(8, n=150)
    Xq = _problem(9, n=40)[0]
    h = 1.3
    model = KNeighborsClassifier(bandwidth=h, kernel=kernel, algorithm=algorithm).fit(X, y)
    s = np.sqrt(((Xq[:, None, :] - X[None]) ** 2).sum(-1)) / h
    K = {"box": (s <= 1) * 1.0, "epanechnikov": np.maximum(0.75 * (1 - s**2), 0), "gaussian": np.exp(-(s**2) / 2)}[
        kernel
    ]
    votes = np.column_stack([K[:, y == c].sum(1) for c in range(3)])
    has = votes.sum(1) > 0
    np.testing.assert_allclose(model.predict_proba(Xq)[has], votes[has] / votes[has].sum(1, keepdims=True), atol=1e-10)
    np.testing.assert_allclose(model.predict_proba(Xq)[~has], np.tile(np.bincount(y) / 150, ((~has).sum(), 1)))
    reg = KNeighborsRegressor(bandwidth=h, kernel=kernel, algorithm=algorithm).fit(X, X[:, 1])
    expected = np.where(has, (K @ X[:, 1]) / np.where(has, K.sum(1), 1), X[:, 1].mean())
    np.testing.assert_allclose(reg.predict(Xq), expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("algorithm", ["kd_tree", "brute"])
def test_epanechnikov_kernel_integrates_to_one_with_compact_support(algorithm):
    # the 1-D Parzen regressor's weights: K(s) = 3/4 (1 - s^2) on |s| <= 1
    grid = np.linspace(-2, 2, 40001)
    model = KNeighborsRegressor(bandwidth=1.0, kernel="epanechnikov", algorithm=algorithm).fit(np.zeros((1, 1)), [1.0])
    w = model._window_sums(grid[:, None], np.ones((1, 1)))[:, 0]
    assert np.trapezoid(w, grid) == pytest.approx(1.0, abs=1e-6)
    assert (w[np.abs(grid) > 1] == 0).all()


@pytest.mark.parametrize("algorithm", ["kd_tree", "brute"])
def test_box_window_equals_sklearn_radius_neighbours(algorithm):
    X, y = _problem(14, n=400)
    Xq = _problem(15, n=120)[0]
    h = 0.9
    ours = KNeighborsClassifier(bandwidth=h, kernel="box", algorithm=algorithm).fit(X, y)
    ref = RadiusNeighborsClassifier(radius=h, outlier_label="most_frequent").fit(X, y)
    has = np.array([idx.size > 0 for idx in ref.radius_neighbors(Xq, return_distance=False)])
    assert 0 < has.sum() < has.size  # both kinds of windows occur
    np.testing.assert_allclose(ours.predict_proba(Xq)[has], ref.predict_proba(Xq)[has], atol=1e-12)
    reg = KNeighborsRegressor(bandwidth=h, kernel="box", algorithm=algorithm).fit(X, X[:, 2])
    np.testing.assert_allclose(
        reg.predict(Xq[has]),
        RadiusNeighborsRegressor(radius=h).fit(X, X[:, 2]).predict(Xq[has]),
        rtol=1e-12,
        atol=1e-12,
    )


def test_parzen_integer_weights_equal_repeated_rows():
    X, y = _problem(10, n=50)
    w = np.random.default_rng(0).integers(0, 4, size=50)
    a = KNeighborsClassifier(bandwidth=1.5, kernel="gaussian").fit(X, y, sample_weight=w)
    b = KNeighborsClassifier(bandwidth=1.5, kernel="gaussian").fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-12)


def test_rescaling_a_feature_changes_the_neighbours():
    X, y = _problem(11)
    a = KNeighborsClassifier(n_neighbors=3).fit(X, y)
    Xs = X * [100.0, 1.0, 1.0]
    b = KNeighborsClassifier(n_neighbors=3).fit(Xs, y)
    assert not np.array_equal(a.kneighbors(X[:20])[1], b.kneighbors(Xs[:20])[1])


def test_auto_uses_the_tree_in_low_dimension_only():
    X, y = _problem(12, d=3)
    assert hasattr(KNeighborsClassifier().fit(X, y), "tree_nodes_")
    Xh = np.random.default_rng(0).normal(size=(50, 20))
    assert not hasattr(KNeighborsClassifier().fit(Xh, y[:50]), "tree_nodes_")
    model = KNeighborsClassifier(algorithm="kd_tree").fit(X, y)
    assert not hasattr(model.set_params(algorithm="brute").fit(X, y), "tree_nodes_")
    assert hasattr(KNeighborsClassifier(bandwidth=1.0, kernel="epanechnikov").fit(X, y), "tree_nodes_")
    assert not hasattr(KNeighborsClassifier(bandwidth=1.0, kernel="gaussian").fit(X, y), "tree_nodes_")


def test_errors():
    X, y = _problem(13, n=20)
    with pytest.raises(ValueError, match="n_neighbors must be an integer in \\[1, n_samples = 20\\]"):
        KNeighborsClassifier(n_neighbors=21).fit(X, y)
    with pytest.raises(ValueError, match="algorithm must be one of"):
        KNeighborsClassifier(algorithm="ball_tree").fit(X, y)
    with pytest.raises(ValueError, match="bandwidth must be None or a positive number"):
        KNeighborsClassifier(bandwidth=0.0).fit(X, y)
    with pytest.raises(ValueError, match="algorithm='kd_tree' needs a window of finite width"):
        KNeighborsClassifier(bandwidth=1.0, kernel="gaussian", algorithm="kd_tree").fit(X, y)
    with pytest.raises(ValueError, match="kernel must be one of"):
        KNeighborsRegressor(kernel="tricube").fit(X, X[:, 0])
    with pytest.raises(NotFittedError):
        KNeighborsRegressor(bandwidth=1.0).predict(X)
