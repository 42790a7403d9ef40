"""Hyperparameter search: every candidate is cloned, fitted and scored per fold, then the best is refitted.

Rule: select hyperparameters on validation folds only (never on the test set), refit the chosen
configuration on all training data ("refit = True"), evaluate once on the test set; everything
fitted from data (preprocessing inside an mllib Pipeline) is refitted per fold
(seed 004, D4:529-554, 543, 567, 808; seed 003, D3:334-338, grid lambda in {1e-2, ..., 100}).

A scorer is any object with `.score(y_true, values)`, `.greater_is_better` and
`.response` in {"proba", "label", "score"} (proba: predict_proba[:, 1] for binary, the full matrix
otherwise; score: decision_function, or predict_proba if there is none; label: predict), e.g.
mllib.metrics.get_scorer(name); a string scoring is looked up there. Means and stds over folds use ddof=0.

Sections cited:
- Introduction to Machine Learning (Heidelberg) (seed 003): Support Vector Machine (SVM) (334)
- Ghent ML notes (seed 004): 3.4 Robust Validation Strategies (529)"""

from __future__ import annotations

import functools
import time
from typing import NamedTuple

import numpy as np

from mllib.base import (
    BaseEstimator,
    GroupLabels,
    check_is_fitted,
    clone,
    fit_blocks_with_groups,
    fit_with_groups,
    lookup,
    record_convergence,
)
from mllib.io import to_state

from ._checks import check_no_group_overlap, column, num_samples
from .candidates import ParameterGrid, ParameterSampler
from .splitters import GroupKFold, KFold

__all__ = [
    "FoldData",
    "evaluate_candidates",
    "best_candidate_index",
    "GridSearch",
    "RandomSearch",
    "resolve_cv",
    "response_values",
]

RESPONSES = ("proba", "label", "score")


def _check_scorer(scorer):
    if (
        not all(hasattr(scorer, a) for a in ("score", "greater_is_better"))
        or getattr(scorer, "response", 0) not in RESPONSES
    ):
        raise ValueError(
            f"scoring must be a scorer name or an object with .score(y_true, values), .greater_is_better and a "
            f".response in {RESPONSES}, got {scorer!r}"
        )
    return scorer


def _resolve_scorer(scoring):
    if isinstance(scoring, str):
        from mllib.metrics import get_scorer  # mllib.metrics imports this module

        return _check_scorer(get_scorer(scoring))
    return _check_scorer(scoring)


def response_values(estimator, X, response: str) -> np.ndarray:
    """The values a scorer needs: predict_proba (positive column if binary), decision_function or predict.

    response="score" falls back to predict_proba when the estimator has no decision_function.
    """
    method = lookup({"proba": "predict_proba", "score": "decision_function", "label": "predict"}, response, "response")
    if response == "score" and not hasattr(estimator, method) and hasattr(estimator, "predict_proba"):
        method, response = "predict_proba", "proba"  # same ranking for rank-based scorers (ROC-AUC, AP)
    if not hasattr(estimator, method):
        raise ValueError(
            f"the scorer needs {method} (response={response!r}) but {type(estimator).__name__} has none; "
            "use a scorer with another response"
        )
    values = np.asarray(getattr(estimator, method)(X))
    if response == "proba" and values.ndim == 2 and values.shape[1] == 2:
        return values[:, 1]
    return values


class BlockFold(NamedTuple):
    """A fold whose rows are held in blocks (mllib.base.RowBlocks, or a cluster's): the fit part and the validation
    part, each a sequence of (X, y, sample_weight or None) blocks. evaluate_candidates fits an estimator's
    fit_blocks on `fit` and scores the responses gathered block by block, so only the responses travel."""

    fit: object
    valid: object
    groups: object = None  # each fit row's group, in block order (early stopping holds out whole groups), or None


def block_responses(estimator, blocks, response: str) -> tuple[np.ndarray, np.ndarray]:
    """(response values, y) of every row of the blocks, in block order."""
    found = blocks.map(_block_response, estimator, response)
    return np.concatenate([v for v, _ in found]), np.concatenate([y for _, y in found])


