"""Feature selection: the same columns as scikit-learn's selectors on the same splits and scores (a least-squares
model, whose CV R^2 agrees to ~1e-12, so the greedy choices must agree exactly), the auto stopping rule, the
permutation rule, an empty selection refused, and selection fitted inside each fold never sees its validation rows."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_selection import SequentialFeatureSelector
from sklearn.feature_selection import VarianceThreshold as SkVarianceThreshold
from sklearn.linear_model import LinearRegression as SkLinearRegression

from mllib.base import Pipeline
from mllib.feature_selection import PermutationSelector, SequentialSelector, VarianceThreshold
from mllib.metrics import get_scorer
from mllib.model_selection import KFold, evaluate_candidates
from mllib.regression import LinearRegression


def signal(seed=0, n=200, p=8):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = 2 * X[:, 1] + X[:, 4] - 0.5 * X[:, 6] + 0.5 * rng.normal(size=n)
    return X, y


@pytest.mark.parametrize("direction", ["forward", "backward"])
@pytest.mark.parametrize("n_features", [1, 3, 5])
@pytest.mark.parametrize("seed", [0, 1])
def test_sequential_selection_matches_scikit_learn(direction, n_features, seed):
    X, y = signal(seed)
    splits = list(KFold(4, shuffle=True, random_state=seed).split(X))
    ours = SequentialSelector(
        "linear_regression", direction=direction, n_features=n_features, cv=splits, scoring="r2"
    ).fit(X, y)
    theirs = SequentialFeatureSelector(
        SkLinearRegression(), n_features_to_select=n_features, direction=direction, cv=splits, scoring="r2"
    ).fit(X, y)
    np.testing.assert_array_equal(ours.support_, theirs.get_support())
    assert ours.transform(X).shape == (200, n_features)


def test_auto_stops_when_the_next_step_does_not_improve_by_tol():
    X, y = signal()
    splits = list(KFold(4, shuffle=True, random_state=0).split(X))
    selector = SequentialSelector("linear_regression", cv=splits, scoring="r2", tol=0.01).fit(X, y)
    assert set(np.flatnonzero(selector.support_)) == {1, 4, 6}  # the three columns y is made of
    scores = [step["score"] for step in selector.history_]
    assert all(b - a >= 0.01 for a, b in zip(scores, scores[1:]))
    backward = SequentialSelector("linear_regression", direction="backward", cv=splits, scoring="r2", tol=-0.01).fit(
        X, y
    )  # removals may cost up to 0.01 of R^2
    assert set(np.flatnonzero(backward.support_)) == {1, 4, 6}


def test_variance_threshold_matches_scikit_learn_and_ignores_missing_values():
    X, _ = signal()
    X[:, 2] = 3.0
    X[:, 5] *= 0.05
    for threshold in (0.0, 0.01, 0.5):
        np.testing.assert_array_equal(
            VarianceThreshold(threshold).fit(X).support_, SkVarianceThreshold(threshold).fit(X).get_support()
        )
    gappy = X.copy()
    gappy[::3, 0] = np.nan
    assert VarianceThreshold().fit(gappy).variances_[0] == pytest.approx(np.nanvar(X[:, 0][np.arange(200) % 3 != 0]))


def test_permutation_selection_keeps_the_columns_the_model_uses():
    X, y = signal()
    selector = PermutationSelector("linear_regression", cv=4, threshold=0.01, random_state=0).fit(X, y)
    assert set(np.flatnonzero(selector.support_)) == {1, 4, 6}
    assert selector.get_feature_names_out([f"x{j}" for j in range(8)]) == ["x1", "x4", "x6"]


@pytest.mark.parametrize(
    "selector,message",
    [
        (VarianceThreshold(threshold=100.0), "VarianceThreshold would keep zero of the 8 features"),
        (
            PermutationSelector("linear_regression", threshold=10.0, random_state=0),
            "PermutationSelector would keep zero",
        ),
    ],
)
def test_a_selection_that_keeps_nothing_is_refused(selector, message):
    X, y = signal()
    with pytest.raises(ValueError, match=message):
        selector.fit(X, y)


def test_selection_inside_a_fold_never_sees_its_validation_rows():
    """Column 7 equals the target on the validation rows and is noise on the fitting rows: a selection fitted on all
    rows would take it first; fitted inside the fold it must not."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 4))
    y = X[:, 1] + 1.5 * rng.normal(size=200)  # column 1 explains about a third of the variance
    fit, valid = np.arange(100), np.arange(100, 200)
    X[valid, 3] = y[valid]
    leaky = SequentialSelector("linear_regression", n_features=1, cv=3, scoring="r2", random_state=0).fit(X, y)
    assert np.flatnonzero(leaky.support_).tolist() == [3]  # the trap works: seen whole, column 3 wins

    def pipeline():
        return Pipeline(
            [
                ("select", SequentialSelector("linear_regression", n_features=1, cv=3, scoring="r2", random_state=0)),
                ("model", LinearRegression()),
            ]
        )

    [result] = evaluate_candidates(pipeline(), [{}], [(X[fit], y[fit], X[valid], y[valid])], get_scorer("r2"))
    assert np.flatnonzero(pipeline().fit(X[fit], y[fit]).steps[0][1].support_).tolist() == [1]
    assert result["mean_valid_score"] < 0.6  # column 1 alone; with column 3 the validation R^2 would be 1


def test_groups_reach_the_inner_folds_through_a_pipeline():
    X, y = signal()
    groups = np.repeat(np.arange(40), 5)
    seen = []

    class Recording(SequentialSelector):
        def fit(self, X, y, groups=None):
            seen.append(groups)
            return super().fit(X, y, groups=groups)

    Pipeline(
        [("select", Recording("linear_regression", n_features=2, scoring="r2")), ("model", LinearRegression())]
    ).fit(X, y, groups=groups)
    np.testing.assert_array_equal(seen[0], groups)
