"""pipeline/assessment.py: the inflation's Welch interval against scipy, its sign for losses, the diagnosis
thresholds, and the row-level CV refitting the features per fold (a leak through the features would show)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mllib.linear import LogisticRegression
from mllib.metrics import get_scorer
from mllib.preprocessing import StandardScaler
from pipeline.assessment import diagnosis, inflation, leakage_sentence, row_level_scores


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


@pytest.mark.parametrize(
    "train, valid, std, verdict",
    [
        ([0.99, 0.98, 0.97], [0.70, 0.74, 0.78], [0.01, 0.01, 0.01], "high variance"),
        ([0.76, 0.755, 0.752], [0.745, 0.748, 0.749], [0.01, 0.01, 0.01], "high bias"),
        ([0.99, 0.98, 0.97], [0.70, 0.74, 0.745], [0.01, 0.01, 0.01], "neither"),
    ],
)
def test_diagnosis_thresholds(train, valid, std, verdict):
    curve = {"train_mean": train, "valid_mean": valid, "valid_std": std}
    assert diagnosis(curve, greater_is_better=True)["verdict"].startswith(verdict)


def test_row_level_cv_refits_the_features_on_each_fold():
    """A feature step that records the rows it was fitted on: every fold's fit sees only that fold's training rows."""
    fitted_on = []

    class Recording(StandardScaler):
        def fit(self, X, y=None):
            fitted_on.append(X.shape[0])
            return super().fit(X, y)

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(100, 3)), rng.integers(0, 2, size=100)
    scores = row_level_scores(X, y, Recording, LogisticRegression, get_scorer("roc_auc"), 4, seed=1, regression=False)
    assert len(scores) == 4 and fitted_on == [75, 75, 75, 75]
