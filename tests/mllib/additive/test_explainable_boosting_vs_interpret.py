"""Agreement with InterpretML's ExplainableBoosting* (the reference implementation of Lou et al. / Nori et al.;
a test peer only) on matched settings: held-out AUC or R^2 within 0.01, and the main effects of the important features
highly correlated row by row.

Matched: learning rate, outer bags, leaves per main step, rows per leaf, l2, bins (255 main, 32 per pair feature),
pairs, validation share, early stopping rounds and tolerance, max rounds, min hessian; interpret's extras off
(greedy rounds, smoothing rounds with random cuts, inner bags), every column continuous. Not matchable: interpret
bins with its own quantile rule, stops on the validation loss after every term step (ours after every round),
grows pair steps as depth-2 trees (ours FAST's four quadrants) and purifies pairs into the mains; so the models
agree closely but not exactly."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine, make_friedman1
from sklearn.metrics import r2_score, roc_auc_score
from sklearn.model_selection import train_test_split

from mllib.additive import ExplainableBoostingClassifier, ExplainableBoostingRegressor

glassbox = pytest.importorskip("interpret.glassbox")

SETTINGS = dict(learning_rate=0.05, outer_bags=8, max_leaves=3, min_samples_leaf=4, interactions=5,
                max_rounds=2000, early_stopping_rounds=20)  # fmt: skip


def interpret_model(kind, n_features, **settings):
    cls = glassbox.ExplainableBoostingRegressor if kind == "regressor" else glassbox.ExplainableBoostingClassifier
    return cls(
        learning_rate=settings["learning_rate"], outer_bags=settings["outer_bags"], inner_bags=0,
        max_leaves=settings["max_leaves"], min_samples_leaf=settings["min_samples_leaf"], reg_lambda=0.0,
        min_hessian=1e-3, max_bins=255, max_interaction_bins=32, interactions=settings["interactions"],
        validation_size=0.15, early_stopping_rounds=settings["early_stopping_rounds"], early_stopping_tolerance=1e-5,
        max_rounds=settings["max_rounds"], greedy_ratio=0.0, cyclic_progress=True, smoothing_rounds=0,
        interaction_smoothing_rounds=0, feature_types=["continuous"] * n_features, n_jobs=1, random_state=0,
    )  # fmt: skip


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
    theirs = interpret_model("classifier", X.shape[1], **SETTINGS).fit(X_train, y_train)
    auc_ours = roc_auc_score(y_test, ours.predict_proba(X_test)[:, 1])
    auc_theirs = roc_auc_score(y_test, theirs.predict_proba(X_test)[:, 1])
    assert abs(auc_ours - auc_theirs) < 0.01, (auc_ours, auc_theirs)
    assert min(main_effects_agree(ours, theirs, X_train)) > 0.8


def test_synthetic_regression():
    X, y = make_friedman1(n_samples=3000, n_features=8, noise=0.5, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    ours = ExplainableBoostingRegressor(**SETTINGS).fit(X_train, y_train)
    theirs = interpret_model("regressor", X.shape[1], **SETTINGS).fit(X_train, y_train)
    r2_ours, r2_theirs = r2_score(y_test, ours.predict(X_test)), r2_score(y_test, theirs.predict(X_test))
    assert abs(r2_ours - r2_theirs) < 0.01, (r2_ours, r2_theirs)
    assert min(main_effects_agree(ours, theirs, X_train)) > 0.95


def test_wine_three_classes():
    X, y = load_wine(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    settings = {**SETTINGS, "interactions": 0}
    ours = ExplainableBoostingClassifier(**settings).fit(X_train, y_train)
    theirs = interpret_model("classifier", X.shape[1], **settings).fit(X_train, y_train)
    auc_ours = roc_auc_score(y_test, ours.predict_proba(X_test), multi_class="ovr")
    auc_theirs = roc_auc_score(y_test, theirs.predict_proba(X_test), multi_class="ovr")
    assert abs(auc_ours - auc_theirs) < 0.01, (auc_ours, auc_theirs)
    assert min(main_effects_agree(ours, theirs, X_train)) > 0.8
