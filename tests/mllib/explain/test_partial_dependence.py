"""Partial dependence / ICE: closed forms for additive and product models, and agreement with
scikit-learn's brute-force partial_dependence on the same fitted model and grid (to 1e-12)."""

import numpy as np
import pytest
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.inspection import partial_dependence as sk_partial_dependence

from mllib.explain import partial_dependence


def test_additive_model_pd_is_the_shape_function_plus_a_constant_and_ice_curves_are_parallel():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))

    def f(Z):
        return np.sin(Z[:, 0]) + Z[:, 1] ** 2 - Z[:, 2]

    out = partial_dependence(f, X, 0, grid_resolution=15)
    g = out["grid"][0]
    assert g.size == 15
    np.testing.assert_allclose(out["average"], np.sin(g) + np.mean(X[:, 1] ** 2 - X[:, 2]), rtol=1e-12)
    ice = out["individual"]
    offsets = ice - ice[:, :1]
    np.testing.assert_allclose(offsets, np.broadcast_to(offsets[0], offsets.shape), atol=1e-12)


def test_two_way_pd_of_a_product_is_the_outer_product_of_grids():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 3))
    out = partial_dependence(lambda Z: Z[:, 0] * Z[:, 1] + 3 * Z[:, 2], X, (0, 1), grid_resolution=7)
    g0, g1 = out["grid"]
    assert out["average"].shape == (7, 7) and out["individual"].shape == (30, 7, 7)
    np.testing.assert_allclose(out["average"], np.outer(g0, g1) + 3 * X[:, 2].mean(), rtol=1e-12, atol=1e-12)


def test_categorical_column_uses_its_values():
    X = np.array([["a", 1.0], ["b", 2.0], ["a", 3.0]], dtype=object)
    out = partial_dependence(lambda Z: np.array([(r[0] == "b") * 10.0 + float(r[1]) for r in Z]), X, 0)
    assert out["grid"][0].tolist() == ["a", "b"]
    np.testing.assert_allclose(out["average"], [2.0, 12.0])


@pytest.mark.parametrize("features", [(0, 1), (1, 0)])
def test_two_way_pd_of_a_categorical_and_a_numeric_column_keeps_each_columns_type(features):
    rng = np.random.default_rng(3)
    X = np.empty((40, 3), dtype=object)
    X[:, 0] = rng.choice(["a", "b", "c"], size=40)
    X[:, 1] = rng.normal(size=40)
    X[:, 2] = rng.normal(size=40)
    level = {"a": 0.0, "b": 1.0, "c": 5.0}

    def predict(Z):
        assert all(isinstance(v, str) for v in Z[:, 0]) and all(isinstance(v, float) for v in Z[:, 1])
        return np.array([level[r[0]] * r[1] + r[2] for r in Z])

    out = partial_dependence(predict, X, features, grid_resolution=6)
    by_feature = dict(zip(features, out["grid"]))
    assert by_feature[0].tolist() == ["a", "b", "c"] and by_feature[1].dtype == np.float64 and by_feature[1].size == 6
    expected = (
        np.outer([level[c] for c in by_feature[0]], by_feature[1]) + X[:, 2].mean()
    )  # PD(c, v) = level(c) v + E x3
    np.testing.assert_allclose(out["average"], expected if features == (0, 1) else expected.T, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("features", [1, (0, 2)])
def test_agrees_with_scikit_learn_brute_force(features):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 3))
    y = X[:, 0] * X[:, 1] + np.sin(3 * X[:, 2]) + 0.1 * rng.normal(size=80)
    model = GradientBoostingRegressor(n_estimators=20, random_state=0).fit(X, y)
    ours = partial_dependence(model.predict, X, features, grid_resolution=12)
    feats = [features] if np.isscalar(features) else list(features)
    ref = sk_partial_dependence(model, X, feats, grid_resolution=12, method="brute", kind="both")
    for a, b in zip(ours["grid"], ref["grid_values"]):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    np.testing.assert_allclose(ours["average"], ref["average"][0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours["individual"], ref["individual"][0], rtol=1e-12, atol=1e-12)


def test_bad_feature_index():
    with pytest.raises(ValueError, match=r"features must be column indices in \[0, 2\)"):
        partial_dependence(lambda Z: Z[:, 0], np.zeros((3, 2)), 5)


def test_plotting_position_quantiles_equal_scipy_mquantiles_bit_for_bit():
    from scipy.stats.mstats import mquantiles

    from mllib.explain.partial_dependence import plotting_position_quantiles

    rng = np.random.default_rng(3)
    for n in (2, 3, 7, 100, 1001):
        x = rng.normal(size=n)
        for p in ((0.05, 0.95), (0.0, 1.0), (0.5, 0.25), tuple(rng.uniform(size=2))):
            np.testing.assert_array_equal(plotting_position_quantiles(x, p), np.asarray(mquantiles(x, prob=p)))
