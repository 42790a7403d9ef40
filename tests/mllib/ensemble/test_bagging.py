"""Bagging of any registry estimator: a deterministic learner without resampling equals the learner (by instance or
by registry name), integer sample weights act as repetitions, bootstrap sizes and the OOB fraction (catalogue 7.9:
unique fraction 0.651322 for N = 10), OOB predictions from the out-of-bag members only (classifier accuracy,
regressor R^2), the ensemble spread, members missing a class, and the estimator protocol with save / load."""

import numpy as np
import pytest

from mllib import io as mlio
from mllib.base import clone
from mllib.bayes import NaiveBayes
from mllib.ensemble import BaggingClassifier, BaggingRegressor
from mllib.ensemble.resampling import bootstrap_counts
from mllib.linear import LogisticRegression
from mllib.neighbors import KNeighborsClassifier
from mllib.regression import LinearRegression
from mllib.tree import DecisionTreeClassifier


def _data(seed=0, n=200):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + X[:, 1] ** 2 + 0.5 * rng.normal(size=n) > 1).astype(int)
    return X, y


def _regression(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + 0.3 * rng.normal(size=n)


def test_no_resampling_equals_the_base_learner():
    X, y = _data()
    bag = BaggingClassifier(LogisticRegression(), n_estimators=3, bootstrap=False).fit(X, y)
    np.testing.assert_allclose(bag.predict_proba(X), LogisticRegression().fit(X, y).predict_proba(X), rtol=1e-12)
    Xr, yr = _regression()
    reg = BaggingRegressor("linear_regression", n_estimators=3, bootstrap=False).fit(Xr, yr)
    mean, std = reg.predict(Xr, return_std=True)
    np.testing.assert_allclose(mean, LinearRegression().fit(Xr, yr).predict(Xr), rtol=1e-12)
    assert np.all(std < 1e-12)  # identical members: no spread (up to the rounding of their mean)


def test_registry_name_with_estimator_params():
    X, y = _data(4)
    bag = BaggingClassifier(
        "knn", estimator_params={"n_neighbors": 7, "weights": "distance"}, n_estimators=2, bootstrap=False
    ).fit(X, y)
    assert all(isinstance(m, KNeighborsClassifier) and m.n_neighbors == 7 for m in bag.estimators_)
    X_new = _data(5)[0]
    knn = KNeighborsClassifier(n_neighbors=7, weights="distance").fit(X, y)
    np.testing.assert_allclose(bag.predict_proba(X_new), knn.predict_proba(X_new), rtol=1e-12)
    nb = BaggingClassifier("naive_bayes", n_estimators=15, oob_score=True).fit(X, y)
    assert all(isinstance(m, NaiveBayes) for m in nb.estimators_)
    assert nb.oob_score_ > 0.6 and np.mean(nb.predict(X_new) == _data(5)[1]) > 0.6


def test_integer_sample_weights_are_repetitions():
    X, y = _data(6, n=80)
    w = np.random.default_rng(6).integers(0, 4, 80)
    # no resampling: the weighted bag equals the bag of the repeated data (var_smoothing 0: naive Bayes' default
    # smoothing scales with the unweighted variance of X, which repetition changes)
    exact = dict(estimator="naive_bayes", estimator_params={"var_smoothing": 0.0}, n_estimators=2)
    weighted = BaggingClassifier(**exact, bootstrap=False).fit(X, y, sample_weight=w)
    repeated = BaggingClassifier(**exact, bootstrap=False).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-10)
    # bootstrap: member m is the learner fitted with weights w_i x (times row i was drawn)
    bag = BaggingClassifier(**{**exact, "n_estimators": 5}).fit(X, y, sample_weight=w)
    for member, counts in zip(bag.estimators_, bag.in_bag_counts(80)):
        alone = NaiveBayes(var_smoothing=0.0).fit(X, y, sample_weight=w * counts)
        np.testing.assert_allclose(member.predict_proba(X), alone.predict_proba(X), rtol=1e-10)
    with pytest.raises(ValueError, match="GaussianProcessClassifier does not take sample_weight"):
        BaggingClassifier("gp_classifier").fit(X, y, sample_weight=w)


def test_bootstrap_sizes_and_oob_fraction():
    # expected share of distinct rows in a bootstrap sample of N = 10: 1 - 0.9^10 = 0.651322 (catalogue 7.9)
    unique = [np.mean(bootstrap_counts(seed, 10, 10, True) > 0) for seed in range(4000)]
    assert np.mean(unique) == pytest.approx(0.651322, abs=0.01)
    X, y = _data(7, n=400)
    bag = BaggingClassifier(n_estimators=30).fit(X, y)
    counts = bag.in_bag_counts(400)
    assert counts.shape == (30, 400) and np.all(counts.sum(axis=1) == 400)
    assert np.mean(counts == 0) == pytest.approx((1 - 1 / 400) ** 400, abs=0.02)  # ~ e^-1 = 0.368
    half = BaggingClassifier(n_estimators=4, max_samples=0.5, bootstrap=False).fit(X, y).in_bag_counts(400)
    assert np.all(half.sum(axis=1) == 200) and set(np.unique(half)) == {0.0, 1.0}


