"""Permutation importance: how much worse the fitted model scores when one feature's values are shuffled.

Rule: score the model on unseen data (the baseline); permute one feature's values across rows and score
again without retraining; the drop in score is that feature's importance, largest = most important.
Notes: seed 004, D4:2022-2040 (algorithm, benefits, drawbacks); also D4:979 (as feature selection);
catalogue section 4.1.

Sign: importance = baseline - permuted for a greater-is-better score (accuracy, AUC) and
permuted - baseline for a loss (MSE, log-loss), so in both cases larger = more important and a feature
the model ignores gets exactly 0. Negative values mean the shuffled feature scored better by chance.

Caveats from the notes (D4:2036-2040): global only (nothing about a single prediction), no insight into
interactions, and misleading for strongly correlated features: the model is then scored on rows that
never occur. Passing a group of columns in `columns` permutes them jointly with one row permutation,
which keeps their joint distribution (grouped permutation importance).
Compute it on held-out data, never on the rows the model was fitted on.

Interval: mean +- t_{1 - alpha/2, n_repeats - 1} s / sqrt(n_repeats), with s the sample (ddof=1) standard
deviation over repeats: a Student-t interval, since a normal quantile with so few repeats (5 by default) is
too narrow. It covers only the randomness of the permutations, not the sampling of the held-out rows; with one
repeat it is undefined (nan).

Sections cited: Ghent ML notes (seed 004): 5.4 DP: Dimensionality Reduction (979); 11.2 Model Explainability (2022,
    2036)"""

from __future__ import annotations

import numpy as np
from scipy.special import stdtrit

from ..base import (
    OPEN_UNIT,
    HasMethod,
    MixedMatrix,
    check_column_indices,
    check_random_state,
    check_rows,
    check_shape,
    checked_arguments,
    positive_int,
)


def _normalise_columns(columns, n_features: int) -> list:
    """Each entry: a column index, or a sequence of indices permuted together; returned as int or tuple of ints."""
    if columns is None:
        return list(range(n_features))
    if isinstance(columns, (int, np.integer)):
        columns = [columns]
    result = []
    for entry in columns:
        group = tuple(check_column_indices(entry, n_features, "each entry of columns"))
        result.append(group[0] if isinstance(entry, (int, np.integer)) else group)
    if not result or () in result:
        raise ValueError(f"columns must name at least one column in each entry, got {columns!r}: nothing to permute")
    return result


def _column_rng(root: int, group: tuple) -> np.random.Generator:
    """An independent stream per column (group), keyed by its indices, not by its position in `columns`.

    So a column's permutations are the same whether it is evaluated alone, first or last; the length
    prefix keeps (1,) and (1, 0) distinct (SeedSequence pads short keys with zeros).
    """
    return np.random.default_rng(np.random.SeedSequence(root, spawn_key=(len(group), *group)))


def _after(features, predict):
    return lambda X: predict(features.transform(X))


@checked_arguments(
    predict=HasMethod("__call__", "a callable X -> predictions"),
    scorer=HasMethod("score", "a scorer with .score(y_true, values) and .greater_is_better"),
    n_repeats=positive_int(),
    confidence_level=OPEN_UNIT,
)
def permutation_importance(
    predict,
    X,
    y,
    scorer,
    n_repeats: int = 5,
    random_state=None,
    columns=None,
    confidence_level: float = 0.95,
    progress=None,
    features=None,
) -> dict:
    """Permutation importance of each column (or column group) of X for a fitted model.

    predict: callable X -> the values the scorer needs (labels, probabilities, regression outputs).
        It receives a working copy of X that is modified afterwards, so it must not keep a reference to it.
    X: 2-D array (object dtype allowed: raw data with strings) or mllib.base.MixedMatrix; whole columns are
        permuted by row index, so every column keeps its dtype and values.
    y: targets passed unchanged to the scorer.
    scorer: object with .score(y_true, values) -> float and .greater_is_better (bool).
    n_repeats: permutations per column; random_state: int, numpy Generator or None.
    columns: None (every column), or a list whose entries are column indices or sequences of indices
        permuted jointly.
    confidence_level: of the Student-t interval for each mean importance.
    progress: optional callable progress(done, total) after each column (the library itself prints nothing).
    features: optional fitted transformer whose output predict takes: the model sees predict(features.transform(X)).
        When it is column-wise (column_outputs() is not None, e.g. imputation, scaling and one-hot encoding in a
        ColumnTransformer), X is transformed once and a permutation of column j moves only j's outputs: the
        same importances as transforming every permuted copy, at the cost of one transform.

    Returns {baseline_score, importances (n_columns, n_repeats), importances_mean, importances_std (ddof=1; nan
    for one repeat), importances_interval (n_columns, 2), confidence_level, columns, greater_is_better}.
    The same random_state gives identical output.
    """
    X = check_shape(X if isinstance(X, MixedMatrix) else np.asarray(X), 2, "X", "n_samples, n_features")
    n_samples = check_rows(X=X, y=y)
    if n_samples < 2:
        raise ValueError(f"X needs at least 2 rows to permute, got {n_samples}")
    entries = _normalise_columns(columns, X.shape[1])
    # one draw from the caller's generator seeds every column's stream: same seed -> same output
    root = int(check_random_state(random_state).integers(2**63))
    greater_is_better = bool(scorer.greater_is_better)

    outputs = None if features is None else getattr(features, "column_outputs", lambda: None)()
    if outputs is not None:
        X = features.transform(X)
    elif features is not None:
        predict = _after(features, predict)

    baseline = float(scorer.score(y, predict(X)))
    importances = np.empty((len(entries), int(n_repeats)))
    X_work = X.copy()  # shallow for object arrays: cells are moved, never copied or converted
    for i, entry in enumerate(entries):
        group = (entry,) if isinstance(entry, int) else entry
        cols = list(group) if outputs is None else sorted({o for c in group for o in outputs[c]})
        rng = _column_rng(root, group)
        for r in range(n_repeats):
            X_work[:, cols] = X[:, cols][rng.permutation(n_samples)]
            # a column without outputs (dropped by a selector) changes nothing: importance exactly 0
            permuted = float(scorer.score(y, predict(X_work))) if cols else baseline
            importances[i, r] = baseline - permuted if greater_is_better else permuted - baseline
        X_work[:, cols] = X[:, cols]
        if progress is not None:
            progress(i + 1, len(entries))
    mean = importances.mean(axis=1)
    std = importances.std(axis=1, ddof=1) if n_repeats > 1 else np.full(len(entries), np.nan)
    half = stdtrit(n_repeats - 1, 0.5 + confidence_level / 2) * std / np.sqrt(n_repeats)
    return {
        "baseline_score": baseline,
        "importances": importances,
        "importances_mean": mean,
        "importances_std": std,
        "importances_interval": np.column_stack([mean - half, mean + half]),
        "confidence_level": float(confidence_level),
        "columns": entries,
        "greater_is_better": greater_is_better,
    }
