"""Hyperparameter search (seed 004, D4:529-554, 543, 567; seed 003, D3:334-338): candidates, per-fold
evaluation, ranking, refit on all data, per-fold refitting of preprocessing, nested CV."""

import warnings

import numpy as np
import pytest
from scipy import stats

from mllib.base import BaseEstimator, ClassifierMixin, Pipeline, TransformerMixin, is_fitted
from mllib.metrics import Scorer
from mllib.model_selection import (
    FoldData,
    GridSearch,
    KFold,
    ParameterGrid,
    ParameterSampler,
    RandomSearch,
    StratifiedKFold,
    best_candidate_index,
    evaluate_candidates,
    nested_cv,
    response_values,
)


def metric_scorer(func, greater_is_better=True, response="label"):
    return Scorer(
        getattr(func, "__name__", "metric"),
        lambda y, v, sample_weight=None: float(func(np.asarray(y), np.asarray(v))),
        greater_is_better,
        response,
    )


ACCURACY = metric_scorer(lambda y, p: np.mean(y == p))
ERROR_RATE = metric_scorer(lambda y, p: np.mean(y != p), greater_is_better=False)
MEAN_PROBA = metric_scorer(lambda y, p: float(np.mean(p)), response="proba")


class NearestClassMean(ClassifierMixin, BaseEstimator):
    """Binary nearest-class-mean classifier; decision = d(x, mean_0)^2 - d(x, mean_1)^2 + bias."""

    def __init__(self, bias=0.0, unused=0):
        self.bias = bias
        self.unused = unused

    def fit(self, X, y):
        X = np.asarray(X, dtype=float)
        codes = self._encode_targets(y)
        self.means_ = np.stack([X[codes == k].mean(0) for k in range(self.classes_.size)])
        return self

    def decision_function(self, X):
        d = ((np.asarray(X, dtype=float)[:, None, :] - self.means_[None]) ** 2).sum(-1)
        return d[:, 0] - d[:, 1] + self.bias

    def predict_proba(self, X):
        p1 = 1.0 / (1.0 + np.exp(-np.clip(self.decision_function(X), -50, 50)))
        return np.column_stack([1 - p1, p1])

    def predict(self, X):
        return self.classes_[(self.decision_function(X) > 0).astype(int)]


FITTED_MEANS = []


class RecordingScaler(TransformerMixin, BaseEstimator):
    """Centres columns; records every fitted mean so the test can see which rows each fit used."""

    def __init__(self):
        pass

    def fit(self, X, y=None):
        self.mean_ = np.asarray(X, dtype=float).mean(0)
        FITTED_MEANS.append(self.mean_.copy())
        return self

    def transform(self, X):
        return np.asarray(X, dtype=float) - self.mean_


def blobs(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 2)) + 3.0 * y[:, None]
    return X, y


def fold_data_for(X, y, splitter):
    return [(X[tr], y[tr], X[te], y[te]) for tr, te in splitter.split(X, y)]


# ---- lazy folds ----


def test_fold_data_made_on_demand_gives_the_results_of_the_list_and_reads_each_fold_once():
    """FoldData slices a fold when it is reached and keeps only the last: the search goes fold by fold, so each
    split's matrix is asked for once (its reader counts) and the results equal those of the materialised list."""
    X, y = blobs(n=80, seed=4)
    splits = list(KFold(4, shuffle=True, random_state=0).split(X, y))
    reads = []

    def matrix(k):  # a different matrix per split, as the features stage writes them
        reads.append(k)
        return X + k

    lazy = FoldData(matrix, y, splits)
    eager = [(X[tr] + k, y[tr], X[te] + k, y[te]) for k, (tr, te) in enumerate(splits)]
    grid = [{"bias": b} for b in (-1.0, 0.0, 1.0)]
    got = evaluate_candidates(NearestClassMean(), grid, lazy, ACCURACY)
    want = evaluate_candidates(NearestClassMean(), grid, eager, ACCURACY)
    assert reads == [0, 1, 2, 3]
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a["valid_scores"], b["valid_scores"])
        np.testing.assert_array_equal(a["train_scores"], b["train_scores"])
    assert lazy[3] is lazy[3] and reads == [0, 1, 2, 3]  # the last fold is kept, not made again
    groups = np.arange(80) // 2
    with_groups = FoldData(X, y, splits, groups)[1]
    np.testing.assert_array_equal(with_groups[4], groups[splits[1][0]])
    with pytest.raises(IndexError):
        lazy[4]


