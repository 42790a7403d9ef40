"""Impurity functions on hand-computed nodes (seed-001-003-004 catalogue 7.8 and 6.3, seed 000 catalogue I2), and the
impurities the compiled tree stores at its nodes agree with them."""

import numpy as np
import pytest

from mllib.tree import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    entropy,
    gini,
    impurity_decrease,
    misclassification,
    realboost_z,
    squared_error,
)


def test_hand_computed_impurities():
    assert gini([5, 5]) == pytest.approx(0.5, abs=1e-15)
    assert gini([8, 2]) == pytest.approx(0.32, abs=1e-15)
    assert entropy([5, 5]) == pytest.approx(1.0, abs=1e-15)
    assert entropy([8, 2]) == pytest.approx(0.721928, abs=1e-6)
    assert misclassification([8, 2]) == pytest.approx(0.2, abs=1e-15)
    assert realboost_z([8, 2]) == pytest.approx(0.8, abs=1e-15)  # 2 sqrt(0.8 * 0.2)
    assert realboost_z([3, 3, 3]) == pytest.approx(1.0, abs=1e-15)  # K (prod p_k)^(1/K), uniform: 1
    for f in (gini, entropy, misclassification, realboost_z):
        assert f([7, 0]) == 0.0  # a pure node


def test_realboost_z_of_the_catalogue_bin():
    """A bin with class masses p = 0.3, q = 0.1 contributes 2 sqrt(0.03) = 0.346410 to Z (catalogue 6.3): its weight
    times its impurity."""
    assert 0.4 * realboost_z([0.3, 0.1]) == pytest.approx(0.346410, abs=1e-6)
    # a split's decrease is the drop of Z: parent (0.3, 0.3) into the bins (0.3, 0.1) and (0, 0.2)
    assert 0.6 * impurity_decrease([0.3, 0.3], [0.3, 0.1], [0.0, 0.2], "realboost_z") == pytest.approx(
        2 * np.sqrt(0.09) - 2 * np.sqrt(0.03), abs=1e-12
    )


def test_split_decrease_of_the_catalogue_example():
    parent, left, right = [5, 5], [4, 1], [1, 4]
    assert impurity_decrease(parent, left, right, "gini") == pytest.approx(0.18, abs=1e-12)
    assert impurity_decrease(parent, left, right, "entropy") == pytest.approx(0.278072, abs=1e-6)


def test_variance_equals_pairwise_form():
    y = np.array([1.0, 4.0, 2.5, -3.0, 0.5])
    pairwise = np.sum(0.5 * (y[:, None] - y[None, :]) ** 2) / y.size**2  # seed 000, line 2700
    assert squared_error(y) == pytest.approx(pairwise, rel=1e-14)
    assert squared_error(y) == pytest.approx(np.var(y), rel=1e-14)
    # children weighted by size
    assert impurity_decrease(y, y[:2], y[2:], "squared_error") == pytest.approx(
        np.var(y) - (2 * np.var(y[:2]) + 3 * np.var(y[2:])) / 5, rel=1e-12
    )


@pytest.mark.parametrize(
    "criterion,f",
    [("gini", gini), ("entropy", entropy), ("misclassification", misclassification), ("realboost_z", realboost_z)],
)
def test_tree_node_impurities_match_the_functions(criterion, f):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = rng.integers(0, 3, 120)
    w = rng.uniform(0.5, 2.0, 120)
    tree = DecisionTreeClassifier(criterion=criterion, max_depth=3).fit(X, y, sample_weight=w)
    for node in range(tree.feature_.size):
        counts = tree.value_[node] * tree.weighted_n_node_samples_[node]
        assert tree.impurity_[node] == pytest.approx(f(counts), abs=1e-12)


def test_regression_node_impurity_is_weighted_variance():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 2))
    y = X[:, 0] + rng.normal(size=80)
    w = rng.uniform(0.5, 2.0, 80)
    tree = DecisionTreeRegressor(max_depth=2).fit(X, y, sample_weight=w)
    leaves = tree.apply(X)
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        assert tree.impurity_[leaf] == pytest.approx(squared_error(y[rows], w[rows]), rel=1e-9, abs=1e-12)
        assert tree.value_[leaf, 0] == pytest.approx(np.average(y[rows], weights=w[rows]), rel=1e-12)


def test_bad_counts_are_refused():
    with pytest.raises(ValueError, match="non-negative"):
        gini([0, 0])
    with pytest.raises(ValueError, match="unknown criterion .hellinger."):
        impurity_decrease([1, 1], [1, 0], [0, 1], "hellinger")
