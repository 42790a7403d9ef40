"""pipeline.steps.explanations: encoded columns trace back to raw columns (one-hot levels, missing indicators), sums
of attributions keep additivity, and the automatic choice of the Shapley method."""

import numpy as np
from conftest import classification_target

from mllib.linear import LogisticRegression
from mllib.neural import MLPClassifier
from pipeline.steps.explanations import EXPLAINED, choose_method, raw_column_of, to_raw

BINARY = classification_target(2)


def test_encoded_names_map_to_their_raw_column():
    raw = ["income", "educdec", "plan", "plan_type"]
    encoded = ["income", "educdec", "educdec_missing", "plan=1", "plan=2", "plan_type=a"]
    assert raw_column_of(encoded, raw).tolist() == [0, 1, 1, 2, 2, 3]  # longest match wins for plan_type
    assert raw_column_of(["pc1", "pc2"], raw) is None
    assert raw_column_of(["income income"], raw) is None  # a product of columns cannot be assigned


def test_summing_encoded_attributions_keeps_their_total():
    values = np.arange(12.0).reshape(2, 6)
    owners = np.array([0, 1, 1, 2, 2, 3])
    out = to_raw(values, owners, 4)
    np.testing.assert_array_equal(out, [[0, 3, 7, 5], [6, 15, 19, 11]])
    np.testing.assert_array_equal(out.sum(axis=1), values.sum(axis=1))


def test_auto_method():
    X, y = np.random.default_rng(0).normal(size=(30, 2)), np.arange(30) % 2
    owners = np.array([0, 1])
    assert choose_method("auto", LogisticRegression().fit(X, y), owners) == "linear"
    assert choose_method("auto", MLPClassifier(max_iter=2).fit(X, y), owners) == "kernel"
    assert choose_method("auto", LogisticRegression().fit(X, y), None) == "kernel"  # untraceable features
    assert choose_method("exact", LogisticRegression().fit(X, y), owners) == "exact"

    class Forest:
        def tree_ensemble(self):
            return {}

    assert choose_method("auto", Forest(), owners) == "tree"


def test_lrp_z_plus_bounds_negative_inputs_by_the_training_and_explained_range():
    from pipeline.steps.explanations import input_bounds, relevance_attributions

    rng = np.random.default_rng(1)
    train = rng.normal(size=(100, 3))
    assert input_bounds(np.abs(train[:5]), np.abs(train)) is None  # non-negative inputs: plain z+
    low, high = input_bounds(train[:5], train)
    np.testing.assert_array_equal(low, train.min(axis=0))
    np.testing.assert_array_equal(high, train.max(axis=0))
    rows = np.vstack([train[:19], 3 * train.max(axis=0) * [1, -1, 1]])  # a test row beyond the training range
    low, high = input_bounds(rows, train)
    np.testing.assert_array_equal(low, np.minimum(train.min(axis=0), rows.min(axis=0)))
    np.testing.assert_array_equal(high, np.maximum(train.max(axis=0), rows.max(axis=0)))
    assert high[0] == rows[-1, 0] and low[1] == rows[-1, 1]

    class Identity:
        def transform(self, X):
            return np.asarray(X, dtype=np.float64)

    y = (train[:, 0] - train[:, 1] > 0).astype(int)
    model = MLPClassifier(hidden_layer_sizes=(16,), max_iter=50).fit(train, y)
    owners = np.array([0, 1, 2])
    out = relevance_attributions("lrp_z_plus", model, Identity(), rows, owners, 1e-6, train, EXPLAINED[BINARY.task])
    assert np.median(out["conservation_error"]) < 1e-12  # z+ and z^B conserve the logit, biases and all
    basic = relevance_attributions("lrp_basic", model, Identity(), rows, owners, 1e-6, train, EXPLAINED[BINARY.task])
    assert not np.allclose(basic["values"], out["values"])


def test_surrogate_rules_read_in_the_files_own_units_and_category_names():
    """The issue's case: rules read "weight <= -0.889885" in standardized units beside the raw column name. Each split
    of the surrogate is read back through the fitted features: a scaled column's threshold in its raw units (the
    training rows fall on the same sides of it), a one-hot column as the category, a missing indicator as missing /
    present; the model-unit rule is kept beside."""
    import yaml
    from conftest import REPO

    from mllib.base import MixedMatrix
    from pipeline.core.build import feature_transformer
    from pipeline.steps.explanations import RawUnits, surrogate_summary

    rng = np.random.default_rng(0)
    n = 400
    weight = rng.normal(3000, 500, n)
    weight[:20] = np.nan  # gaps: a weight_missing indicator
    origin = rng.choice(["usa", "europe", "japan"], n).astype(object)
    X = MixedMatrix(weight[:, None], origin[:, None])
    cfg = yaml.safe_load((REPO / "params.yaml").read_text())["features"]
    transformer = feature_transformer(cfg, ["weight"], ["origin"], 0).fit(X)
    units = RawUnits(transformer, ["weight", "origin"], X)
    z = transformer.transform(X)[:, 0]
    slope, intercept = units.affine("weight")
    np.testing.assert_allclose(np.nan_to_num(weight, nan=np.nanmedian(weight)) * slope + intercept, z, atol=1e-9)
    threshold = float(np.quantile(z, 0.3))
    raw = (threshold - intercept) / slope
    assert units.condition("weight", "<=", threshold) == f"weight <= {raw:.6g}"
    assert units.condition("origin=japan", ">", 0.5) == "origin = japan"
    assert units.condition("origin=japan", "<=", 0.5) == "origin is not japan"
    assert units.condition("weight_missing", ">", 0.5) == "weight is missing"
    assert units.condition("pc1", "<=", 0.2) == "pc1 <= 0.2 (model units)"

    class Predictor:  # decides by the raw weight, as a model of it would
        features = transformer

        @staticmethod
        def predict(rows):
            return (np.nan_to_num(rows.numeric[:, 0], nan=3000.0) > 3200).astype(int)

    summary = surrogate_summary(Predictor, X, X, ["weight", "origin"], True, 1, 10_000, 0)
    (left, right) = sorted(summary["rules"], key=lambda r: r["conditions"][0])
    cut = float(left["conditions"][0].split(" <= ")[1])
    assert left["conditions"][0].startswith("weight <= ") and 3150 < cut < 3250  # raw units: grams, not z-scores
    assert left["conditions_in_model_features"][0].startswith("weight <= ") and abs(
        float(left["conditions_in_model_features"][0].split(" <= ")[1])
    ) < 2  # fmt: skip