def _block_response(block, estimator, response: str) -> tuple[np.ndarray, np.ndarray]:
    return response_values(estimator, block[0], response), np.asarray(block[1])


def _summary(scores: list[float]) -> tuple[np.ndarray, float, float]:
    a = np.asarray(scores, dtype=np.float64)
    return a, float(a.mean()), float(a.std())


def evaluate_one(estimator, scorer, fold, params: dict, keep_model: bool = False) -> tuple:
    """One (candidate, fold) task: clone, set_params, fit on the fold's training part, score both parts.
    Returns (train_score, valid_score, fit_seconds, validation response values, the fit's ConvergenceWarning
    messages[, the fitted model as an mllib.io state]). A module-level function, so a caller may run the tasks in
    other processes (the warnings travel back as text)."""
    est = clone(estimator).set_params(**params)
    t0 = time.perf_counter()
    if isinstance(fold, BlockFold):
        with record_convergence() as stopped:
            fit_blocks_with_groups(est, fold.fit, fold.groups)
        fit_time = time.perf_counter() - t0
        v_tr, y_tr = block_responses(est, fold.fit, scorer.response)
        v_va, y_va = block_responses(est, fold.valid, scorer.response)
    else:
        if len(fold) not in (4, 5):
            raise ValueError(
                f"a fold must be (X_train, y_train, X_valid, y_valid[, groups_train]), got {len(fold)} items"
            )
        X_tr, y_tr, X_va, y_va = fold[:4]
        with record_convergence() as stopped:
            fit_with_groups(est, X_tr, y_tr, fold[4] if len(fold) > 4 else None)
        fit_time = time.perf_counter() - t0
        v_tr = response_values(est, X_tr, scorer.response)
        v_va = response_values(est, X_va, scorer.response)
    out = float(scorer.score(y_tr, v_tr)), float(scorer.score(y_va, v_va)), fit_time, v_va, stopped
    return out + (to_state(est),) if keep_model else out


class FoldData:
    """The fold_data of evaluate_candidates made when asked for: fold_data[k] is `(X[fit], y[fit], X[valid], y[valid]
    [, groups[fit]])` of the k-th split (fit, valid), sliced when indexed; only the last fold is kept, so a search that
    goes fold by fold holds one fold's copies at a time, whatever the number of splits.

    Parameters
    ----------
    X : array of shape (n_samples, n_features), or callable
        The rows every split indexes, or matrix(k) -> the rows of split k (e.g. features fitted per split, read
        from disk when the split is reached; picklable, such as a module-level function, if worker processes get it).
    y : array of shape (n_samples,)
    splits : list of (fit, valid) index arrays
    groups : array of shape (n_samples,) or None
        The fit rows' groups are the fold's fifth entry, for estimators that cross-validate inside them.
    """

    def __init__(self, X, y, splits, groups=None):
        self.X, self.y, self.splits, self.groups = X, y, list(splits), groups
        self._last: tuple = (None, None)

    def __len__(self) -> int:
        return len(self.splits)

    def __getitem__(self, k: int) -> tuple:
        if not 0 <= k < len(self.splits):
            raise IndexError(f"fold {k} of {len(self.splits)}")
        if self._last[0] != k:
            self._last = (None, None)  # release the previous fold before slicing the next
            X = self.X(k) if callable(self.X) else self.X
            fit, valid = self.splits[k]
            fold = (np.asarray(X[fit]), self.y[fit], np.asarray(X[valid]), self.y[valid])
            self._last = (k, fold + (() if self.groups is None else (self.groups[fit],)))
        return self._last[1]

    def __getstate__(self) -> dict:  # to a worker process without the fold in memory
        return {**self.__dict__, "_last": (None, None)}


