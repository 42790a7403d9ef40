"""Fits from rows held in blocks (mllib.base.RowBlocks): the models whose math needs only sums over rows give fit's
solution on the rows put together. Oracles: fit itself on real data (the breast cancer and wine files of the corpus,
standardized; a regression on the diabetes file), with blocks of unequal sizes, sample weights, the l1 penalty, a
multinomial target, and lam = 0 with collinear columns for ridge (the eigen-solution equals the SVD's); scikit-learn's
LogisticRegression and Ridge on the same rows for the blocks' solution itself."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine
from sklearn.linear_model import LogisticRegression as SkLogistic
from sklearn.linear_model import Ridge as SkRidge

from mllib.base import RowBlocks, clone, summed
from mllib.linear import LogisticRegression
from mllib.regression import Ridge


def standardized(X):
    return (X - X.mean(axis=0)) / X.std(axis=0)


def uneven(X, y, w=None):
    """Three blocks of 10%, 60% and 30% of the rows."""
    cuts = [0, len(y) // 10, len(y) * 7 // 10, len(y)]
    return RowBlocks((X[a:b], y[a:b], None if w is None else w[a:b]) for a, b in zip(cuts[:-1], cuts[1:]))


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return standardized(X), y


@pytest.mark.parametrize("settings", [{"lam": 1.0}, {"lam": 0.05}, {"lam": 0.5, "penalty": "l1"}])
def test_logistic_blocks_equal_fit(cancer, settings):
    X, y = cancer
    whole = LogisticRegression(**settings).fit(X, y)
    blocks = LogisticRegression(**settings).fit_blocks(uneven(X, y))
    np.testing.assert_allclose(blocks.coef_, whole.coef_, rtol=0, atol=1e-9)
    np.testing.assert_allclose(blocks.intercept_, whole.intercept_, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(blocks.classes_, whole.classes_)
    assert blocks.n_iter_ == whole.n_iter_


def test_logistic_blocks_in_either_memory_order_equal_fit(cancer):
    """Row-major blocks (the pipeline's) and column-major ones take different paths to the Hessian (the scaled block
    in the X's own order): the same solution."""
    X, y = cancer
    whole = LogisticRegression(lam=0.05).fit(X, y)
    for order in (np.ascontiguousarray, np.asfortranarray):
        blocks = LogisticRegression(lam=0.05).fit_blocks(RowBlocks((order(X[a:b]), y[a:b], None) for a, b in
                                                                   [(0, 200), (200, len(y))]))  # fmt: skip
        np.testing.assert_allclose(blocks.coef_, whole.coef_, rtol=0, atol=1e-9)
        np.testing.assert_allclose(blocks.intercept_, whole.intercept_, rtol=0, atol=1e-9)


def test_logistic_blocks_with_weights_equal_scikit_learn(cancer):
    X, y = cancer
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    blocks = LogisticRegression(lam=1.0).fit_blocks(uneven(X, y, w))
    whole = LogisticRegression(lam=1.0).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(blocks.coef_, whole.coef_, rtol=0, atol=1e-9)
    sk = SkLogistic(C=0.5, tol=1e-12, max_iter=10_000).fit(X, y, sample_weight=w)  # C = 1 / (2 lam)
    np.testing.assert_allclose(blocks.coef_, sk.coef_, rtol=0, atol=1e-6)


def test_multinomial_blocks_equal_newton_fit():
    X, y = load_wine(return_X_y=True)
    X = standardized(X)
    labels = np.array(["barolo", "grignolino", "barbera"])[y]  # text labels, classes in sorted order
    whole = LogisticRegression(solver="newton").fit(X, labels)
    blocks = LogisticRegression().fit_blocks(uneven(X, labels))
    np.testing.assert_allclose(blocks.coef_, whole.coef_, rtol=0, atol=1e-9)
    np.testing.assert_allclose(blocks.predict_proba(X), whole.predict_proba(X), rtol=0, atol=1e-9)
    lbfgs = LogisticRegression().fit(X, labels)  # fit's multinomial default: the same optimum to its tolerance
    np.testing.assert_allclose(blocks.coef_, lbfgs.coef_, rtol=0, atol=1e-6)


def test_logistic_blocks_refuse_what_they_cannot_do(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="solver='newton' or 'auto'"):
        LogisticRegression(solver="lbfgs").fit_blocks(uneven(X, y))
    with pytest.raises(ValueError, match="single class"):
        LogisticRegression().fit_blocks(uneven(X, np.ones_like(y)))
    with pytest.raises(ValueError, match="different numbers of columns"):
        LogisticRegression().fit_blocks(RowBlocks([(X[:100], y[:100], None), (X[100:, :5], y[100:], None)]))


@pytest.mark.parametrize("lam", [0.0, 1.0, 300.0])
def test_ridge_blocks_equal_fit(lam):
    X, y = load_diabetes(return_X_y=True)
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    for weights in (None, w):
        whole = Ridge(lam=lam).fit(X, y, sample_weight=weights)
        blocks = Ridge(lam=lam).fit_blocks(uneven(X, y, weights))
        np.testing.assert_allclose(blocks.coef_, whole.coef_, rtol=1e-9, atol=1e-9)
        assert blocks.intercept_ == pytest.approx(whole.intercept_, rel=1e-12, abs=1e-9)
        assert blocks.effective_degrees_of_freedom_ == pytest.approx(whole.effective_degrees_of_freedom_, rel=1e-9)
    sk = SkRidge(alpha=lam if lam else 1e-12).fit(X, y)
    np.testing.assert_allclose(Ridge(lam=lam).fit_blocks(uneven(X, y)).coef_, sk.coef_, rtol=1e-6, atol=1e-6)


def test_ridge_blocks_with_collinear_columns_take_the_minimum_norm_solution():
    X, y = load_diabetes(return_X_y=True)
    X = np.column_stack([X, X[:, 0] + X[:, 1]])  # one column the sum of two others: X^T X singular
    whole = Ridge(lam=0.0).fit(X, y)
    blocks = Ridge(lam=0.0).fit_blocks(uneven(X, y))
    np.testing.assert_allclose(blocks.coef_, whole.coef_, rtol=0, atol=1e-6)
    assert blocks.effective_degrees_of_freedom_ == pytest.approx(whole.effective_degrees_of_freedom_) == 10.0


def test_summed_adds_in_block_order():
    assert summed([1.0, 2.0, 3.5]) == 6.5
    total = summed([(1, np.ones(2)), (2, np.full(2, 3.0))])
    assert total[0] == 3 and total[1].tolist() == [4.0, 4.0]
    with pytest.raises(ValueError, match="at least one block"):
        RowBlocks([])


@pytest.mark.parametrize("strategy", ["mean", "median", "most_frequent", "constant"])
def test_imputer_and_scaler_from_blocks_equal_fit(strategy):
    from mllib.preprocessing import SimpleImputer, StandardScaler

    X, y = load_diabetes(return_X_y=True)
    X = np.round(X, 2)  # repeated values, so the most frequent one is decided by counts across the blocks
    X[np.random.default_rng(2).random(X.shape) < 0.1] = np.nan
    imputer = SimpleImputer(strategy=strategy, fill_value=0.0, add_indicator=True)
    whole = imputer.fit(X).transform(X)
    blocks = SimpleImputer(strategy=strategy, fill_value=0.0, add_indicator=True).fit_blocks(uneven(X, y))
    np.testing.assert_allclose(blocks.statistics_, imputer.statistics_, rtol=1e-14, atol=1e-15)
    np.testing.assert_array_equal(blocks.indicator_columns_, imputer.indicator_columns_)
    scaler = StandardScaler().fit(whole)
    w = np.random.default_rng(3).uniform(0.5, 2.0, len(y))
    for weights in (None, w):
        scaler = StandardScaler().fit(whole, sample_weight=weights)
        from_blocks = StandardScaler().fit_blocks(uneven(whole, y, weights))
        np.testing.assert_allclose(from_blocks.mean_, scaler.mean_, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(from_blocks.var_, scaler.var_, rtol=1e-12, atol=1e-15)


def test_standardized_target_blocks_equal_fit():
    """The regressor the pipeline fits (ridge on the standardized target) from blocks: fit's mean, scale, coefficients
    and predictions on the diabetes file, with weights."""
    from mllib.regression import StandardizedTarget

    X, y = load_diabetes(return_X_y=True)
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    whole = StandardizedTarget(Ridge(lam=3.0)).fit(X, y, sample_weight=w)
    blocks = StandardizedTarget(Ridge(lam=3.0)).fit_blocks(uneven(X, y, w))
    assert blocks.mean_ == pytest.approx(whole.mean_, rel=1e-13) and blocks.scale_ == pytest.approx(whole.scale_, 1e-13)
    np.testing.assert_allclose(blocks.coef_, whole.coef_, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(blocks.predict(X), whole.predict(X), rtol=1e-11)
    assert blocks.n_features_in_ == X.shape[1]


def test_standardized_target_blocks_refuse_a_regressor_without_them():
    from mllib.neighbors import KNeighborsRegressor
    from mllib.regression import StandardizedTarget

    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match="KNeighborsRegressor has no fit_blocks"):
        StandardizedTarget(KNeighborsRegressor()).fit_blocks(uneven(X, y))


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_search_on_block_folds_equals_the_search_on_matrices(cancer, kind):
    """evaluate_candidates on BlockFolds (fit_blocks, responses gathered block by block) gives the scores, the
    validation responses and the fold models of the search on the same folds as matrices."""
    from mllib.metrics import get_scorer
    from mllib.model_selection import BlockFold, KFold, evaluate_candidates
    from mllib.regression import StandardizedTarget

    if kind == "classifier":
        (X, y), estimator, scorer = cancer, LogisticRegression(), get_scorer("roc_auc")
    else:
        X, y = load_diabetes(return_X_y=True)
        estimator, scorer = StandardizedTarget(Ridge()), get_scorer("r2")
    splits = list(KFold(3, shuffle=True, random_state=0).split(X))
    matrices = [(X[f], y[f], X[v], y[v]) for f, v in splits]
    blocks = [BlockFold(uneven(X[f], y[f]), uneven(X[v], y[v])) for f, v in splits]
    candidates = [{"lam": 0.1}, {"lam": 10.0}]
    expected = evaluate_candidates(estimator, candidates, matrices, scorer, keep_models=True)
    found = evaluate_candidates(estimator, candidates, blocks, scorer, keep_models=True)
    for a, b in zip(expected, found):
        np.testing.assert_allclose(b["valid_scores"], a["valid_scores"], rtol=1e-12)
        np.testing.assert_allclose(b["train_scores"], a["train_scores"], rtol=1e-12)
        for va, vb in zip(a["oof_values"], b["oof_values"]):
            np.testing.assert_allclose(vb, va, rtol=1e-9, atol=1e-12)
        assert a["rank"] == b["rank"] and len(b["model_states"]) == 3


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"subsample": 0.7, "max_leaf_nodes": 7, "l2_regularization": 1.0},
        {"early_stopping": True, "validation_fraction": 0.2, "n_iter_no_change": 2},
    ],
)
def test_gradient_boosting_blocks_grow_fit_s_trees(settings):
    """Gradient boosting from blocks (each column's bin thresholds from the column gathered alone, the blocks binned
    where they are): the same thresholds, trees and predictions as fit on the rows put together, to the bit, for a
    binary, a multinomial and a regression target (wine: three classes; diabetes), with weights; with early stopping,
    the same rows held out (the bins are found on every row, the hold-out drawn from the same generator) and the same
    iteration stopped at."""
    from mllib.gradient_boosting import GradientBoostingClassifier, GradientBoostingRegressor

    X_wine, y_wine = load_wine(return_X_y=True)
    X_reg, y_reg = load_diabetes(return_X_y=True)
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(y_reg))
    cases = [
        (GradientBoostingClassifier, X_wine, (y_wine == 0).astype(int), None),
        (GradientBoostingClassifier, X_wine, y_wine, None),
        (GradientBoostingRegressor, X_reg, y_reg, w),
    ]
    for cls, X, y, weights in cases:
        whole = cls(max_iter=20, **settings).fit(X, y, sample_weight=weights)
        blocks = cls(max_iter=20, **settings).fit_blocks(uneven(X, y, weights))
        np.testing.assert_array_equal(blocks.bin_thresholds_, whole.bin_thresholds_)
        np.testing.assert_array_equal(blocks.node_feature_, whole.node_feature_)
        np.testing.assert_array_equal(blocks.node_threshold_, whole.node_threshold_)
        np.testing.assert_array_equal(blocks.node_value_, whole.node_value_)
        np.testing.assert_array_equal(blocks.predict(X), whole.predict(X))
        np.testing.assert_array_equal(blocks.validation_score_, whole.validation_score_)


