"""Agreement with InterpretML's ExplainableBoosting* (the reference implementation of Lou et al. / Nori et al.;
a test peer only) on matched settings (tests/interpret_peer.py says which and what cannot be matched): held-out AUC
or R^2 within 0.01, and the main effects of the important features highly correlated row by row."""

import numpy as np
import pytest
from interpret_peer import interpret_model
from sklearn.datasets import load_breast_cancer, load_wine, make_friedman1
from sklearn.metrics import r2_score, roc_auc_score
from sklearn.model_selection import train_test_split

from mllib.additive import ExplainableBoostingClassifier, ExplainableBoostingRegressor

glassbox = pytest.importorskip("interpret.glassbox")

SETTINGS = dict(learning_rate=0.05, outer_bags=8, max_leaves=3, min_samples_leaf=4, interactions=5,
                max_rounds=2000, early_stopping_rounds=20)  # fmt: skip


def main_effects_agree(ours, theirs, X, top=5):
    """Row-by-row correlation of the two models' main effects, for the `top` features interpret finds most
    important (mean |contribution| over the rows); multiclass: every class's."""
    importance = np.abs(theirs.eval_terms(X)).mean(axis=0)
    mains = [t for t, f in enumerate(theirs.term_features_) if len(f) == 1]
    ranked = sorted(mains, key=lambda t: -np.atleast_1d(importance[t]).mean())[:top]
    mine = ours.term_contributions(X)
    reference = theirs.eval_terms(X)
    return [np.corrcoef(mine[:, theirs.term_features_[t][0]].ravel(), reference[:, t].ravel())[0, 1] for t in ranked]


def test_breast_cancer_binary():
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    ours = ExplainableBoostingClassifier(**SETTINGS).fit(X_train, y_train)
    theirs = interpret_model(False, X.shape[1], SETTINGS).fit(X_train, y_train)
    auc_ours = roc_auc_score(y_test, ours.predict_proba(X_test)[:, 1])
    auc_theirs = roc_auc_score(y_test, theirs.predict_proba(X_test)[:, 1])
    assert abs(auc_ours - auc_theirs) < 0.01, (auc_ours, auc_theirs)
    assert min(main_effects_agree(ours, theirs, X_train)) > 0.8


def test_synthetic_regression():
    X, y = make_friedman1(n_samples=3000, n_features=8, noise=0.5, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    ours = ExplainableBoostingRegressor(**SETTINGS).fit(X_train, y_train)
    theirs = interpret_model(True, X.shape[1], SETTINGS).fit(X_train, y_train)
    r2_ours, r2_theirs = r2_score(y_test, ours.predict(X_test)), r2_score(y_test, theirs.predict(X_test))
    assert abs(r2_ours - r2_theirs) < 0.01, (r2_ours, r2_theirs)
    assert min(main_effects_agree(ours, theirs, X_train)) > 0.95


def test_wine_three_classes():
    X, y = load_wine(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    settings = {**SETTINGS, "interactions": 0}
    ours = ExplainableBoostingClassifier(**settings).fit(X_train, y_train)
    theirs = interpret_model(False, X.shape[1], settings).fit(X_train, y_train)
    auc_ours = roc_auc_score(y_test, ours.predict_proba(X_test), multi_class="ovr")
    auc_theirs = roc_auc_score(y_test, theirs.predict_proba(X_test), multi_class="ovr")
    assert abs(auc_ours - auc_theirs) < 0.01, (auc_ours, auc_theirs)
    assert min(main_effects_agree(ours, theirs, X_train)) > 0.8
