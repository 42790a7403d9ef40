"""An additive model's shape functions read in the file's own terms (pipeline/steps/shape_functions.py): every row's
prediction is the intercept plus its columns' additions read off the shapes (at the row's own value, level or missing
entry) plus the pairwise terms, exactly; a category's shape is by level name and a number's in raw units; a
regressor's are in the target's units; any other model has none."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from conftest import REPO

from mllib.additive import ExplainableBoostingClassifier, ExplainableBoostingRegressor
from mllib.base import MixedMatrix
from mllib.linear import LogisticRegression
from mllib.regression import StandardizedTarget
from pipeline.core.build import feature_transformer
from pipeline.steps.explanations import raw_column_of
from pipeline.steps.shape_functions import additive_shapes

NAMES = ["age", "income", "plan"]


def mixed_rows(n=600, seed=0):
    """Few distinct numbers (every one is probed), a gap in income (a missing indicator), three plan levels and a
    gap in plan (its own level)."""
    rng = np.random.default_rng(seed)
    age = rng.integers(20, 60, n).astype(float)
    income = rng.choice([10.0, 20.0, 30.0, 40.0, 50.0], n)
    income[:40] = np.nan
    plan = rng.choice(["basic", "plus", "premium"], n).astype(object)
    plan[40:70] = None
    signal = 0.05 * (age - 40) + np.where(plan == "premium", 1.0, 0.0) - 0.02 * np.nan_to_num(income, nan=30.0)
    return MixedMatrix(np.column_stack([age, income]), plan[:, None]), signal, rng


def fitted(model, y):
    X, _, _ = mixed_rows()
    cfg = yaml.safe_load((REPO / "params.yaml").read_text())["features"]
    transformer = feature_transformer(cfg, NAMES[:2], NAMES[2:], 0).fit(X)
    Z = transformer.transform(X)
    model.fit(Z, y)
    owners = raw_column_of(list(transformer.get_feature_names_out(NAMES)), NAMES)
    return X, Z, transformer, owners, additive_shapes(model, transformer, X, NAMES, owners)


def read_off(shapes: dict, X: MixedMatrix) -> np.ndarray:
    """Each row's intercept plus its columns' additions, looked up on the shapes at the row's own entries."""
    total = np.full(len(X), shapes["intercept"][0])
    by_name = {t["feature"]: t for t in shapes["terms"]}
    for c, name in enumerate(NAMES):
        shape = by_name[name]
        column = X.numeric[:, c] if c < X.n_numeric else X.labels[:, c - X.n_numeric]
        for i, v in enumerate(column):
            if v is None or (isinstance(v, float) and np.isnan(v)):
                total[i] += shape["missing"]
            else:
                total[i] += shape["value"][shape["x"].index(v)]
    return total


def test_rows_add_up_from_their_shapes_and_pairs():
    X, signal, rng = mixed_rows()
    y = (signal + rng.logistic(size=len(signal)) > 0).astype(int)
    model = ExplainableBoostingClassifier(interactions=2)
    X, Z, _, _, shapes = fitted(model, y)
    assert shapes["output"] == "log-odds of the positive class" and len(shapes["pairs"]) == 2
    pairs = model.term_contributions(Z)[:, model.n_features_in_ :].sum(axis=1)
    np.testing.assert_allclose(read_off(shapes, X) + pairs, model.decision_function(Z), atol=1e-10)
    plan = next(t for t in shapes["terms"] if t["feature"] == "plan")
    assert plan["kind"] == "categorical" and set(plan["x"]) == {"basic", "plus", "premium"}
    assert plan["value"][plan["x"].index("premium")] > max(plan["value"][plan["x"].index(v)] for v in ("basic", "plus"))
    income = next(t for t in shapes["terms"] if t["feature"] == "income")
    assert income["x"] == [10.0, 20.0, 30.0, 40.0, 50.0] and income["missing"] is not None  # raw units
    assert all(b >= 0 for t in shapes["terms"] for b in t["band"])
    assert [t["importance"] for t in shapes["terms"]] == sorted(
        (t["importance"] for t in shapes["terms"]), reverse=True
    )


def test_a_regressor_s_shapes_are_in_the_target_s_units():
    X, signal, rng = mixed_rows()
    y = 1000.0 + 200.0 * signal + 20.0 * rng.normal(size=len(signal))
    model = StandardizedTarget(ExplainableBoostingRegressor(interactions=0))
    X, Z, _, _, shapes = fitted(model, y)
    assert shapes["output"] == "the target's units" and shapes["pairs"] == []
    np.testing.assert_allclose(read_off(shapes, X), model.predict(Z), rtol=1e-12)
    assert shapes["intercept"][0] == pytest.approx(y.mean(), rel=0.01)


def test_a_model_that_is_not_additive_has_no_shape_functions():
    _, signal, rng = mixed_rows()
    assert fitted(LogisticRegression(), (signal > 0).astype(int))[-1] is None
