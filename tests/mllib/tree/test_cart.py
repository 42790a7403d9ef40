"""CART trees: agreement with scikit-learn's trees (structure and predictions) on data without ties, the flat node
arrays and the shared tree_ensemble protocol, histogram search, validation, and prediction after mllib.io.load."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor
from tree_protocol import ensemble_output

from mllib import io as mlio
from mllib.base import NotFittedError
from mllib.tree import DecisionTreeClassifier, DecisionTreeRegressor
from mllib.tree.binning import bin_features


def _no_ties(seed, n=400, d=4):
    """Continuous features exactly representable in float32 (scikit-learn's trees work in float32)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32).astype(np.float64)
    return X, rng


def _sk_feature(tree):
    return np.where(tree.tree_.children_left < 0, -1, tree.tree_.feature)


def _assert_same_structure(ours, sk):
    t = sk.tree_
    np.testing.assert_array_equal(ours.children_left_, t.children_left)
    np.testing.assert_array_equal(ours.children_right_, t.children_right)
    np.testing.assert_array_equal(ours.feature_, _sk_feature(sk))
    internal = ours.children_left_ >= 0
    np.testing.assert_array_equal(ours.threshold_[internal], t.threshold[internal])
    np.testing.assert_allclose(ours.weighted_n_node_samples_, t.weighted_n_node_samples, rtol=1e-12)
    np.testing.assert_allclose(ours.impurity_, t.impurity, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_classifier_equals_sklearn_on_data_without_ties(criterion):
    X, rng = _no_ties(0)
    y = (X[:, 0] + X[:, 1] ** 2 - 0.5 * X[:, 2] + 0.5 * rng.normal(size=X.shape[0]) > 0.5).astype(int)
    w = rng.uniform(0.5, 2.0, X.shape[0])  # continuous weights: no two candidate splits tie
    # min_impurity_decrease > 0: scikit-learn rounds some pure nodes' impurity to 3e-16 > eps and splits them
    kw = dict(criterion=criterion, min_samples_leaf=3, max_depth=8, min_impurity_decrease=1e-9)
    ours = DecisionTreeClassifier(**kw).fit(X, y, sample_weight=w)
    sk = SkClassifier(random_state=0, **kw).fit(X, y, sample_weight=w)
    _assert_same_structure(ours, sk)
    X_new, _ = _no_ties(1)
    np.testing.assert_allclose(ours.predict_proba(X_new), sk.predict_proba(X_new), rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(ours.predict(X_new), sk.predict(X_new))


def test_regressor_equals_sklearn_on_data_without_ties():
    X, rng = _no_ties(2)
    y = X[:, 0] + np.sin(3 * X[:, 1]) + 0.1 * rng.normal(size=X.shape[0])
    kw = dict(min_samples_leaf=5, min_samples_split=12)
    ours = DecisionTreeRegressor(**kw).fit(X, y)
    sk = SkRegressor(random_state=0, **kw).fit(X, y)
    _assert_same_structure(ours, sk)
    X_new, _ = _no_ties(3)
    np.testing.assert_allclose(ours.predict(X_new), sk.predict(X_new), rtol=1e-12)


def test_min_impurity_decrease_and_max_depth_as_sklearn():
    X, rng = _no_ties(4)
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    w = rng.uniform(0.5, 2.0, X.shape[0])
    for kw in (dict(min_impurity_decrease=0.01), dict(max_depth=3, min_impurity_decrease=1e-9)):
        ours = DecisionTreeClassifier(**kw).fit(X, y, sample_weight=w)
        sk = SkClassifier(random_state=0, **kw).fit(X, y, sample_weight=w)
        _assert_same_structure(ours, sk)


def test_flat_arrays_and_thresholds():
    X, rng = _no_ties(5, n=200)
    y = (X[:, 0] > 0.3).astype(int)
    tree = DecisionTreeClassifier(max_depth=1).fit(X, y)
    assert tree.feature_.dtype == np.int64 and tree.children_left_.dtype == np.int64
    assert tree.threshold_.dtype == np.float64 and tree.value_.dtype == np.float64
    assert tree.feature_.tolist() == [0, -1, -1]
    xs = np.sort(X[:, 0])
    k = np.searchsorted(xs, 0.3)
    assert tree.threshold_[0] == xs[k - 1] / 2 + xs[k] / 2  # midpoint of the sorted values around the cut
    np.testing.assert_array_equal(tree.value_[1:], [[1.0, 0.0], [0.0, 1.0]])
    # a row goes left exactly when x <= threshold
    assert tree.apply(np.array([[tree.threshold_[0], 0, 0, 0]])).tolist() == [1]
    assert tree.apply(np.array([[np.nextafter(tree.threshold_[0], 1), 0, 0, 0]])).tolist() == [2]


def test_fully_grown_tree_interpolates_distinct_rows():
    X, rng = _no_ties(6, n=150)
    y = rng.normal(size=150)
    tree = DecisionTreeRegressor(min_samples_leaf=1).fit(X, y)
    np.testing.assert_allclose(tree.predict(X), y, rtol=1e-12)
    assert tree.get_n_leaves() == 150


def _check_internal_values(tree):
    left, right, cover, value = tree["left"], tree["right"], tree["cover"], tree["value"]
    assert value.ndim == 2 and value.shape[0] == left.size
    for node in np.flatnonzero(left >= 0):
        l, r = left[node], right[node]
        np.testing.assert_allclose(value[node], (cover[l] * value[l] + cover[r] * value[r]) / cover[node], rtol=1e-12)
        assert cover[node] == pytest.approx(cover[l] + cover[r], rel=1e-12)


def test_tree_ensemble_reproduces_predictions():
    X, rng = _no_ties(7)
    y = rng.integers(0, 3, X.shape[0])
    clf = DecisionTreeClassifier(max_depth=5).fit(X, y)
    ens = clf.tree_ensemble()
    assert ens["output"] == "probability" and ens["scale"].tolist() == [1.0] and ens["offset"].tolist() == [0.0] * 3
    np.testing.assert_array_equal(ensemble_output(ens, X), clf.predict_proba(X))
    _check_internal_values(ens["trees"][0])
    reg = DecisionTreeRegressor(max_depth=5).fit(X, X[:, 0] + rng.normal(size=X.shape[0]))
    ens = reg.tree_ensemble()
    assert ens["output"] == "raw"
    np.testing.assert_array_equal(ensemble_output(ens, X)[:, 0], reg.predict(X))
    _check_internal_values(ens["trees"][0])


def test_hist_splitter_is_exact_with_few_values_and_close_with_many():
    X, rng = _no_ties(8, n=600)
    y = (X[:, 0] + X[:, 1] + 0.3 * rng.normal(size=600) > 0).astype(int)
    Xr = np.round(X, 1)  # ~60 distinct values per feature: one bin per value, the hist search is exact
    exact = DecisionTreeClassifier(min_samples_leaf=5).fit(Xr, y)
    hist = DecisionTreeClassifier(min_samples_leaf=5, splitter="hist").fit(Xr, y)
    np.testing.assert_array_equal(exact.feature_, hist.feature_)
    np.testing.assert_array_equal(exact.threshold_, hist.threshold_)
    coarse = DecisionTreeClassifier(min_samples_leaf=5, splitter="hist", max_bins=16).fit(X, y)
    assert np.mean(coarse.predict(X) == y) > 0.85
    # 600 distinct values per feature > 16 bins: quantile bins, and every threshold is one of its feature's
    # finite upper bin edges
    _, cuts, n_bins, exact, _ = bin_features(X, 16, quantile_bins=True)
    assert not exact.any() and np.all(n_bins <= 16)
    internal = np.flatnonzero(coarse.feature_ >= 0)
    assert internal.size >= 5
    for node in internal:
        f = coarse.feature_[node]
        assert coarse.threshold_[node] in cuts[f, : n_bins[f] - 1], (node, f)


def test_max_features_draws_are_reproducible_and_depend_on_the_seed():
    X, rng = _no_ties(9, d=8)
    y = (X @ rng.normal(size=8) > 0).astype(int)
    a = DecisionTreeClassifier(max_features="sqrt", random_state=1).fit(X, y)
    b = DecisionTreeClassifier(max_features="sqrt", random_state=1).fit(X, y)
    c = DecisionTreeClassifier(max_features="sqrt", random_state=2).fit(X, y)
    assert a.max_features_ == 2
    np.testing.assert_array_equal(a.feature_, b.feature_)
    assert not np.array_equal(a.feature_, c.feature_)


def test_feature_importances_sum_to_one_and_follow_the_signal():
    X, rng = _no_ties(10)
    y = (X[:, 2] > 0).astype(int)
    tree = DecisionTreeClassifier(max_depth=3).fit(X, y)
    # the root split on feature 2 is pure: it takes the whole impurity decrease
    np.testing.assert_array_equal(tree.feature_importances_, [0.0, 0.0, 1.0, 0.0])


def test_loaded_tree_predicts_identically(tmp_path):
    X, rng = _no_ties(11)
    y = rng.integers(0, 2, X.shape[0])
    tree = DecisionTreeClassifier(min_samples_leaf=4, ccp_alpha=0.002).fit(X, y)
    mlio.save(tree, tmp_path / "tree")
    loaded = mlio.load(tmp_path / "tree")
    np.testing.assert_array_equal(loaded.predict_proba(X), tree.predict_proba(X))


def test_validation_errors():
    X, y = np.zeros((4, 2)), np.array([0, 1, 0, 1])
    with pytest.raises(NotFittedError):
        DecisionTreeClassifier().predict(X)
    for bad, match in (
        (dict(criterion="mse"), "criterion"),
        (dict(splitter="random"), "splitter"),
        (dict(min_samples_leaf=0), "min_samples_leaf"),
        (dict(max_depth=-1), "max_depth"),
        (dict(max_features="half"), "max_features"),
        (dict(max_bins=300), "max_bins"),
        (dict(ccp_alpha=-1.0), "ccp_alpha"),
    ):
        with pytest.raises(ValueError, match=match):
            DecisionTreeClassifier(**bad).fit(X, y)
    with pytest.raises(ValueError, match="criterion"):
        DecisionTreeRegressor(criterion="gini").fit(X, y.astype(float))
    with pytest.raises(ValueError, match="features"):
        DecisionTreeClassifier().fit(X, y).predict(np.zeros((2, 3)))
