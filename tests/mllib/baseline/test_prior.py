"""The no-skill baselines against their closed forms and scikit-learn's DummyClassifier / DummyRegressor."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.dummy import DummyClassifier, DummyRegressor
from sklearn.metrics import log_loss, r2_score, roc_auc_score

from mllib.baseline import MeanRegressor, PriorClassifier


def test_prior_classifier_closed_forms_and_scikit_learn():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 3)), rng.choice(["a", "b", "c"], size=200, p=[0.5, 0.3, 0.2])
    ours, ref = PriorClassifier().fit(X, y), DummyClassifier(strategy="prior").fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=1e-15)
    assert (ours.predict(X) == ref.predict(X)).all() and ours.predict(X)[0] == "a"
    prior = ours.class_prior_
    assert log_loss(y, ours.predict_proba(X)) == pytest.approx(-np.sum(prior * np.log(prior)))
    binary = (y == "a").astype(int)
    assert roc_auc_score(binary, PriorClassifier().fit(X, binary).predict_proba(X)[:, 1]) == 0.5


def test_mean_regressor_closed_forms():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(100, 2)), rng.normal(loc=5, size=100)
    model = MeanRegressor().fit(X, y)
    np.testing.assert_allclose(model.predict(X), DummyRegressor().fit(X, y).predict(X))
    assert r2_score(y, model.predict(X)) == pytest.approx(0.0, abs=1e-12)
    w = np.r_[np.ones(50), 3 * np.ones(50)]
    assert MeanRegressor().fit(X, y, sample_weight=w).mean_ == pytest.approx(np.average(y, weights=w))
