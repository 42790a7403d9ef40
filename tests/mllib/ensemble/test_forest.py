"""Random forests: one tree without bootstrap on all features equals the single tree, OOB fraction ~ e^-1 and OOB
predictions from the out-of-bag trees only (classifier accuracy, regressor R^2), identical results for any n_jobs,
tree_ensemble reproduces the predictions, save/load, and accuracy close to scikit-learn's forest."""

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier as SkForest
from tree_protocol import ensemble_output

from mllib import io as mlio
from mllib.ensemble import RandomForestClassifier, RandomForestRegressor
from mllib.tree import DecisionTreeClassifier, DecisionTreeRegressor


def _data(seed=0, n=300, d=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, -1] = rng.integers(0, 3, n)  # a low-cardinality column (binned search path)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def test_one_tree_without_bootstrap_on_all_features_is_the_single_tree():
    X, y = _data()
    forest = RandomForestClassifier(n_estimators=1, bootstrap=False, max_features=None, min_samples_leaf=2).fit(X, y)
    tree = DecisionTreeClassifier(min_samples_leaf=2).fit(X, y)
    for a, b in (
        ("feature_", "feature_"),
        ("threshold_", "threshold_"),
        ("children_left_", "children_left_"),
        ("value_", "value_"),
        ("weighted_n_node_samples_", "weighted_n_node_samples_"),
    ):
        np.testing.assert_array_equal(getattr(forest, a), getattr(tree, b))
    np.testing.assert_array_equal(forest.predict_proba(X), tree.predict_proba(X))
    reg = RandomForestRegressor(n_estimators=1, bootstrap=False).fit(X, X[:, 0] + y)
    np.testing.assert_array_equal(
        reg.predict(X), DecisionTreeRegressor(min_samples_leaf=1).fit(X, X[:, 0] + y).predict(X)
    )


def test_oob_fraction_and_oob_predictions():
    X, y = _data(1, n=400)
    forest = RandomForestClassifier(n_estimators=40, oob_score=True, min_samples_leaf=3).fit(X, y)
    counts = forest.in_bag_counts(X.shape[0])
    assert counts.shape == (40, 400) and np.all(counts.sum(axis=1) == 400)
    assert np.mean(counts == 0) == pytest.approx((1 - 1 / 400) ** 400, abs=0.01)  # ~ e^-1 = 0.368
    # OOB decision of a row = mean of the probabilities of the trees that did not draw it
    ens = forest.tree_ensemble()
    rows = [0, 7, 123]
    for i in rows:
        oob_trees = [t for t in range(40) if counts[t, i] == 0]
        expected = np.mean(
            [
                ensemble_output(dict(trees=[ens["trees"][t]], scale=[1.0], offset=np.zeros(2)), X[i : i + 1])[0]
                for t in oob_trees
            ],
            axis=0,
        )
        np.testing.assert_allclose(forest.oob_decision_function_[i], expected, rtol=1e-12)
    seen = ~np.isnan(forest.oob_decision_function_[:, 0])
    assert forest.oob_score_ == np.mean(forest.oob_decision_function_[seen].argmax(1) == y[seen])
    assert 0.6 < forest.oob_score_ < np.mean(forest.predict(X) == y)  # honest: below the training accuracy


def test_regressor_oob_predictions_and_r2():
    X, y = _data(4, n=300)
    target = X[:, 0] + y
    forest = RandomForestRegressor(n_estimators=25, oob_score=True, n_jobs=2).fit(X, target)
    out_of_bag = (forest.in_bag_counts(300) == 0).T
    ens = forest.tree_ensemble()
    per_tree = np.column_stack(
        [ensemble_output(dict(trees=[t], scale=[1.0], offset=np.zeros(1)), X)[:, 0] for t in ens["trees"]]
    )
    seen = out_of_bag.any(axis=1)
    expected = np.sum(per_tree * out_of_bag, axis=1)[seen] / out_of_bag.sum(axis=1)[seen]
    np.testing.assert_allclose(forest.oob_prediction_[seen], expected, rtol=1e-12)
    assert np.isnan(forest.oob_prediction_[~seen]).all()
    resid = target[seen] - expected
    r2 = 1 - resid @ resid / np.sum((target[seen] - target[seen].mean()) ** 2)
    assert forest.oob_score_ == pytest.approx(r2, rel=1e-12) and 0.3 < r2 < 1


