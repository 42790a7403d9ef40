"""Shapley values: the corrected worked example, exact enumeration vs KernelSHAP vs TreeSHAP vs closed forms,
and additivity to 1e-8 relative (shap itself only checks 1e-2)."""

import itertools
from math import factorial

import numpy as np
import pytest

from mllib.explain import exact_shapley, kernel_shap, linear_shapley, tree_shap
from mllib.explain.shapley import coalition_masks, shapley_from_values


def f_example(X):
    X = np.asarray(X, dtype=float)
    return X[:, 0] * (X[:, 1] + X[:, 2])


def test_catalogue_example_corrected():
    """f(x) = x1 (x2 + x3) at x = (1, 1, 1), baseline 0: phi = (1, 1/2, 1/2), not the notes' table."""
    out = exact_shapley(f_example, [[1.0, 1.0, 1.0]], np.zeros((1, 3)))
    np.testing.assert_allclose(out["values"][0], [1.0, 0.5, 0.5], rtol=0, atol=1e-15)
    assert out["expected_value"] == 0.0 and out["prediction"][0] == 2.0
    assert out["additivity_error"][0] < 1e-15


def test_shapley_from_values_matches_the_permutation_definition():
    rng = np.random.default_rng(0)
    d = 4
    v = rng.normal(size=2**d)
    v[0] = 0.0
    phi = shapley_from_values(v, d)
    index = {tuple(m): k for k, m in enumerate(coalition_masks(d))}
    expected = np.zeros(d)
    for order in itertools.permutations(range(d)):
        mask = np.zeros(d, bool)
        for i in order:
            before = v[index[tuple(mask)]]
            mask[i] = True
            expected[i] += v[index[tuple(mask)]] - before
    np.testing.assert_allclose(phi, expected / factorial(d), rtol=1e-12)


def test_axioms_symmetry_dummy_and_efficiency():
    rng = np.random.default_rng(1)
    background = rng.normal(size=(5, 4))

    def predict(X):
        return np.asarray(X)[:, 0] * np.asarray(X)[:, 1] + np.sin(np.asarray(X)[:, 2])  # x3 is a dummy

    X = rng.normal(size=(3, 4))
    X[:, 1] = X[:, 0]
    bg = background.copy()
    bg[:, 1] = bg[:, 0]  # x0, x1 symmetric
    out = exact_shapley(predict, X, bg)
    np.testing.assert_allclose(out["values"][:, 3], 0.0, atol=1e-15)
    np.testing.assert_allclose(out["values"][:, 0], out["values"][:, 1], rtol=1e-12)
    scale = np.abs(out["prediction"]).max()
    assert out["additivity_error"].max() <= 1e-12 * scale