@pytest.mark.parametrize("settings", [{}, {"outer_bags": 2, "interactions": 3, "l2_regularization": 1.0}])
def test_explainable_boosting_blocks_equal_fit(settings):
    """The additive model from blocks (each column's bins from the column gathered alone, the blocks binned where
    they are, the codes gathered): the same bins, pairs and tables as fit on the rows put together, to the bit, for a
    binary, a multinomial and a regression target, with weights."""
    from mllib.additive import ExplainableBoostingClassifier, ExplainableBoostingRegressor

    X_wine, y_wine = load_wine(return_X_y=True)
    X_reg, y_reg = load_diabetes(return_X_y=True)
    w = np.random.default_rng(2).uniform(0.5, 2.0, len(y_reg))
    cases = [
        (ExplainableBoostingClassifier, X_wine, (y_wine == 0).astype(int), None),
        (ExplainableBoostingClassifier, X_wine, y_wine, None),
        (ExplainableBoostingRegressor, X_reg, y_reg, w),
    ]
    for cls, X, y, weights in cases:
        whole = cls(**settings).fit(X, y, sample_weight=weights)
        blocks = cls(**settings).fit_blocks(uneven(X, y, weights))
        for name in ("bin_edges_", "interaction_bin_edges_", "term_scores_", "term_stds_", "n_rounds_", "intercept_"):
            np.testing.assert_array_equal(getattr(blocks, name), getattr(whole, name), err_msg=name)
        assert blocks.term_features_ == whole.term_features_
        output = "predict" if cls is ExplainableBoostingRegressor else "predict_proba"
        np.testing.assert_array_equal(getattr(blocks, output)(X), getattr(whole, output)(X))