def _serial(fn, shared, tasks: list, progress=None) -> list:
    out, seen = [], {}
    for n, (k, params) in enumerate(tasks, start=1):
        candidate = seen[k] = seen.get(k, -1) + 1  # the candidate's position among the fold's tasks
        try:
            out.append(fn(shared[k], params))
        except Exception as exc:
            exc.add_note(f"while evaluating candidate {candidate} {params} on fold {k}")
            raise
        if progress is not None:
            progress(n, len(tasks), params)
    return out


def evaluate_candidates(
    estimator, candidates, fold_data, scorer, progress=None, run_tasks=None, keep_models: bool = False
) -> list[dict]:
    """Clone, set_params, fit and score every candidate on every fold.

    progress: optional callable progress(done, total, params) after each (candidate, fold) fit, for a caller that
    reports how far the search is (the library itself prints nothing).
    run_tasks: optional run_tasks(fn, shared, tasks, progress) -> results in task order, where each task is
    (k, params) and the result fn(shared[k], params): how the caller runs the independent (candidate, fold) tasks
    (worker processes, a cluster); shared is fold_data, to be sent to each worker once. Default: one by one here.
    The results do not depend on how the tasks run (each fit is seeded by the estimator's own random_state).
    fold_data: a sequence of (X_train, y_train, X_valid, y_valid[, groups_train]) or of BlockFold (rows held in
    blocks: the estimator's fit_blocks), indexed by fold; with groups, an
    estimator whose fit takes groups (stacking, a selecting pipeline) gets them for its inner folds. The tasks go
    fold by fold (every candidate on fold 0, then on fold 1, ...), so a sequence that reads a fold from disk when
    indexed and keeps only the last one holds one fold in memory at a time. Returns one dict per candidate, in
    order:
    {"candidate", "params", "train_scores", "valid_scores" (arrays, one entry per fold),
     "mean_train_score", "std_train_score", "mean_valid_score", "std_valid_score",
     "oof_values" (list of the per-fold validation response values), "fit_times", "not_converged" ([{fold,
     message}] of the fits that stopped at an iteration cap: mllib.base.ConvergenceWarning), "rank"}.
    rank 1 is the best mean validation score (respecting greater_is_better; ties -> earlier candidate).
    keep_models: also "model_states", each fold's fitted model as an mllib.io state (mllib.io.from_state rebuilds
    it), so a caller needs no refit for the chosen candidate's out-of-fold predictions.
    """
    _check_scorer(scorer)
    candidates = [dict(c) for c in candidates]
    if not candidates:
        raise ValueError("no candidates to evaluate")
    n_folds = len(fold_data)
    if not n_folds:
        raise ValueError("fold_data is empty: pass a list of (X_train, y_train, X_valid, y_valid) tuples")
    tasks = [(k, params) for k in range(n_folds) for params in candidates]
    outcomes = (run_tasks or _serial)(
        functools.partial(evaluate_one, estimator, scorer, keep_model=keep_models), fold_data, tasks, progress
    )
    by_candidate = [[outcomes[k * len(candidates) + i] for k in range(n_folds)] for i in range(len(candidates))]
    results = []
    for i, params in enumerate(candidates):
        mine = by_candidate[i]
        tr, tr_mean, tr_std = _summary([o[0] for o in mine])
        va, va_mean, va_std = _summary([o[1] for o in mine])
        results.append(
            {
                "candidate": i,
                "params": params,
                "train_scores": tr,
                "valid_scores": va,
                "mean_train_score": tr_mean,
                "std_train_score": tr_std,
                "mean_valid_score": va_mean,
                "std_valid_score": va_std,
                "oof_values": [o[3] for o in mine],
                "fit_times": np.asarray([o[2] for o in mine]),
                "not_converged": [{"fold": k, "message": m} for k, o in enumerate(mine) for m in o[4]],
                **({"model_states": [o[5] for o in mine]} if keep_models else {}),
            }
        )
    order = _ranking(results, scorer.greater_is_better)
    for r, i in enumerate(order, start=1):
        results[i]["rank"] = r
    return results


def _ranking(results, greater_is_better: bool) -> np.ndarray:
    means = np.array([r["mean_valid_score"] for r in results], dtype=np.float64)
    key = means if greater_is_better else -means
    key = np.where(np.isnan(key), -np.inf, key)
    return np.argsort(-key, kind="stable")


