"""Cost-complexity pruning: the path agrees with scikit-learn's on data without ties, alpha = 0 keeps the full tree,
leaves never increase along the path, pruned trees equal scikit-learn's, and alpha can be chosen by CV."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor

from mllib.tree import DecisionTreeClassifier, DecisionTreeRegressor, choose_ccp_alpha


def _data(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)).astype(np.float32).astype(np.float64)
    y = X[:, 0] - np.abs(X[:, 1]) + 0.5 * rng.normal(size=n)
    return X, y


def test_path_agrees_with_sklearn_regression():
    X, y = _data()
    kw = dict(min_samples_leaf=5, min_samples_split=12)
    ours = DecisionTreeRegressor(**kw).cost_complexity_pruning_path(X, y)
    sk = SkRegressor(random_state=0, **kw).cost_complexity_pruning_path(X, y)
    np.testing.assert_allclose(ours["ccp_alphas"], sk["ccp_alphas"], rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(ours["impurities"], sk["impurities"], rtol=1e-9, atol=1e-15)


def test_path_agrees_with_sklearn_classification():
    X, y = _data(1)
    labels = (y > 0).astype(int)
    w = np.random.default_rng(2).uniform(0.5, 2.0, y.size)
    kw = dict(min_samples_leaf=4, min_impurity_decrease=1e-9)
    ours = DecisionTreeClassifier(**kw).cost_complexity_pruning_path(X, labels, sample_weight=w)
    sk = SkClassifier(random_state=0, **kw).cost_complexity_pruning_path(X, labels, sample_weight=w)
    np.testing.assert_allclose(ours["ccp_alphas"], sk["ccp_alphas"], rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(ours["impurities"], sk["impurities"], rtol=1e-9, atol=1e-15)


def test_alpha_zero_is_the_full_tree_and_leaves_never_increase():
    X, y = _data(3)
    full = DecisionTreeRegressor(min_samples_leaf=3).fit(X, y)
    path = full.cost_complexity_pruning_path(X, y)
    alphas = path["ccp_alphas"]
    assert alphas[0] == 0.0 and np.all(np.diff(alphas) >= -1e-15)
    assert np.all(np.diff(path["impurities"]) >= -1e-15)  # R(T) grows as the tree shrinks
    same = DecisionTreeRegressor(min_samples_leaf=3, ccp_alpha=0.0).fit(X, y)
    np.testing.assert_array_equal(same.feature_, full.feature_)
    leaves = [
        DecisionTreeRegressor(min_samples_leaf=3, ccp_alpha=float(a)).fit(X, y).get_n_leaves() for a in alphas[::5]
    ]
    assert leaves[0] == full.get_n_leaves()
    assert all(a >= b for a, b in zip(leaves, leaves[1:]))
    assert DecisionTreeRegressor(min_samples_leaf=3, ccp_alpha=float(alphas[-1])).fit(X, y).get_n_leaves() == 1


@pytest.mark.parametrize("alpha", [0.002, 0.01, 0.05])
def test_pruned_tree_equals_sklearn(alpha):
    X, y = _data(4)
    ours = DecisionTreeRegressor(min_samples_leaf=5, ccp_alpha=alpha).fit(X, y)
    sk = SkRegressor(min_samples_leaf=5, ccp_alpha=alpha, random_state=0).fit(X, y)
    np.testing.assert_array_equal(ours.children_left_, sk.tree_.children_left)
    np.testing.assert_array_equal(ours.children_right_, sk.tree_.children_right)
    np.testing.assert_allclose(ours.predict(X), sk.predict(X), rtol=1e-12)


def test_pruned_subtree_cost_is_optimal_among_the_sequence():
    """C_alpha(T) = R(T) + alpha |leaves| of the chosen subtree is minimal over the path's subtrees."""
    X, y = _data(5)
    path = DecisionTreeRegressor(min_samples_leaf=5).cost_complexity_pruning_path(X, y)
    alphas, r = path["ccp_alphas"], path["impurities"]
    n_leaves = np.array(
        [DecisionTreeRegressor(min_samples_leaf=5, ccp_alpha=float(a)).fit(X, y).get_n_leaves() for a in alphas]
    )
    for k in range(1, len(alphas) - 1, 3):
        alpha = (alphas[k] + alphas[k + 1]) / 2
        cost = r + alpha * n_leaves
        assert cost[k] <= cost.min() + 1e-12


def test_choose_ccp_alpha_by_cross_validation():
    X, y = _data(6, n=240)
    labels = (y > 0).astype(int)
    result = choose_ccp_alpha(DecisionTreeClassifier(min_samples_leaf=2), X, labels, cv=4)
    assert result["alphas"][0] == 0.0 and result["best_alpha"] in result["alphas"]
    best = np.argmax(result["mean_scores"])
    assert result["best_alpha"] == result["alphas"][best]
    assert result["mean_scores"][best] > result["mean_scores"][0]  # pruning helps on noisy labels
    assert result["search"].best_estimator_.ccp_alpha == result["best_alpha"]


def test_ccp_alpha_candidates_are_every_subtree_of_the_path_but_the_root():
    """One candidate per interval [a_k, a_{k+1}) of the path: the candidates' trees are exactly the path's
    subtrees (tried at the path's own alphas), down to the one just before the root-only tree."""
    X, y = _data(6, n=240)
    labels = (y > 0).astype(int)
    estimator = DecisionTreeClassifier(min_samples_leaf=2)

    def n_leaves(alpha):
        return DecisionTreeClassifier(min_samples_leaf=2, ccp_alpha=float(alpha)).fit(X, labels).get_n_leaves()

    path_sizes = {n_leaves(a) for a in estimator.cost_complexity_pruning_path(X, labels)["ccp_alphas"]}
    candidates = choose_ccp_alpha(estimator, X, labels, cv=2)["alphas"]
    sizes = [n_leaves(a) for a in candidates]
    assert sizes == sorted(path_sizes - {1}, reverse=True)
    assert sizes[-1] == 2  # the stump just before the root, missed when the last interval had no candidate