def test_linear_model_closed_form_equals_enumeration():
    rng = np.random.default_rng(2)
    w, b = rng.normal(size=5), 0.7
    background = rng.normal(size=(20, 5))
    X = rng.normal(size=(4, 5))
    enum = exact_shapley(lambda Z: np.asarray(Z) @ w + b, X, background)
    closed = linear_shapley(w, X, background.mean(axis=0), b)
    np.testing.assert_allclose(enum["values"], closed["values"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(closed["values"], w * (X - background.mean(axis=0)), rtol=1e-15)
    assert closed["additivity_error"].max() < 1e-12


def test_raw_object_rows_with_strings_work():
    colour = {"red": 1.0, "blue": -1.0}

    def predict(Z):
        return np.array([colour[row[0]] * float(row[1]) for row in Z])

    X = np.array([["red", 2.0]], dtype=object)
    background = np.array([["blue", 0.0], ["red", 1.0]], dtype=object)
    out = exact_shapley(predict, X, background)
    assert out["additivity_error"][0] < 1e-12 and out["values"].shape == (1, 2)


# ---------------------------------------------------------------- KernelSHAP


def test_kernel_shap_with_all_coalitions_is_exact():
    rng = np.random.default_rng(3)

    def predict(Z):
        return np.tanh(np.asarray(Z) @ np.array([1.0, -2.0, 0.5, 0.0, 1.5])) * np.asarray(Z)[:, 0]

    background, X = rng.normal(size=(8, 5)), rng.normal(size=(3, 5))
    exact = exact_shapley(predict, X, background)
    kern = kernel_shap(predict, X, background, n_samples=64)
    assert kern["exact"] and kern["n_coalitions"] == 30
    np.testing.assert_allclose(kern["values"], exact["values"], rtol=1e-9, atol=1e-12)
    assert np.all(kern["standard_errors"] == 0)


def test_sampled_kernel_shap_is_seeded_efficient_and_close_with_honest_errors():
    rng = np.random.default_rng(4)
    d = 10
    w = rng.normal(size=d)

    def predict(Z):
        return np.asarray(Z) @ w + 0.5 * np.asarray(Z)[:, 0] * np.asarray(Z)[:, 1]

    background, X = rng.normal(size=(10, d)), rng.normal(size=(2, d))
    exact = exact_shapley(predict, X, background)
    a = kernel_shap(predict, X, background, n_samples=400, random_state=7)
    b = kernel_shap(predict, X, background, n_samples=400, random_state=7)
    assert not a["exact"] and np.array_equal(a["values"], b["values"])
    scale = np.abs(a["prediction"]).max() + abs(a["expected_value"])
    assert a["additivity_error"].max() <= 1e-8 * scale  # efficiency is imposed exactly
    z = np.abs(a["values"] - exact["values"]) / np.maximum(a["standard_errors"], 1e-12)
    assert np.median(z) < 3  # the bootstrap standard errors describe the sampling error
    with pytest.raises(ValueError, match="n_bootstrap must be an integer >= 2"):
        kernel_shap(predict, X, background, n_samples=400, n_bootstrap=1)


# ---------------------------------------------------------------- TreeSHAP


def random_tree(rng, X, depth, n_outputs=1):
    """A random CART-like tree as flat arrays, covers from the rows of X reaching each node."""
    feature, threshold, left, right, value, cover = [], [], [], [], [], []

    def grow(rows, level):
        node = len(feature)
        for lst in (feature, threshold, left, right, value, cover):
            lst.append(None)
        cover[node] = float(rows.size)
        f = int(rng.integers(X.shape[1]))
        if level == depth or rows.size < 4 or np.unique(X[rows, f]).size < 2:
            feature[node], threshold[node], left[node], right[node] = -1, -2.0, -1, -1
            value[node] = rng.normal(size=n_outputs)
            return node
        t = float(np.quantile(X[rows, f], rng.uniform(0.2, 0.8)))
        go = X[rows, f] <= t
        if go.all() or not go.any():
            feature[node], threshold[node], left[node], right[node] = -1, -2.0, -1, -1
            value[node] = rng.normal(size=n_outputs)
            return node
        feature[node], threshold[node] = f, t
        left[node] = grow(rows[go], level + 1)
        right[node] = grow(rows[~go], level + 1)
        value[node] = (cover[left[node]] * value[left[node]] + cover[right[node]] * value[right[node]]) / cover[node]
        return node

    grow(np.arange(X.shape[0]), 0)
    return {
        "feature": np.array(feature),
        "threshold": np.array(threshold),
        "left": np.array(left),
        "right": np.array(right),
        "value": np.array(value),
        "cover": np.array(cover),
    }


def conditional_expectation(tree, x, mask, node=0):
    """The path-dependent value function v(S) = E[f | x_S] by brute-force traversal."""
    if tree["left"][node] < 0:
        return tree["value"][node]
    f = tree["feature"][node]
    l, r = tree["left"][node], tree["right"][node]
    if mask[f]:
        return conditional_expectation(tree, x, mask, l if x[f] <= tree["threshold"][node] else r)
    c = tree["cover"]
    return (c[l] * conditional_expectation(tree, x, mask, l) + c[r] * conditional_expectation(tree, x, mask, r)) / c[
        node
    ]


class Ensemble:
    def __init__(self, trees, scale, offset, output="raw"):
        self.trees, self.scale, self.offset, self.output = trees, scale, offset, output

    def tree_ensemble(self):
        return {
            "trees": self.trees,
            "scale": np.asarray(self.scale, float),
            "offset": np.asarray(self.offset, float),
            "output": self.output,
        }


@pytest.mark.parametrize("seed", range(6))
def test_tree_shap_equals_enumeration_of_the_tree_value_function(seed):
    rng = np.random.default_rng(seed)
    d = 5
    X = rng.normal(size=(200, d)).round(1)  # ties in thresholds and repeated features along paths
    trees = [random_tree(rng, X, depth=int(rng.integers(2, 6)), n_outputs=2) for _ in range(3)]
    model = Ensemble(trees, scale=[0.5, 1.0, 2.0], offset=[0.1, -0.3])
    rows = rng.normal(size=(4, d)).round(1)
    out = tree_shap(model, rows)
    masks = coalition_masks(d)
    for r, x in enumerate(rows):
        v = sum(s * np.array([conditional_expectation(t, x, m) for m in masks]) for t, s in zip(trees, [0.5, 1.0, 2.0]))
        np.testing.assert_allclose(out["values"][r], shapley_from_values(v, d), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(out["prediction"][r], v[-1] + [0.1, -0.3], rtol=1e-12)
    np.testing.assert_allclose(out["expected_value"], v[0] + [0.1, -0.3], rtol=1e-12)
    scale = np.abs(out["prediction"]).max()
    assert out["additivity_error"].max() <= 1e-8 * scale


def test_tree_shap_of_a_stump_gives_everything_to_its_feature():
    tree = {
        "feature": np.array([1, -1, -1]),
        "threshold": np.array([0.0, -2, -2]),
        "left": np.array([1, -1, -1]),
        "right": np.array([2, -1, -1]),
        "value": np.array([[0.25], [-1.0], [1.0]]),
        "cover": np.array([4.0, 3.0, 1.0]),
    }
    out = tree_shap(Ensemble([tree], [1.0], [0.0]), np.array([[5.0, 1.0, 0.0]]))
    # E f = (3 * -1 + 1 * 1) / 4 = -0.5; f(x) = 1; feature 1 gets 1.5, the others 0
    np.testing.assert_allclose(out["values"][0, :, 0], [0.0, 1.5, 0.0], atol=1e-15)
    np.testing.assert_allclose(out["expected_value"], [-0.5])


def _tree_model(name):
    from mllib.ensemble import AdaBoostClassifier, RandomForestClassifier
    from mllib.gradient_boosting import GradientBoostingClassifier
    from mllib.tree import DecisionTreeClassifier

    return {
        "random_forest": lambda: RandomForestClassifier(
            n_estimators=8, max_depth=5, min_samples_leaf=3, random_state=0
        ),
        "decision_tree": lambda: DecisionTreeClassifier(max_depth=6, min_samples_leaf=3),
        "adaboost_discrete": lambda: AdaBoostClassifier(n_estimators=6, max_depth=2, algorithm="discrete"),
        "adaboost_real": lambda: AdaBoostClassifier(n_estimators=6, max_depth=2, algorithm="real"),
        "gradient_boosting": lambda: GradientBoostingClassifier(max_iter=6, max_leaf_nodes=8, min_samples_leaf=5),
    }[name]()


@pytest.mark.parametrize(
    "name", ["random_forest", "decision_tree", "adaboost_discrete", "adaboost_real", "gradient_boosting"]
)
def test_tree_shap_equals_enumeration_for_every_tree_of_mllib_tree_models(name):
    """Per tree: TreeSHAP = brute-force Shapley values of that tree's value function (all 2^d coalitions) to
    1e-10; the whole model: TreeSHAP = sum_t scale_t phi_t of those (Shapley values are linear in v) to 1e-10, and
    its values add up to its own output (predict_proba or decision_function) to 1e-8 relative."""
    rng = np.random.default_rng(11)
    d = 5
    X = rng.normal(size=(300, d)).round(1)  # ties, so thresholds sit between repeated values
    y = (X[:, 0] + X[:, 1] * X[:, 2] - 0.5 * X[:, 3] + 0.3 * rng.normal(size=300) > 0).astype(int)
    model = _tree_model(name).fit(X, y)
    rows = np.vstack([X[:3], rng.normal(size=(3, d)).round(1)])
    ensemble = model.tree_ensemble()
    masks = coalition_masks(d)
    assert max(len(t["left"]) for t in ensemble["trees"]) >= 7  # trees of depth >= 2: paths with several features
    out = tree_shap(model, rows)
    enumerated = np.zeros_like(out["values"])
    for tree, scale in zip(ensemble["trees"], ensemble["scale"]):
        n_outputs = np.asarray(tree["value"]).reshape(len(tree["left"]), -1).shape[1]
        single = tree_shap(Ensemble([tree], [1.0], np.zeros(n_outputs)), rows)
        for r, x in enumerate(rows):
            v = np.array([conditional_expectation(tree, x, m) for m in masks]).reshape(2**d, n_outputs)
            phi = shapley_from_values(v, d)
            np.testing.assert_allclose(single["values"][r], phi, rtol=1e-10, atol=1e-12)
            enumerated[r] += scale * phi
    np.testing.assert_allclose(out["values"], enumerated, rtol=1e-10, atol=1e-12)
    if ensemble["output"] == "probability":
        np.testing.assert_allclose(out["prediction"], model.predict_proba(rows), rtol=1e-12, atol=1e-14)
    else:
        np.testing.assert_allclose(out["prediction"][:, 0], model.decision_function(rows), rtol=1e-12, atol=1e-14)
    if name == "gradient_boosting":
        assert out["output"] == "log_odds"
    assert out["additivity_error"].max() <= 1e-8 * np.abs(out["prediction"]).max()


def test_tree_shap_of_many_rows_equals_each_row_alone():
    """Rows that go the same way at every split share one walk (tree_shap computes each distinct walk once): the
    values of 400 rows at once, many of them on the same walks, equal each row's own values, bit for bit."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 4)).round(1)
    y = (X[:, 0] - X[:, 1] + 0.3 * rng.normal(size=400) > 0).astype(int)
    from mllib.gradient_boosting import GradientBoostingClassifier

    model = GradientBoostingClassifier(max_iter=10, max_leaf_nodes=8, min_samples_leaf=5).fit(X, y)
    batch = tree_shap(model, X)
    alone = np.concatenate([tree_shap(model, X[i : i + 1])["values"] for i in range(len(X))])
    assert np.array_equal(batch["values"], alone)
    assert len(np.unique(batch["values"].round(12), axis=0)) < len(X)  # shared walks: the case the grouping serves