# ---- candidates ----


def test_parameter_grid_order_len_and_indexing():
    grid = ParameterGrid({"b": [1, 2], "a": ["x", "y", "z"]})
    assert len(grid) == 6
    expected = [{"a": a, "b": b} for a in "xyz" for b in (1, 2)]  # keys sorted, last key fastest
    assert list(grid) == expected
    assert [grid[i] for i in range(6)] == expected and grid[-1] == expected[-1]
    both = ParameterGrid([{"c": [1]}, {"a": [1, 2]}])
    assert list(both) == [{"c": 1}, {"a": 1}, {"a": 2}] and len(both) == 3
    assert list(ParameterGrid({})) == [{}]
    with pytest.raises(ValueError, match=r"param_grid\['C'\] must be a non-empty list"):
        ParameterGrid({"C": 0.1})
    with pytest.raises(ValueError, match="non-empty list"):
        ParameterGrid({"C": []})


def test_parameter_sampler_reproduces_generator_draws():
    dists = {"lam": stats.loguniform(1e-2, 1e2), "kind": ["a", "b", "c"], "alpha": stats.uniform(0, 1)}
    got = list(ParameterSampler(dists, n_iter=5, random_state=3))
    rng = np.random.default_rng(3)
    expected = []
    for _ in range(5):  # keys in sorted order: alpha, kind, lam
        alpha = float(dists["alpha"].rvs(random_state=rng))
        kind = dists["kind"][int(rng.integers(3))]
        lam = float(dists["lam"].rvs(random_state=rng))
        expected.append({"alpha": alpha, "kind": kind, "lam": lam})
    assert got == expected
    assert all(isinstance(c["lam"], float) for c in got)
    assert got == list(ParameterSampler(dists, n_iter=5, random_state=3))
    assert got != list(ParameterSampler(dists, n_iter=5, random_state=4))
    assert len(ParameterSampler(dists, n_iter=5)) == 5


def test_parameter_sampler_lists_only_samples_grid_without_replacement():
    dists = {"a": [1, 2, 3], "b": [True, False]}
    got = list(ParameterSampler(dists, n_iter=4, random_state=0))
    assert len(got) == 4 and len({tuple(sorted(c.items())) for c in got}) == 4
    assert all(c in list(ParameterGrid(dists)) for c in got)
    with pytest.warns(UserWarning, match="exceeds the 6 grid candidates"):
        all_of_them = list(ParameterSampler(dists, n_iter=10, random_state=0))
    assert sorted(map(str, all_of_them)) == sorted(map(str, ParameterGrid(dists)))
    with pytest.raises(ValueError, match="non-empty list or a scipy.stats"):
        ParameterSampler({"a": 3}, n_iter=2)


# ---- evaluate_candidates ----