def test_bagged_trees_oob_and_variance_reduction():
    X, y = _data(1, n=400)
    X_test, y_test = _data(2, n=400)
    bag = BaggingClassifier(n_estimators=30, oob_score=True).fit(X, y)
    tree = DecisionTreeClassifier().fit(X, y)
    assert np.mean(bag.predict(X_test) == y_test) > np.mean(tree.predict(X_test) == y_test)
    # OOB decision of a row = mean of the probabilities of the members that did not draw it
    counts = bag.in_bag_counts(400)
    for i in (0, 9, 250):
        expected = np.mean(
            [m.predict_proba(X[i : i + 1])[0] for m, c in zip(bag.estimators_, counts) if c[i] == 0], axis=0
        )
        np.testing.assert_allclose(bag.oob_decision_function_[i], expected, rtol=1e-12)
    seen = ~np.isnan(bag.oob_decision_function_[:, 0])
    assert seen.mean() > 0.99  # with 30 members nearly every row is out of bag somewhere: (1 - 0.368^30)
    assert abs(bag.oob_score_ - np.mean(bag.predict(X_test) == y_test)) < 0.06
    members = [m.random_state for m in bag.estimators_]
    assert len(set(members)) == 30  # every member gets its own seed


def test_regressor_oob_r2_and_spread():
    X, y = _regression(8, n=400)
    X_test, y_test = _regression(9, n=400)
    bag = BaggingRegressor(n_estimators=30, oob_score=True).fit(X, y)
    counts = bag.in_bag_counts(400)
    member_pred = np.column_stack([m.predict(X) for m in bag.estimators_])
    oob = (counts == 0).T
    expected = np.sum(member_pred * oob, axis=1) / oob.sum(axis=1)
    np.testing.assert_allclose(bag.oob_prediction_, expected, rtol=1e-12)
    seen = oob.any(axis=1)
    resid = y[seen] - expected[seen]
    assert bag.oob_score_ == pytest.approx(1 - resid @ resid / np.sum((y[seen] - y[seen].mean()) ** 2), rel=1e-12)

    def r2(y_true, pred):
        return 1 - np.sum((y_true - pred) ** 2) / np.sum((y_true - y_true.mean()) ** 2)

    assert abs(bag.oob_score_ - r2(y_test, bag.predict(X_test))) < 0.1  # an honest estimate of test R^2
    assert bag.oob_score_ < r2(y, bag.predict(X))
    mean, std = bag.predict(X_test, return_std=True)
    members = np.column_stack([m.predict(X_test) for m in bag.estimators_])
    np.testing.assert_allclose(mean, members.mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(std, np.sqrt(np.mean((members - mean[:, None]) ** 2, axis=1)), rtol=1e-10)
    assert np.all(std > 0)


def test_members_missing_a_class_and_io(tmp_path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 2))
    y = np.array(["a"] * 57 + ["b", "c", "c"])
    bag = BaggingClassifier(n_estimators=8, max_samples=20).fit(X, y)
    P = bag.predict_proba(X)
    assert P.shape == (60, 3) and np.allclose(P.sum(axis=1), 1.0)
    assert all(np.unique(y[c > 0]).size > 1 for c in bag.in_bag_counts(60))  # redrawn samples are reproduced
    mlio.save(bag, tmp_path / "bag")
    np.testing.assert_array_equal(mlio.load(tmp_path / "bag").predict_proba(X), P)


@pytest.mark.parametrize("estimator", ["logistic_regression", LogisticRegression(lam=0.5)])
def test_params_clone_and_io_with_a_name_or_an_instance(estimator, tmp_path):
    X, y = _data(10)
    bag = BaggingClassifier(estimator, estimator_params={"max_iter": 50}, n_estimators=3)
    copy = clone(bag)
    assert copy.get_params(deep=False).keys() == bag.get_params(deep=False).keys()
    assert copy.estimator_params == {"max_iter": 50} and copy.estimator_params is not bag.estimator_params
    bag.fit(X, y)
    assert all(m.max_iter == 50 for m in bag.estimators_)
    assert bag.estimator_params == {"max_iter": 50} and (isinstance(estimator, str) or estimator.max_iter != 50)
    mlio.save(bag, tmp_path / "bag")
    loaded = mlio.load(tmp_path / "bag")
    assert loaded.get_params(deep=False).keys() == bag.get_params(deep=False).keys()
    np.testing.assert_array_equal(loaded.predict_proba(X), bag.predict_proba(X))
    bag.set_params(estimator="naive_bayes", estimator_params=None).fit(X, y)
    assert isinstance(bag.estimators_[0], NaiveBayes)


def test_validation():
    X, y = _data()
    with pytest.raises(ValueError, match="unknown classifier estimator 'forest'; choose from"):
        BaggingClassifier("forest").fit(X, y)
    with pytest.raises(ValueError, match="unknown regressor estimator .knn."):
        BaggingRegressor("knn").fit(X, y.astype(float))
    with pytest.raises(ValueError, match="unfitted mllib classifier"):
        BaggingClassifier(estimator=LinearRegression()).fit(X, y)
    with pytest.raises(ValueError, match="estimator_params must be None or a dict"):
        BaggingClassifier(estimator_params=[("max_depth", 3)]).fit(X, y)
    with pytest.raises(ValueError, match="no parameter 'depth'"):
        BaggingClassifier(estimator_params={"depth": 3}).fit(X, y)
    with pytest.raises(ValueError, match="out-of-bag"):
        BaggingClassifier(bootstrap=False, oob_score=True).fit(X, y)