def best_candidate_index(results, greater_is_better: bool) -> int:
    """Index of the best mean validation score (NaN is worst; ties -> the earlier candidate)."""
    if all(np.isnan(r["mean_valid_score"]) for r in results):
        raise ValueError("every candidate has a NaN mean validation score; check the scorer and the folds")
    return int(_ranking(results, greater_is_better)[0])


def resolve_cv(cv, X=None, y=None, groups=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """List of (train_idx, test_idx): cv is a splitter (anything with .split), an int k (KFold(k), or
    GroupKFold(k) when groups are given; both unshuffled, so pass an explicit seeded splitter in
    pipelines), or an iterable of (train_idx, test_idx) pairs. Group overlap is checked in every case."""
    n = num_samples(X, y, groups)
    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        cv = GroupKFold(int(cv)) if groups is not None else KFold(int(cv))
    if hasattr(cv, "split"):
        splits = list(cv.split(X, y, groups))
    else:
        try:
            splits = [(np.asarray(tr, dtype=np.int64), np.asarray(te, dtype=np.int64)) for tr, te in cv]
        except (TypeError, ValueError):
            raise ValueError(
                f"cv must be a splitter, an int or an iterable of (train_idx, test_idx) pairs, got {cv!r}"
            ) from None
    if not splits:
        raise ValueError("cv produced no splits")
    g = None if groups is None else GroupLabels.of(column(groups, "groups", n))  # encoded once for every split
    for k, (tr, te) in enumerate(splits):
        if min(tr.size, te.size) == 0 or min(tr.min(), te.min()) < 0 or max(tr.max(), te.max()) >= n:
            raise ValueError(f"split {k} must have train and validation rows, with indices in 0..{n - 1}")
        if g is not None:
            check_no_group_overlap(tr, te, g, splitter=type(cv).__name__)
    return splits


class _BaseSearch(BaseEstimator):
    """fit(X, y, groups=None) -> self with results_, best_index_, best_params_, best_score_,
    best_estimator_ (refit on all rows if refit), splits_, scorer_ and oof_values_ (validation response
    of the best candidate per row when the validation folds are disjoint, else None)."""

    def _candidates(self) -> list[dict]:
        raise NotImplementedError

    def fit(self, X, y, groups=None):
        scorer = _resolve_scorer(self.scoring)
        X = np.asarray(X)
        y = np.asarray(y)
        splits = resolve_cv(self.cv, X, y, groups)
        g = None if groups is None else np.asarray(groups)
        fold_data = FoldData(X, y, splits, g)
        candidates = self._candidates()
        results = evaluate_candidates(self.estimator, candidates, fold_data, scorer)
        best = best_candidate_index(results, scorer.greater_is_better)
        self.results_ = results
        self.best_index_ = best
        self.best_params_ = dict(results[best]["params"])
        self.best_score_ = results[best]["mean_valid_score"]
        self.splits_ = splits
        self.scorer_ = scorer
        self.oof_values_ = self._assemble_oof(results[best]["oof_values"], splits, y.shape[0])
        if self.refit:
            self.best_estimator_ = fit_with_groups(clone(self.estimator).set_params(**self.best_params_), X, y, g)
        return self

    @staticmethod
    def _assemble_oof(values, splits, n):
        tests = np.concatenate([te for _, te in splits])
        if np.unique(tests).size != tests.size:
            return None
        first = np.asarray(values[0])
        out = np.full((n,) + first.shape[1:], np.nan, dtype=np.float64 if first.dtype.kind in "biuf" else object)
        for v, (_, te) in zip(values, splits):
            out[te] = v
        return out

    def _fitted_best(self):
        check_is_fitted(self)
        if not hasattr(self, "best_estimator_"):
            raise ValueError(f"{type(self).__name__} was fitted with refit=False; there is no best_estimator_")
        return self.best_estimator_

    def predict(self, X):
        return self._fitted_best().predict(X)

    def predict_proba(self, X):
        return self._fitted_best().predict_proba(X)

    def decision_function(self, X):
        return self._fitted_best().decision_function(X)

    def score(self, X, y) -> float:
        """The search's scorer on (X, y) with the refitted best estimator."""
        est = self._fitted_best()
        return float(self.scorer_.score(np.asarray(y), response_values(est, X, self.scorer_.response)))


class GridSearch(_BaseSearch):
    """Exhaustive search over ParameterGrid(param_grid), every candidate scored by cross-validation on the same splits.

    Parameters
    ----------
    estimator : estimator
        The unfitted estimator; each candidate is a clone with the candidate's parameters.
    param_grid : dict or list of dicts
        {parameter: list of values}; the grid is the product of the lists (a list of dicts: their union).
    cv : int, splitter or iterable of (train, test) index pairs, default 5
        An int k is KFold(k), or GroupKFold(k) when fit gets groups (both unshuffled: pass a seeded splitter in
        pipelines). Group overlap is checked in every case.
    scoring : str, Scorer or None, default None
        A scorer name of mllib.metrics ("roc_auc", "r2", ...) or a Scorer object; required (None raises).
    refit : bool, default True
        Refit the best candidate on all rows (best_estimator_).

    Attributes
    ----------
    results_ : list of dict
        One entry per candidate.
    best_index_ : int
        The best candidate's index in results_.
    best_params_ : dict
        Its parameters.
    best_score_ : float
        Its mean validation score.
    best_estimator_ : estimator
        The best candidate refit on all rows (if refit).
    splits_ : list of (train, test) index pairs
        The cross-validation splits.
    scorer_ : Scorer
        The scorer.
    oof_values_ : ndarray or None
        The validation response of the best candidate per row when the validation folds are disjoint, else None.
    """

    def __init__(self, estimator, param_grid, cv=5, scoring=None, refit=True):
        self.estimator = estimator
        self.param_grid = param_grid
        self.cv = cv
        self.scoring = scoring
        self.refit = refit

    def _candidates(self):
        return list(ParameterGrid(self.param_grid))


class RandomSearch(_BaseSearch):
    """Random search over ParameterSampler(param_distributions, n_iter, random_state), scored as GridSearch.

    Parameters
    ----------
    estimator : estimator
        The unfitted estimator; each candidate is a clone with the candidate's parameters.
    param_distributions : dict
        {parameter: list (sampled uniformly) or scipy.stats frozen distribution}.
    n_iter : int, default 10
        Number of candidates drawn.
    cv : int, splitter or iterable of (train, test) index pairs, default 5
        An int k is KFold(k), or GroupKFold(k) when fit gets groups (both unshuffled: pass a seeded splitter in
        pipelines). Group overlap is checked in every case.
    scoring : str, Scorer or None, default None
        A scorer name of mllib.metrics ("roc_auc", "r2", ...) or a Scorer object; required (None raises).
    random_state : int, Generator or None, default None
        Seeds the candidates drawn.
    refit : bool, default True
        Refit the best candidate on all rows (best_estimator_).

    Attributes
    ----------
    results_ : list of dict
        One entry per candidate.
    best_index_ : int
        The best candidate's index in results_.
    best_params_ : dict
        Its parameters.
    best_score_ : float
        Its mean validation score.
    best_estimator_ : estimator
        The best candidate refit on all rows (if refit).
    splits_ : list of (train, test) index pairs
        The cross-validation splits.
    scorer_ : Scorer
        The scorer.
    oof_values_ : ndarray or None
        The validation response of the best candidate per row when the validation folds are disjoint, else None.
    """

    def __init__(self, estimator, param_distributions, n_iter=10, cv=5, scoring=None, random_state=None, refit=True):
        self.estimator = estimator
        self.param_distributions = param_distributions
        self.n_iter = n_iter
        self.cv = cv
        self.scoring = scoring
        self.random_state = random_state
        self.refit = refit

    def _candidates(self):
        return list(ParameterSampler(self.param_distributions, self.n_iter, self.random_state))