def test_evaluate_candidates_shapes_and_manual_oracle():
    X, y = blobs()
    folds = fold_data_for(X, y, StratifiedKFold(3, shuffle=True, random_state=0))
    candidates = [{"bias": -1e3}, {"bias": 0.0}, {"bias": 1e3}]
    results = evaluate_candidates(NearestClassMean(), candidates, folds, ACCURACY)
    assert [r["params"] for r in results] == candidates
    for cand, r in zip(candidates, results):
        assert r["train_scores"].shape == r["valid_scores"].shape == r["fit_times"].shape == (3,)
        assert [v.shape for v in r["oof_values"]] == [f[3].shape for f in folds]
        manual_valid, manual_train = [], []
        for X_tr, y_tr, X_va, y_va in folds:  # independent re-computation
            est = NearestClassMean(**cand).fit(X_tr, y_tr)
            manual_train.append(np.mean(est.predict(X_tr) == y_tr))
            manual_valid.append(np.mean(est.predict(X_va) == y_va))
        assert np.allclose(r["valid_scores"], manual_valid) and np.allclose(r["train_scores"], manual_train)
        assert r["mean_valid_score"] == pytest.approx(np.mean(manual_valid))
        assert r["std_valid_score"] == pytest.approx(np.std(manual_valid))
    # a huge |bias| predicts a single class: accuracy = that class's share of each fold
    assert results[0]["mean_valid_score"] == pytest.approx(0.5) and results[2]["mean_valid_score"] == pytest.approx(0.5)
    assert results[1]["mean_valid_score"] > 0.9
    assert [r["rank"] for r in results] == [2, 1, 3]  # tie between 0 and 2 -> earlier first
    assert best_candidate_index(results, True) == 1


def test_ranking_respects_greater_is_better_and_ties():
    res = [{"mean_valid_score": v} for v in (0.3, 0.1, 0.1, np.nan, 0.3)]
    assert best_candidate_index(res, greater_is_better=True) == 0  # tie 0 vs 4 -> earlier
    assert best_candidate_index(res, greater_is_better=False) == 1  # tie 1 vs 2 -> earlier; NaN is worst
    with pytest.raises(ValueError, match="NaN"):
        best_candidate_index([{"mean_valid_score": np.nan}], True)


def test_response_values_kinds():
    X, y = blobs()
    est = NearestClassMean().fit(X, y)
    assert response_values(est, X, "proba").shape == (60,)  # binary -> positive column
    assert np.allclose(response_values(est, X, "proba"), est.predict_proba(X)[:, 1])
    assert np.allclose(response_values(est, X, "score"), est.decision_function(X))
    assert np.array_equal(response_values(est, X, "label"), est.predict(X))

    class ThreeClass:
        def predict_proba(self, X):
            return np.full((len(X), 3), 1 / 3)

    assert response_values(ThreeClass(), X, "proba").shape == (60, 3)
    assert response_values(ThreeClass(), X, "score").shape == (60, 3)  # falls back to predict_proba
    with pytest.raises(ValueError, match="needs predict"):
        response_values(ThreeClass(), X, "label")
    with pytest.raises(ValueError, match="unknown response .margin."):
        response_values(est, X, "margin")


def test_fit_errors_name_the_candidate_and_fold():
    X, y = blobs()
    folds = fold_data_for(X, y, KFold(2))  # unshuffled: each training fold holds one class only
    with pytest.raises(ValueError, match="single class") as info:
        evaluate_candidates(NearestClassMean(), [{"bias": 0.0}], folds, ACCURACY)
    assert any("candidate 0" in note and "fold 0" in note for note in info.value.__notes__)


# ---- GridSearch / RandomSearch ----


def test_grid_search_picks_best_and_refits_on_all_rows():
    X, y = blobs(seed=1)
    est = NearestClassMean()
    search = GridSearch(
        est,
        {"bias": [50.0, 0.0, -50.0], "unused": [1, 2]},
        cv=StratifiedKFold(4, shuffle=True, random_state=0),
        scoring=ACCURACY,
    ).fit(X, y)
    assert len(search.results_) == 6 and len(search.splits_) == 4
    means = [r["mean_valid_score"] for r in search.results_]
    assert search.best_index_ == int(np.argmax(means))
    assert search.best_params_ == {"bias": 0.0, "unused": 1}  # "unused" ties -> earlier candidate
    assert search.best_score_ == max(means)
    assert not is_fitted(est)  # the template is never fitted
    best = search.best_estimator_
    assert best is not est and best.get_params()["bias"] == 0.0
    assert np.allclose(best.means_, [X[y == 0].mean(0), X[y == 1].mean(0)])  # refit on ALL rows
    assert np.array_equal(search.predict(X), best.predict(X))
    assert search.score(X, y) == pytest.approx(np.mean(best.predict(X) == y))
    # out-of-fold predictions of the best candidate, one per row
    assert search.oof_values_.shape == (60,)
    for (tr, te), v in zip(search.splits_, search.results_[search.best_index_]["oof_values"]):
        assert np.array_equal(search.oof_values_[te], v)


