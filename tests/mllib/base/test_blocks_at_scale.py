"""Fits from blocks equal fits on the rows put together at 200,000 rows (issue 64: partitioned fits equal in-memory
fits, trees to the bit and linear models to 1e-9, checked in CI at this size). At this size the blocks' sums run over
tens of thousands of rows each and the continuous columns have far more distinct values than bins (quantile
thresholds), which the small files of test_blocks.py do not reach. The rows are synthetic, shaped like the default
data's features (standardized continuous columns, a skewed one, counts, indicators), in four blocks of unequal size
as a partitioned file's parts would be."""

from __future__ import annotations

import numpy as np
import pytest

from mllib.base import RowBlocks
from mllib.gradient_boosting import GradientBoostingClassifier, GradientBoostingRegressor
from mllib.linear import LogisticRegression
from mllib.regression import Ridge

N_ROWS = 200_000


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(64)
    X = np.column_stack(
        [
            rng.normal(size=(N_ROWS, 6)),
            np.log1p(rng.lognormal(0.0, 1.5, size=N_ROWS)),  # skewed
            rng.poisson(2.0, size=(N_ROWS, 2)).astype(np.float64),  # counts: few distinct values
            rng.integers(0, 2, size=(N_ROWS, 3)).astype(np.float64),  # indicators
        ]
    )
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    signal = X[:, 0] - 0.7 * X[:, 1] + 0.5 * X[:, 6] * X[:, 9] + np.sin(2 * X[:, 2]) + 0.3 * X[:, 7]
    noisy = signal + rng.logistic(size=N_ROWS)
    return {
        "X": X,
        "binary": (noisy > 0.4).astype(int),
        "classes": np.digitize(noisy, [-0.8, 0.9]),
        "y": signal + rng.normal(size=N_ROWS),
    }


def blocks_of(X, y):
    cuts = [0, 20_000, 110_000, 170_000, N_ROWS]
    return RowBlocks((X[a:b], y[a:b], None) for a, b in zip(cuts[:-1], cuts[1:]))


@pytest.mark.parametrize(
    ("target", "settings"), [("binary", {"lam": 1.0}), ("classes", {"lam": 1.0, "solver": "newton"})]
)
def test_logistic_regression(rows, target, settings):
    whole = LogisticRegression(**settings).fit(rows["X"], rows[target])
    parts = LogisticRegression(**settings).fit_blocks(blocks_of(rows["X"], rows[target]))
    np.testing.assert_allclose(parts.coef_, whole.coef_, rtol=0, atol=1e-9)
    np.testing.assert_allclose(parts.intercept_, whole.intercept_, rtol=0, atol=1e-9)
    assert parts.n_iter_ == whole.n_iter_


def test_ridge(rows):
    whole = Ridge(lam=10.0).fit(rows["X"], rows["y"])
    parts = Ridge(lam=10.0).fit_blocks(blocks_of(rows["X"], rows["y"]))
    np.testing.assert_allclose(parts.coef_, whole.coef_, rtol=0, atol=1e-9)
    np.testing.assert_allclose(parts.intercept_, whole.intercept_, rtol=0, atol=1e-9)


@pytest.mark.filterwarnings("ignore:.*early stopping did not stop")  # 40 iterations: still improving, as intended
@pytest.mark.parametrize("target", ["binary", "classes", "y"])
def test_gradient_boosting_grows_the_same_trees(rows, target):
    """The pipeline's settings for the model (early stopping on a held-out tenth, 31 leaves), 40 iterations."""
    cls = GradientBoostingRegressor if target == "y" else GradientBoostingClassifier
    settings = dict(max_iter=40, early_stopping=True, n_iter_no_change=5)
    whole = cls(**settings).fit(rows["X"], rows[target])
    parts = cls(**settings).fit_blocks(blocks_of(rows["X"], rows[target]))
    assert whole.bin_thresholds_.size > 1_000  # quantile bins: the continuous columns have more values than bins
    for name in ("bin_thresholds_", "node_feature_", "node_threshold_", "node_value_", "validation_score_"):
        np.testing.assert_array_equal(getattr(parts, name), getattr(whole, name), err_msg=name)
    X_new = rows["X"][:5_000] + 0.01
    predict = "predict" if target == "y" else "predict_proba"
    np.testing.assert_array_equal(getattr(parts, predict)(X_new), getattr(whole, predict)(X_new))


@pytest.mark.filterwarnings("ignore:.*stopped at max_rounds")  # 60 rounds: still improving, as intended
@pytest.mark.parametrize("target", ["binary", "y"])
def test_explainable_boosting_builds_the_same_tables(rows, target):
    """The additive model at the pipeline's settings but two bags and five pairs (time), 60 rounds at most."""
    from mllib.additive import ExplainableBoostingClassifier, ExplainableBoostingRegressor

    cls = ExplainableBoostingRegressor if target == "y" else ExplainableBoostingClassifier
    settings = dict(outer_bags=2, interactions=5, max_rounds=60)
    whole = cls(**settings).fit(rows["X"], rows[target])
    parts = cls(**settings).fit_blocks(blocks_of(rows["X"], rows[target]))
    assert whole.bin_edges_.size > 1_000
    for name in ("bin_edges_", "interaction_bin_edges_", "term_scores_", "n_rounds_", "intercept_"):
        np.testing.assert_array_equal(getattr(parts, name), getattr(whole, name), err_msg=name)
    assert parts.term_features_ == whole.term_features_ and len(whole.term_features_) == 12 + 5
