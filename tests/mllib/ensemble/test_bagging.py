"""Bagging of registry classifiers: deterministic learner without resampling equals the learner, bootstrap sizes,
OOB estimate, members missing a class, and any base estimator (logistic regression)."""
import numpy as np
import pytest

from mllib import io as mlio
from mllib.ensemble import BaggingClassifier
from mllib.linear import LogisticRegression
from mllib.tree import DecisionTreeClassifier


def _data(seed=0, n=200):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + X[:, 1] ** 2 + 0.5 * rng.normal(size=n) > 1).astype(int)
    return X, y


def test_no_resampling_equals_the_base_learner():
    X, y = _data()
    bag = BaggingClassifier(LogisticRegression(), n_estimators=3, bootstrap=False).fit(X, y)
    np.testing.assert_allclose(bag.predict_proba(X), LogisticRegression().fit(X, y).predict_proba(X), rtol=1e-12)


def test_bagged_trees_oob_and_variance_reduction():
    X, y = _data(1, n=400)
    X_test, y_test = _data(2, n=400)
    bag = BaggingClassifier(n_estimators=30, oob_score=True).fit(X, y)
    tree = DecisionTreeClassifier().fit(X, y)
    assert np.mean(bag.predict(X_test) == y_test) > np.mean(tree.predict(X_test) == y_test)
    seen = ~np.isnan(bag.oob_decision_function_[:, 0])
    assert seen.mean() > 0.99  # with 30 members nearly every row is out of bag somewhere: (1 - 0.368^30)
    assert abs(bag.oob_score_ - np.mean(bag.predict(X_test) == y_test)) < 0.06
    members = [m.random_state for m in bag.estimators_]
    assert len(set(members)) == 30  # every member gets its own seed


def test_members_missing_a_class_and_io(tmp_path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 2))
    y = np.array(["a"] * 57 + ["b", "c", "c"])
    bag = BaggingClassifier(n_estimators=8, max_samples=20).fit(X, y)
    P = bag.predict_proba(X)
    assert P.shape == (60, 3) and np.allclose(P.sum(axis=1), 1.0)
    mlio.save(bag, tmp_path / "bag")
    np.testing.assert_array_equal(mlio.load(tmp_path / "bag").predict_proba(X), P)


def test_validation():
    X, y = _data()
    with pytest.raises(ValueError, match="classifier"):
        BaggingClassifier(estimator=object()).fit(X, y)
    with pytest.raises(ValueError, match="out-of-bag"):
        BaggingClassifier(bootstrap=False, oob_score=True).fit(X, y)
