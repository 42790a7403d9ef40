"""pipeline/steps/assessment.py: the inflation's Welch interval against scipy, its sign for losses, the diagnosis
thresholds, and the row-level CV refitting the features per fold (a leak through the features would show)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mllib.linear import LogisticRegression
from mllib.metrics import get_scorer
from mllib.preprocessing import StandardScaler
from pipeline.core.compute import run_plan
from pipeline.steps.assessment import diagnosis, inflation, leakage_sentence, refitted_scores, shuffled_splits


def test_inflation_is_the_mean_difference_with_welchs_interval():
    row, grouped = [0.82, 0.81, 0.83, 0.80, 0.82], [0.76, 0.78, 0.75, 0.77, 0.76]
    out = inflation(row, grouped, greater_is_better=True)
    assert out["inflation"] == pytest.approx(np.mean(row) - np.mean(grouped))
    welch = stats.ttest_ind(row, grouped, equal_var=False)
    low, high = welch.confidence_interval(0.95)
    assert out["interval"] == pytest.approx([low, high], rel=1e-10)
    assert "would have claimed" in leakage_sentence(out, "roc_auc", "person")
    loss = inflation([0.40, 0.41, 0.39], [0.45, 0.46, 0.44], greater_is_better=False)
    assert loss["inflation"] == pytest.approx(0.05)  # a lower row-level loss flatters the model too
    none = inflation([0.75, 0.77, 0.76], [0.76, 0.75, 0.77], greater_is_better=True)
    assert none["interval"][0] < 0 < none["interval"][1] and "no measurable" in leakage_sentence(none, "auc", "person")


def _curve(train_full, valid_full, valid_half):
    """Per-split scores at half and full size (the train score at half size does not enter the diagnosis)."""
    return {
        "train_per_split": [[t, t] for t in train_full],
        "valid_per_split": list(map(list, zip(valid_half, valid_full))),
    }


@pytest.mark.parametrize(
    "train, valid, valid_half, outcome",
    [
        # a clear gap on every split, the validation score still rising on every split
        (
            [0.99, 0.98, 0.99, 0.98, 0.99],
            [0.74, 0.75, 0.73, 0.74, 0.76],
            [0.70, 0.71, 0.69, 0.70, 0.72],
            "high_variance",
        ),
        # train and validation agree, the curve is flat: no overfitting (the rest is bias or noise)
        (
            [0.752, 0.751, 0.753, 0.750, 0.752],
            [0.748, 0.749, 0.750, 0.747, 0.749],
            [0.747, 0.748, 0.749, 0.747, 0.748],
            "no_overfitting",
        ),
        # training AUC 1.0 on every split but validation scores all over the place: the old rule said "high bias"
        ([1.0, 1.0, 1.0, 1.0, 1.0], [0.95, 0.55, 0.99, 0.60, 0.97], [0.9, 0.6, 0.95, 0.55, 0.96], "inconclusive"),
        # the panel of few groups: train R^2 0.78, validation -2.03 +- 3.21 (the issue's grunfeld file)
        ([0.80, 0.75, 0.79, 0.78, 0.78], [0.60, -7.5, 0.65, -3.9, 0.0], [0.5, -8.0, 0.6, -4.0, -0.3], "inconclusive"),
    ],
)
def test_diagnosis_has_an_inconclusive_outcome(train, valid, valid_half, outcome):
    result = diagnosis(_curve(train, valid, valid_half), greater_is_better=True)
    assert result.outcome == outcome
    gaps = np.subtract(train, valid)
    assert result.gap_interval == pytest.approx(list(stats.t.interval(0.95, 4, gaps.mean(), stats.sem(gaps))))
    assert result.verdict.startswith(
        {"high_variance": "high variance", "no_overfitting": "no overfitting", "inconclusive": "inconclusive"}[outcome]
    )


def test_diagnosis_of_a_loss_flips_the_sign():
    # log loss: the train loss below the validation loss is the gap
    train, valid = [0.10, 0.11, 0.10, 0.09, 0.10], [0.45, 0.46, 0.44, 0.45, 0.47]
    result = diagnosis(_curve(train, valid, [0.5, 0.5, 0.5, 0.5, 0.5]), greater_is_better=False)
    assert result.outcome == "high_variance" and result.train_valid_gap == pytest.approx(0.354)
    assert "more data would help" in result.verdict  # the loss still falls with more data


def test_refitted_scores_refit_the_features_on_each_fold():
    """A feature step that records the rows it was fitted on: every fold's fit sees only that fold's training rows."""
    fitted_on = []

    class Recording(StandardScaler):
        def fit(self, X, y=None):
            fitted_on.append(X.shape[0])
            return super().fit(X, y)

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(100, 3)), rng.integers(0, 2, size=100)
    splits = [(np.setdiff1d(np.arange(100), v), v) for v in np.array_split(np.arange(100), 4)]
    scores = run_plan(refitted_scores(X, y, Recording, LogisticRegression, get_scorer("roc_auc"), splits, "a test"))
    assert len(scores) == 4 and fitted_on == [75, 75, 75, 75]


@pytest.mark.parametrize("grouped", [False, True])
def test_shuffled_splits_keep_each_splits_rows_and_sizes(grouped):
    """The temporal leakage estimate's random counterpart of each forward-chaining split: the same rows, a validation
    part of the same size (by whole groups: at least as large, by less than one group), drawn without regard to
    time; seeded."""
    rng = np.random.default_rng(3)
    groups = rng.integers(0, 40, 400) if grouped else None
    time = np.sort(rng.integers(0, 20, 400))
    splits = [(np.flatnonzero(time < c), np.flatnonzero((time >= c) & (time < c + 4))) for c in (8, 12, 16)]
    shuffled = shuffled_splits(splits, groups, seed=5)
    assert len(shuffled) == 3
    for (fit, valid), (rfit, rvalid) in zip(splits, shuffled):
        np.testing.assert_array_equal(np.union1d(rfit, rvalid), np.union1d(fit, valid))
        assert not np.intersect1d(rfit, rvalid).size
        if grouped:
            assert not set(groups[rfit]) & set(groups[rvalid])
            assert len(valid) <= len(rvalid) < len(valid) + np.bincount(groups).max()
        else:
            assert len(rvalid) == len(valid)
        assert time[rfit].max() > time[rvalid].min()  # the order is gone
    again = shuffled_splits(splits, groups, seed=5)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(shuffled, again))


def test_a_column_equal_to_the_target_is_flagged_and_a_legitimate_one_is_not():
    from pipeline.steps.assessment import leaky_features, raw_column, single_feature_scores

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    X = np.column_stack([rng.normal(size=400) + 0.5 * y, y.astype(float), rng.normal(size=400)])
    splits = [(np.setdiff1d(np.arange(400), v), v) for v in np.array_split(np.arange(400), 4)]
    names = ["age", "outcome=1", "noise_missing"]
    scores = run_plan(
        single_feature_scores(lambda k: X, lambda k: names, y, splits, get_scorer("roc_auc"), "decision_tree", 0)
    )
    assert scores["outcome=1"] == 1.0 and 0.55 < scores["age"] < 0.8 and scores["noise_missing"] < 0.6
    assert [raw_column(n, ["age", "outcome", "noise"]) for n in names] == ["age", "outcome", "noise"]
    flagged = leaky_features(scores, 0.98, [], ["age", "outcome", "noise"], "roc_auc")
    assert flagged.flagged == ["outcome=1"] and "will not promote" in flagged.statement
    allowed = leaky_features(scores, 0.98, ["outcome"], ["age", "outcome", "noise"], "roc_auc")
    assert allowed.flagged == [] and allowed.legitimate == ["outcome=1"] and "legitimate" in allowed.statement
    assert leaky_features(scores, None, [], [], "").flagged == []


def test_the_validation_curve_reuses_the_searchs_scores_and_equals_a_full_refit():
    """A value the search scored on the same folds takes its scores; the rest are fitted. The rows equal a sweep that
    refits every value, for a model whose fits draw random numbers too (each fit seeded by its own random_state)."""
    from mllib.ensemble import RandomForestClassifier
    from mllib.model_selection import FoldData, evaluate_candidates
    from pipeline.steps.assessment import validation_sweep

    fits = []

    class Counted(RandomForestClassifier):
        def fit(self, X, y, sample_weight=None):
            fits.append(len(y))
            return super().fit(X, y, sample_weight)

    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 4))
    y = (X[:, 0] + rng.normal(size=240) > 0).astype(int)
    splits = [(np.flatnonzero(np.arange(240) % 3 != k), np.flatnonzero(np.arange(240) % 3 == k)) for k in range(3)]
    folds, scorer = FoldData(X, y, splits), get_scorer("roc_auc")
    model = Counted(n_estimators=5, random_state=3)
    searched = evaluate_candidates(model, [{"min_samples_leaf": 5}, {"min_samples_leaf": 20}], folds, scorer)
    values = [1, 5, 20, 40]
    fits.clear()
    full = validation_sweep(model, {}, "min_samples_leaf", values, folds, scorer)
    assert len(fits) == 4 * 3
    fits.clear()
    assert validation_sweep(model, {}, "min_samples_leaf", values, folds, scorer, searched) == full
    assert len(fits) == 2 * 3  # the two values the search did not score, on three folds
    fits.clear()
    other = validation_sweep(model, {"max_features": 4}, "min_samples_leaf", values, folds, scorer, searched)
    assert len(fits) == 4 * 3 and other != full  # another configuration: nothing matches, everything is fitted


def test_the_learning_curves_whole_split_point_is_the_searchs_fit():
    """The share 1.0 read from the search's scores (whole) equals refitting it: the curve fits with the rows' groups
    as the search does (whole groups held out to stop early), so the two are the same fit; without the groups the
    early-stopping hold-out differs and so does the score (the curve's last point drifted from the CV score)."""
    from mllib.gradient_boosting import GradientBoostingClassifier
    from mllib.model_selection import FoldData, evaluate_candidates
    from pipeline.steps.assessment import learning_curves

    rng = np.random.default_rng(4)
    n = 600
    groups = np.repeat(np.arange(150), 4)
    X = rng.normal(size=(n, 3)) + rng.normal(size=(150, 3))[groups]
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=n) > 0).astype(int)
    fold_of = groups % 3
    splits = [(np.flatnonzero(fold_of != j), np.flatnonzero(fold_of == j)) for j in range(3)]
    scorer = get_scorer("roc_auc")

    def make_model():
        return GradientBoostingClassifier(early_stopping=True, max_iter=60, random_state=2)

    searched = evaluate_candidates(make_model(), [{}], FoldData(X, y, splits, groups), scorer)[0]
    whole = (searched["train_scores"].tolist(), searched["valid_scores"].tolist())
    args = (lambda k: X, y, splits, make_model, scorer, [0.5, 1.0], 0)
    refitted = run_plan(learning_curves(*args, groups=groups))
    read = run_plan(learning_curves(*args, groups=groups, whole=whole))
    assert read == refitted
    assert [row[1] for row in refitted["valid_per_split"]] == whole[1]  # the refit's last point: the search's scores
    assert run_plan(learning_curves(*args))["valid_per_split"] != refitted["valid_per_split"]
