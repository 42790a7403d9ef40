"""pipeline.steps.explanations: encoded columns trace back to raw columns (one-hot levels, missing indicators), sums
of attributions keep additivity, and the automatic choice of the Shapley method."""

import numpy as np
from conftest import classification_target

from mllib.linear import LogisticRegression
from mllib.neural import MLPClassifier
from pipeline.steps.explanations import choose_method, raw_column_of, to_raw

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
    out = relevance_attributions("lrp_z_plus", model, Identity(), rows, owners, 1e-6, train, BINARY.explained)
    assert np.median(out["conservation_error"]) < 1e-12  # z+ and z^B conserve the logit, biases and all
    basic = relevance_attributions("lrp_basic", model, Identity(), rows, owners, 1e-6, train, BINARY.explained)
    assert not np.allclose(basic["values"], out["values"])