def test_grid_search_loss_scorer_selects_same_best():
    X, y = blobs(seed=2)
    cv = StratifiedKFold(3, shuffle=True, random_state=1)
    by_acc = GridSearch(NearestClassMean(), {"bias": [30.0, 0.0, -30.0]}, cv=cv, scoring=ACCURACY).fit(X, y)
    by_err = GridSearch(NearestClassMean(), {"bias": [30.0, 0.0, -30.0]}, cv=cv, scoring=ERROR_RATE).fit(X, y)
    assert by_acc.best_index_ == by_err.best_index_ == 1
    assert by_err.best_score_ == pytest.approx(1 - by_acc.best_score_)


def test_pipeline_preprocessing_is_refitted_per_fold():
    """Leakage rule L2 (D4:567): the scaler inside the pipeline sees only each training fold's rows."""
    X, y = blobs(seed=3)
    X[0] += 1000.0  # an outlier: all-row statistics would differ a lot
    cv = KFold(3, shuffle=True, random_state=0)
    pipe = Pipeline([("scale", RecordingScaler()), ("clf", NearestClassMean())])
    FITTED_MEANS.clear()
    search = GridSearch(pipe, {"clf__bias": [0.0, 1.0]}, cv=cv, scoring=ACCURACY).fit(X, y)
    train_means = [X[tr].mean(0) for tr, _ in search.splits_]
    per_fold_fits = FITTED_MEANS[:-1]  # the last fit is the refit on all rows
    assert len(per_fold_fits) == 2 * 3
    for i, m in enumerate(per_fold_fits):  # fold by fold: both candidates on fold 0, then on fold 1, ...
        assert np.allclose(m, train_means[i // 2])
        assert not np.allclose(m, X.mean(0))
    assert np.allclose(FITTED_MEANS[-1], X.mean(0))
    assert search.best_estimator_.steps[1][1].bias == search.best_params_["clf__bias"]


def test_random_search_is_seeded_and_consistent_with_the_sampler():
    X, y = blobs(seed=4)
    dists = {"bias": stats.uniform(-5, 10)}
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    a = RandomSearch(NearestClassMean(), dists, n_iter=6, cv=cv, scoring=ACCURACY, random_state=7).fit(X, y)
    b = RandomSearch(NearestClassMean(), dists, n_iter=6, cv=cv, scoring=ACCURACY, random_state=7).fit(X, y)
    assert [r["params"] for r in a.results_] == list(ParameterSampler(dists, 6, random_state=7))
    assert [r["params"] for r in a.results_] == [r["params"] for r in b.results_]
    means = np.array([r["mean_valid_score"] for r in a.results_])
    assert a.best_index_ == int(np.argmax(means))


def test_search_with_groups_and_int_cv_uses_grouped_folds():
    X, y = blobs(seed=5)
    groups = np.repeat(np.arange(12), 5)
    s = GridSearch(NearestClassMean(), {"bias": [0.0]}, cv=4, scoring=ACCURACY).fit(X, y, groups=groups)
    for tr, te in s.splits_:
        assert not set(groups[tr]) & set(groups[te])
    with pytest.raises(ValueError, match="leaks groups"):
        GridSearch(
            NearestClassMean(), {"bias": [0.0]}, cv=KFold(4, shuffle=True, random_state=0), scoring=ACCURACY
        ).fit(X, y, groups=groups)


def test_search_with_precomputed_splits_and_string_scoring():
    X, y = blobs(seed=6)
    splits = list(StratifiedKFold(3, shuffle=True, random_state=2).split(X, y))
    s = GridSearch(NearestClassMean(), {"bias": [0.0]}, cv=splits, scoring=ACCURACY).fit(X, y)
    assert len(s.splits_) == 3
    metrics = pytest.importorskip("mllib.metrics")
    if not hasattr(metrics, "get_scorer"):
        pytest.skip("mllib.metrics.get_scorer not available yet")
    s2 = GridSearch(NearestClassMean(), {"bias": [0.0]}, cv=splits, scoring="accuracy").fit(X, y)
    assert s2.best_score_ == pytest.approx(s.best_score_)


def test_search_errors():
    X, y = blobs()
    with pytest.raises(ValueError, match="scoring must be a scorer name or an object"):
        GridSearch(NearestClassMean(), {"bias": [0.0]}).fit(X, y)
    with pytest.raises(ValueError, match="scoring must be a scorer name or an object with .score"):
        GridSearch(NearestClassMean(), {"bias": [0.0]}, scoring=object()).fit(X, y)
    no_refit = GridSearch(NearestClassMean(), {"bias": [0.0]}, cv=StratifiedKFold(2), scoring=ACCURACY, refit=False)
    with pytest.raises(ValueError, match="refit=False"):
        no_refit.fit(X, y).predict(X)
    with pytest.raises(ValueError, match="has no parameter 'C'"):
        GridSearch(NearestClassMean(), {"C": [1]}, cv=StratifiedKFold(2), scoring=ACCURACY).fit(X, y)


# ---- nested CV ----


def test_nested_cv_with_a_single_candidate_equals_plain_cv():
    X, y = blobs(seed=8)
    outer = StratifiedKFold(3, shuffle=True, random_state=0)
    inner = StratifiedKFold(3, shuffle=True, random_state=1)
    search = GridSearch(NearestClassMean(), {"bias": [0.0]}, cv=inner, scoring=ACCURACY)
    out = nested_cv(search, X, y, outer)
    plain = evaluate_candidates(NearestClassMean(), [{"bias": 0.0}], fold_data_for(X, y, outer), ACCURACY)[0]
    assert np.allclose(out["outer_scores"], plain["valid_scores"])
    assert out["best_params"] == [{"bias": 0.0}] * 3
    assert out["inner_best_scores"].shape == (3,)
    assert out["optimism"] == pytest.approx(out["mean_inner_best_score"] - out["mean_outer_score"])


def test_nested_cv_reports_inner_choices():
    X, y = blobs(seed=9)
    search = GridSearch(
        NearestClassMean(),
        {"bias": [40.0, 0.0, -40.0]},
        cv=StratifiedKFold(3, shuffle=True, random_state=1),
        scoring=ERROR_RATE,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = nested_cv(search, X, y, StratifiedKFold(4, shuffle=True, random_state=0))
    assert out["best_params"] == [{"bias": 0.0}] * 4
    assert out["outer_scores"].shape == (4,) and np.all(out["outer_scores"] <= 0.2)
    assert out["optimism"] == pytest.approx(out["mean_outer_score"] - out["mean_inner_best_score"])


def test_fits_that_stop_at_their_cap_are_recorded_per_candidate_and_fold():
    """A candidate whose fit stops at its iteration cap (mllib.base.ConvergenceWarning) is named with the folds it
    happened on, so a search never hides it; other candidates record nothing."""
    from mllib.linear import LogisticRegression

    X, y = blobs()
    folds = fold_data_for(X, y, StratifiedKFold(3, shuffle=True, random_state=0))
    results = evaluate_candidates(
        LogisticRegression(solver="newton"), [{"max_iter": 1}, {"max_iter": 100}], folds, ACCURACY
    )
    capped, free = results
    assert [w["fold"] for w in capped["not_converged"]] == [0, 1, 2]
    assert all("stopped at max_iter=1" in w["message"] for w in capped["not_converged"])
    assert free["not_converged"] == []