def test_results_do_not_depend_on_n_jobs():
    X, y = _data(2)
    a = RandomForestClassifier(n_estimators=12, n_jobs=1, oob_score=True).fit(X, y)
    b = RandomForestClassifier(n_estimators=12, n_jobs=3, oob_score=True).fit(X, y)
    for attr in (
        "feature_",
        "threshold_",
        "value_",
        "tree_offsets_",
        "oob_decision_function_",
        "oob_score_",
        "feature_importances_",
    ):
        np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr))
    c = RandomForestClassifier(n_estimators=12, random_state=1).fit(X, y)
    assert not np.array_equal(a.predict_proba(X), c.predict_proba(X))


def test_tree_ensemble_reproduces_predictions_and_loading_keeps_them(tmp_path):
    X, y = _data(3)
    forest = RandomForestClassifier(n_estimators=7, min_samples_leaf=2).fit(X, y)
    ens = forest.tree_ensemble()
    assert ens["output"] == "probability" and len(ens["trees"]) == 7
    np.testing.assert_allclose(ensemble_output(ens, X), forest.predict_proba(X), rtol=0, atol=1e-15)
    reg = RandomForestRegressor(n_estimators=5, max_features=0.5).fit(X, X[:, 0] - X[:, 1])
    np.testing.assert_allclose(ensemble_output(reg.tree_ensemble(), X)[:, 0], reg.predict(X), rtol=1e-14)
    mlio.save(forest, tmp_path / "rf")
    loaded = mlio.load(tmp_path / "rf")
    np.testing.assert_array_equal(loaded.predict_proba(X), forest.predict_proba(X))


def test_importances_and_accuracy_close_to_sklearn():
    X, y = _data(4, n=600)
    X_test, y_test = _data(5, n=600)
    ours = RandomForestClassifier(n_estimators=60, min_samples_leaf=3).fit(X, y)
    sk = SkForest(n_estimators=60, min_samples_leaf=3, random_state=0).fit(X, y)
    acc_ours, acc_sk = np.mean(ours.predict(X_test) == y_test), np.mean(sk.predict(X_test) == y_test)
    assert acc_ours > acc_sk - 0.03
    assert ours.feature_importances_.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(ours.feature_importances_, sk.feature_importances_, atol=0.05)
    perm = ours.permutation_importance(X_test, y_test, n_repeats=3)
    assert np.argmax(perm["importances_mean"]) == 0 and perm["importances_mean"][3] < 0.02


def test_regressor_oob_r2_and_hist_splitter():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(400, 4))
    y = X[:, 0] + np.sin(2 * X[:, 1]) + 0.2 * rng.normal(size=400)
    reg = RandomForestRegressor(n_estimators=40, oob_score=True, splitter="hist", max_bins=32).fit(X, y)
    assert 0.6 < reg.oob_score_ < 1.0
    assert reg.oob_prediction_.shape == (400,)


def test_validation():
    X, y = _data()
    with pytest.raises(ValueError, match="oob_score=True needs bootstrap"):
        RandomForestClassifier(oob_score=True, bootstrap=False).fit(X, y)
    with pytest.raises(ValueError, match="n_estimators"):
        RandomForestClassifier(n_estimators=0).fit(X, y)
    with pytest.raises(ValueError, match="max_samples"):
        RandomForestClassifier(max_samples=2.0).fit(X, y)
    with pytest.raises(ValueError, match=rf"max_samples must be an integer in \[1, {len(X)}\], got {len(X) + 1}"):
        RandomForestClassifier(max_samples=len(X) + 1).fit(X, y)
    with pytest.raises(ValueError, match="n_jobs"):
        RandomForestClassifier(n_jobs=0).fit(X, y)