def test_early_stopping_from_blocks_holds_out_the_groups_fit_holds_out():
    """groups given with the blocks (one per row, in block order) reach the early-stopping hold-outs as fit's groups
    do: whole groups held out, the same trees and tables as fit with the same groups, and not those of a hold-out by
    rows (fit_blocks_with_groups passes them only to a fit_blocks that takes them)."""
    from mllib.additive import ExplainableBoostingRegressor
    from mllib.base import fit_blocks_with_groups
    from mllib.gradient_boosting import GradientBoostingClassifier
    from mllib.regression import StandardizedTarget

    X_wine, y_wine = load_wine(return_X_y=True)
    X_reg, y_reg = load_diabetes(return_X_y=True)
    cases = [
        (GradientBoostingClassifier(max_iter=30, early_stopping=True, n_iter_no_change=2), X_wine, y_wine),
        (StandardizedTarget(ExplainableBoostingRegressor(outer_bags=2, interactions=2)), X_reg, y_reg),
    ]
    for model, X, y in cases:
        groups = np.arange(len(y)) // 4  # four rows per group
        whole = clone(model).fit(X, y, groups=groups)
        blocks = fit_blocks_with_groups(clone(model), uneven(X, y), groups)
        by_rows = clone(model).fit_blocks(uneven(X, y))
        output = "predict" if hasattr(model, "regressor") else "predict_proba"
        np.testing.assert_array_equal(getattr(blocks, output)(X), getattr(whole, output)(X))
        assert not np.array_equal(getattr(by_rows, output)(X), getattr(whole, output)(X))
