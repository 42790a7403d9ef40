"""k-means (seed 000 catalogue K1; seed 001-003-004 catalogue 9.1).

Oracles: the catalogue's 1-D example [1, 2, 10, 11], K = 2 -> centres {1.5, 10.5}, J = 1; J non-increasing at every
iteration; inertia_ == sum of squared distances to the assigned centres; scikit-learn's Lloyd KMeans from the
same initial centres gives the same centres, labels and inertia; separated blobs recovered exactly; integer
weights == repeated rows; restarts never do worse than the first run; an empty cluster is relocated."""

import numpy as np
import pytest
from sklearn.cluster import KMeans as SkKMeans

from mllib.cluster import KMeans


def _blobs(seed=0, n=60, centres=((0, 0), (6, 0), (0, 6), (6, 6)), scale=0.6):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n, len(c))) * scale + c for c in centres])
    return X, np.repeat(np.arange(len(centres)), n)


def _same_partition(a, b):
    """Labels equal up to renaming the clusters."""
    pairs = set(zip(a.tolist(), b.tolist()))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


def test_catalogue_one_dimensional_example():
    X = np.array([[1.0], [2.0], [10.0], [11.0]])
    model = KMeans(2, n_init=5).fit(X)
    assert sorted(model.cluster_centers_.ravel().tolist()) == [1.5, 10.5]
    assert model.inertia_ == pytest.approx(1.0)
    assert _same_partition(model.labels_, np.array([0, 0, 1, 1]))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("init", ["random", "k-means++"])
def test_objective_is_non_increasing_every_iteration(seed, init):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 4)) @ rng.normal(size=(4, 4))  # no clear clusters: many iterations
    model = KMeans(7, init=init, tol=0.0, max_iter=500, random_state=seed).fit(X)
    J = model.inertia_history_
    assert len(J) >= 4
    assert (np.diff(J) <= 1e-10 * J[0]).all()
    direct = np.sum((X - model.cluster_centers_[model.labels_]) ** 2)
    assert model.inertia_ == pytest.approx(direct, rel=1e-10) and J[-1] == model.inertia_
    np.testing.assert_array_equal(model.predict(X), model.labels_)


@pytest.mark.parametrize("seed", range(3))
def test_matches_sklearn_lloyd_from_the_same_initial_centres(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(400, 5)) + rng.integers(0, 3, size=(400, 1)) * 2.0
    start = X[rng.choice(400, size=6, replace=False)]
    ours = KMeans(6, init=start, n_init=1, tol=1e-8, max_iter=300).fit(X)
    ref = SkKMeans(6, init=start, n_init=1, tol=1e-8, max_iter=300, algorithm="lloyd").fit(X)
    np.testing.assert_allclose(ours.cluster_centers_, ref.cluster_centers_, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-10)


def test_separated_blobs_are_recovered_and_predict_assigns_new_points():
    X, truth = _blobs()
    model = KMeans(4, n_init=3).fit(X)
    assert _same_partition(model.labels_, truth)
    assert model.labels_.dtype == np.int64
    centre_of = {t: model.labels_[truth == t][0] for t in range(4)}
    assert model.predict(np.array([[6.2, 5.9]]))[0] == centre_of[3]
    np.testing.assert_allclose(
        model.transform(X[:3]), np.linalg.norm(X[:3, None, :] - model.cluster_centers_[None], axis=2), rtol=1e-9
    )


def test_integer_weights_equal_repeated_rows():
    X, _ = _blobs(1, n=20)
    counts = np.random.default_rng(0).integers(1, 4, size=len(X))
    start = X[[0, 25, 45, 70]]
    a = KMeans(4, init=start).fit(X, sample_weight=counts.astype(float))
    b = KMeans(4, init=start).fit(np.repeat(X, counts, axis=0))
    np.testing.assert_allclose(a.cluster_centers_, b.cluster_centers_, rtol=1e-12)
    assert a.inertia_ == pytest.approx(b.inertia_, rel=1e-12)


def test_restarts_keep_the_best_run_and_the_same_seed_gives_identical_output():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 3))
    one = KMeans(6, n_init=1, random_state=3).fit(X)
    many = KMeans(6, n_init=8, random_state=3).fit(X)  # its first run is the n_init=1 run
    assert many.inertia_ <= one.inertia_
    again = KMeans(6, n_init=8, random_state=3).fit(X)
    np.testing.assert_array_equal(many.cluster_centers_, again.cluster_centers_)


def test_empty_cluster_is_relocated():
    X, _ = _blobs(2, n=30)
    start = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0], [1e3, 1e3]])  # the last centre attracts no point
    model = KMeans(4, init=start, tol=0.0).fit(X)
    assert np.isfinite(model.cluster_centers_).all()
    assert len(np.unique(model.labels_)) == 4
    assert (np.diff(model.inertia_history_) <= 1e-10 * model.inertia_history_[0]).all()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_clusters": 0}, "n_clusters must be an integer"),
        ({"n_clusters": 500}, "n_clusters must be an integer"),
        ({"init": "forgy"}, "init must be one of"),
        ({"init": np.zeros((3, 2))}, "init array must have shape"),
        ({"init": np.zeros((8, 2)), "n_init": 2}, "set n_init=1"),
        ({"n_init": 0}, "n_init must be an integer >= 1"),
        ({"tol": -1.0}, "tol must be a number >= 0"),
    ],
)
def test_bad_hyperparameters(kwargs, match):
    X, _ = _blobs(n=10)
    with pytest.raises(ValueError, match=match):
        KMeans(**kwargs).fit(X)
