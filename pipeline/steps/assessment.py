"""How much to trust the cross-validated score: the leakage estimate and the learning curve of the chosen model.

Leakage estimate (when data.group is set): the chosen configuration scored by a row-level k-fold of the same
training rows (stratified by class, k = split.n_splits, the features refitted per fold as everywhere), beside the
grouped CV score of the search. Rows of one group (a person's years) in both the fitting and the validation part
let a model recognise the group rather than generalise to new ones, so the row-level score is optimistic; the
inflation (row-level minus grouped mean) comes with a Welch t interval over the two sets of fold scores. Notes:
seed 004, D4:509 (split by group), D4:567 (a validation-test gap from leakage between the splits).

Learning curve (seed 004, D4:471-489): on each split, the model fitted on growing shares of the split's training
rows (on the features fitted on the whole training part), train and validation score per size. The diagnosis
(D4:419-469, 556-560) judges two paired quantities per split, each with its Student t interval over the splits: the
train-validation gap at full size, and the rise of the validation score over the last step of the data. With a
tolerance of 1% of the score's size (at least 0.01): high variance (overfitting) when the gap's interval lies above
the tolerance (and more data would help when the rise's lies above 0); no overfitting (the remaining error is bias or
irreducible noise, which the curve cannot tell apart) when the gap's and the rise's intervals both lie below it;
otherwise inconclusive: the fold-to-fold noise is too large to tell, which is an answer (few or unequal groups,
small files). The spread of fold scores is not the model's variance (D4:483).

Nested CV (seed 003, D3:338; seed 004, D4:543, 567): around the whole selection, on the splits of the split stage:
on each split, every model's search (the same candidates; with model.candidates, every listed model over its own
grid, then model.selection's rule between them) runs on inner folds of the split's training part (grouped by
data.group), and the chosen configuration, refitted on the split's training part, is scored once on the split's
validation part, which no inner fit sees. The mean of those outer scores estimates how well the whole procedure,
the choice of the model family included, does on new data; the inner best scores minus the outer ones is its
optimism. The inner folds use the split's features (fitted on the split's training part only, as the search's
do).

Leakage beyond groups (seed 004, D4:509, 567): a column that predicts the target nearly perfectly on its own is far
more often a copy or a consequence of the target (a later outcome, an id that encodes the label) than a discovery.
Each feature column of each split's matrix alone, through a depth-3 tree fitted on the split's training part, is
scored on the split's validation part by the task's default score (ROC AUC, macro one-vs-rest ROC AUC, R^2); a
column whose mean reaches assess.single_feature_bound is flagged, in the card and the trust section, and the
promotion gate does not promote the model while a flagged column is not listed in assess.legitimate_features.

Validation curve (D4:195-205, 361-377): one hyperparameter of the chosen model swept over values from params (the
others at the chosen values), train and validation score per value on the same grouped splits.

Sections cited:
- Introduction to Machine Learning (Heidelberg) (seed 003): Support Vector Machine (SVM) (338)
- Ghent ML notes (seed 004): 1.5 Model Selection: hyperparameter analysis (195); 3.2 Bias and Variance (419, 471,
  483); 3.3 Risks of Data Splitting and IID Assumption Fulfillment (509); 3.4 Robust Validation Strategies (543);
  3.5 Analysis of Model Performance (567)"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import stdtrit

from mllib.base import fit_with_groups
from mllib.model_selection import (
    FoldData,
    evaluate_candidates,
    inner_splitter,
    learning_curve,
    response_values,
)

from ..core import build, paths
from ..core.assessment_records import CurveDiagnosis, Leakage, LearningCurve, SingleFeature, TemporalLeakage
from ..core.compute import Plan, Work
from ..core.frames import feature_columns, raw_matrix, time_input
from ..core.io import read_estimators, read_json, read_parquet
from ..core.json_types import JSON
from ..core.progress import Progress
from ..core.records import FeaturesReport
from ..core.timeline import time_axis
from . import folds
from .feature_blocks import read_rows, split_features, stated_sample, transformed, within

if TYPE_CHECKING:
    from mllib.base import BaseEstimator, MixedMatrix
    from mllib.metrics.scorers import Scorer

    from ..core.build import Transformer
    from ..core.task import Target
    from .folds import SplitList

Scores = list[float] | np.ndarray  # a configuration's fold scores: a search report's list, or evaluate_candidates'
Curve = tuple[np.ndarray, np.ndarray, np.ndarray]  # a split's learning curve: (training rows, train, valid) per share


def refitted_scores(
    X_raw: MixedMatrix,
    y: np.ndarray,
    make_features: Callable[[], Transformer],
    make_model: Callable[[], BaseEstimator],
    scorer: Scorer,
    splits: Iterable[tuple[np.ndarray, np.ndarray]],
    what: str,
) -> Plan[list[float]]:
    """Validation scores of these splits of the raw rows: the features and the model fitted per split."""
    splits = list(splits)

    def one_split(k: int) -> float:
        fit, valid = splits[k]
        # fit_with_groups without groups is their fit(X, y); mllib declares fit on no common base class
        features = fit_with_groups(make_features(), X_raw[fit], y[fit])
        model = fit_with_groups(make_model(), features.transform(X_raw[fit]), y[fit])
        return float(scorer.score(y[valid], response_values(model, features.transform(X_raw[valid]), scorer.response)))

    scores: list[float] = yield Work(one_split, list(range(len(splits))), what)
    return scores


def raw_inputs(params: JSON, rows: AssessedRows) -> tuple[MixedMatrix, Callable[[], Transformer]]:
    """(the assessed rows' raw feature matrix, a maker of the feature transformer): read here and released by the
    caller after, or the sample's."""
    data = params["data"]
    if rows.raw is None:
        train = read_parquet(paths.TRAIN, "split")
        numeric, categorical = feature_columns(train.columns, data)
        X_raw = raw_matrix(train, numeric, categorical)
        del train
    else:
        X_raw, numeric, categorical = rows.raw
    time = time_input(data)
    return X_raw, lambda: build.feature_transformer(params["features"], numeric, categorical, params["seed"], time)


@dataclass(frozen=True)
class AssessedRows:
    """The training rows assess works on: all of them, or above assess.max_rows a seeded sample of whole groups
    (`sample` says so), in the fold transformers' features (features_of(k): every assessed row in split k's), with
    the splits restricted to them; raw: (X_raw, numeric, categorical) of a sample; n_training: every training row,
    sampled or not (what assess.max_refit_rows is held against)."""

    n_training: int
    y: np.ndarray
    groups: np.ndarray | None
    splits: SplitList
    features_of: Callable[[int], np.ndarray]
    sample: str | None = None
    raw: tuple[MixedMatrix, list[str], list[str]] | None = None
    time: np.ndarray | None = None  # each assessed row's data.time (as split ordered it), or None

    def grouped_scores(self, search_scores: Scores, make_model: Callable[[], BaseEstimator], scorer: Scorer) -> Scores:
        """The chosen configuration's grouped CV scores on these rows: the search's, or rerun on a sample's splits."""
        if self.sample is None:
            return search_scores
        fold_data = FoldData(self.features_of, self.y, self.splits, self.groups)
        scores: np.ndarray = evaluate_candidates(make_model(), [{}], fold_data, scorer)[0]["valid_scores"]
        return scores


def assessed_rows(cfg: JSON, data: JSON, target: Target, seed: int) -> AssessedRows:
    """The training rows, or a seeded sample of whole groups of at most assess.max_rows rows (read part by part on
    the partitioned path)."""
    keys = [data["target"]] + [data[key] for key in ("group", "time") if data[key]]
    train = read_parquet(paths.TRAIN, "split", columns=keys)
    y = target.encode(train[data["target"]])
    groups = train[data["group"]].to_numpy() if data["group"] else None
    time = time_axis(train[data["time"]], data["time"], str(paths.TRAIN))[0] if data["time"] else None
    splits = folds.splits_of(read_parquet(paths.FOLDS, "split"))
    rows = stated_sample(len(y), cfg["max_rows"], seed, key=3, groups=groups)
    if rows is None:
        return AssessedRows(len(y), y, groups, splits, split_features, time=time)
    sample = f"on {len(rows):,} of the {len(y):,} training rows (whole groups, a seeded sample): assess.max_rows"
    print(f"assess: {sample}")
    inputs = FeaturesReport.read()
    frame = read_rows(paths.TRAIN, rows, columns=[*inputs.numeric, *inputs.categorical])
    X_raw = raw_matrix(frame, inputs.numeric, inputs.categorical)
    features_of = partial(transformed, read_estimators(paths.FOLD_FEATURES, "features"), X_raw)
    return AssessedRows(
        len(y),
        y[rows],
        None if groups is None else groups[rows],
        within(splits, rows),
        features_of,
        sample,
        (X_raw, inputs.numeric, inputs.categorical),
        None if time is None else time[rows],
    )


def leakage_estimate(
    params: JSON,
    rows: AssessedRows,
    make_model: Callable[[], BaseEstimator],
    scorer: Scorer,
    search_scores: Scores,
    stratify: bool,
) -> Plan[Leakage]:
    """assessment.json's "leakage": the chosen configuration scored by a row-level CV of the assessed training rows
    (their raw columns read here and released after, or the sample's) beside the grouped CV's fold scores of the same
    rows, with the inflation's interval and a sentence; or why it was not estimated."""
    data, seed = params["data"], params["seed"]
    if not data["group"] or not params["assess"]["leakage"] or rows.time is not None:
        why = (
            "data.group is null (rows are independent)"
            if not data["group"]
            else "assess.leakage is false"
            if not params["assess"]["leakage"]
            else "data.time orders the folds (the temporal estimate re-splits them at random, by whole groups)"
        )
        return Leakage(statement=f"not estimated: {why}")
    X_raw, make_features = raw_inputs(params, rows)
    grouped_scores = rows.grouped_scores(search_scores, make_model, scorer)
    splitter = inner_splitter(params["split"]["n_splits"], grouped=False, stratify=stratify, random_state=seed)
    row_scores = yield from refitted_scores(
        X_raw,
        rows.y,
        make_features,
        make_model,
        scorer,
        splitter.split(np.zeros((rows.y.size, 1)), rows.y),
        "row-level CV (leakage estimate)",
    )
    result = inflation(row_scores, grouped_scores, scorer.greater_is_better)
    estimate = Leakage(statement=leakage_sentence(result, scorer.name, data["group"]), **result)
    print(f"assess: leakage estimate: {estimate.statement}")
    return estimate


def shuffled_splits(splits: SplitList, groups: np.ndarray | None, seed: int) -> SplitList:
    """Each time-ordered split's rows re-split at random with the same sizes: the validation part is a random share
    of the split's rows (of its groups, whole, when grouped) as large as its validation part. Only the order differs."""
    out = []
    for k, (fit, valid) in enumerate(splits):
        rng = np.random.default_rng([seed, 7, k])
        rows = np.union1d(fit, valid)
        if groups is None:
            chosen = np.zeros(rows.size, dtype=bool)
            chosen[rng.permutation(rows.size)[: valid.size]] = True
        else:
            ids, codes, sizes = np.unique(groups[rows], return_inverse=True, return_counts=True)
            order = rng.permutation(ids.size)
            taken = np.zeros(ids.size, dtype=bool)
            taken[order[: int(np.searchsorted(np.cumsum(sizes[order]), valid.size)) + 1]] = True
            chosen = taken[codes]
        out.append((rows[~chosen], rows[chosen]))
    return out


def temporal_leakage_estimate(
    params: JSON, rows: AssessedRows, make_model: Callable[[], BaseEstimator], scorer: Scorer, search_scores: Scores
) -> Plan[TemporalLeakage]:
    """assessment.json's "temporal_leakage" (data.time): each forward-chaining split's rows re-split at random with
    the same sizes (whole groups with data.group), the chosen configuration refitted on each, minus the time-ordered
    score of the same split: how much a random split of these rows would flatter the model, with a paired t interval
    over the splits; or why it was not estimated."""
    if rows.time is None:
        return TemporalLeakage(statement="not estimated: data.time is null")
    if not params["assess"]["leakage"]:
        return TemporalLeakage(statement="not estimated: assess.leakage is false")
    X_raw, make_features = raw_inputs(params, rows)
    ordered = rows.grouped_scores(search_scores, make_model, scorer)
    shuffled = shuffled_splits(rows.splits, rows.groups, params["seed"])
    random_scores = yield from refitted_scores(
        X_raw, rows.y, make_features, make_model, scorer, shuffled, "the same splits shuffled (temporal leakage)"
    )
    sign = 1.0 if scorer.greater_is_better else -1.0
    d = sign * (np.asarray(random_scores) - np.asarray(ordered))
    half = float(stdtrit(d.size - 1, 0.975) * d.std(ddof=1) / math.sqrt(d.size))
    low, high = float(d.mean() - half), float(d.mean() + half)
    random_mean, ordered_mean = float(np.mean(random_scores)), float(np.mean(ordered))
    column, claimed = params["data"]["time"], f"{random_mean:.4f}"
    if low > 0:
        verdict = (
            f"random splits of the same rows would have claimed {claimed}: {d.mean():.4f} more ({low:.4f} to "
            f"{high:.4f}, {d.size} paired splits) than the time-ordered {ordered_mean:.4f}. A model that "
            f"sees later {column} values learns the period; the time-ordered figure is the honest one"
        )
    elif high < 0:
        verdict = (
            f"random splits of the same rows score {claimed}, {-d.mean():.4f} less ({low:.4f} to {high:.4f}, "
            f"{d.size} paired splits) than the time-ordered {ordered_mean:.4f}: no flattery from mixing "
            "periods here"
        )
    else:
        verdict = (
            f"random splits of the same rows score {claimed} against the time-ordered {ordered_mean:.4f} "
            f"(difference {d.mean():.4f}, interval {low:.4f} to {high:.4f}, {d.size} paired splits): inconclusive, "
            "the difference is within the split-to-split noise"
        )
    estimate = TemporalLeakage(
        statement=f"{scorer.name}: {verdict}.",
        random_mean=random_mean,
        ordered_mean=ordered_mean,
        inflation=float(d.mean()),
        interval=[low, high],
        confidence_level=0.95,
        n_splits=int(d.size),
        random_scores=list(map(float, random_scores)),
        ordered_scores=list(map(float, ordered)),
    )
    print(f"assess: temporal leakage estimate: {estimate.statement}")
    return estimate


def inflation(row_scores: Scores, grouped_scores: Scores, greater_is_better: bool, level: float = 0.95) -> JSON:
    """Row-level minus grouped mean score (positive: the row-level CV flatters the model, for a score where higher is
    better; the sign is flipped for a loss), with a Welch t interval."""
    a, b = np.asarray(row_scores, float), np.asarray(grouped_scores, float)
    sign = 1.0 if greater_is_better else -1.0
    difference = sign * (a.mean() - b.mean())
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1)) if se > 0 else float(a.size + b.size - 2)
    half = stdtrit(df, 0.5 + level / 2) * se
    return {
        "row_level_mean": float(a.mean()),
        "grouped_mean": float(b.mean()),
        "inflation": float(difference),
        "interval": [float(difference - half), float(difference + half)],
        "confidence_level": level,
        "row_level_scores": a.tolist(),
        "grouped_scores": b.tolist(),
    }


def leakage_sentence(result: JSON, scoring: str, group: str) -> str:
    low, high = result["interval"]
    if low > 0:
        verdict = (
            f"a row-level CV would have claimed {result['row_level_mean']:.4f}: {result['inflation']:.4f} more "
            f"({low:.4f} to {high:.4f}) than the grouped CV's {result['grouped_mean']:.4f}. Rows of one "
            f"{group} in both parts of a split inflate the score; the grouped figure is the honest one"
        )
    else:
        verdict = (
            f"a row-level CV gives {result['row_level_mean']:.4f} against the grouped CV's "
            f"{result['grouped_mean']:.4f} (difference {result['inflation']:.4f}, interval {low:.4f} to "
            f"{high:.4f}): no measurable inflation from rows of one {group} in both parts of a split"
        )
    return f"{scoring}: {verdict}."


def learning_curves(
    split_matrix: Callable[[int], np.ndarray],
    y: np.ndarray,
    splits: SplitList,
    make_model: Callable[[], BaseEstimator],
    scorer: Scorer,
    fractions: list[float],
    seed: int,
    groups: np.ndarray | None = None,
    whole: tuple[Scores, Scores] | None = None,
) -> Plan[JSON]:
    """Train and validation score per training share, averaged over the grouped splits; split_matrix(k): every
    training row in split k's features; groups: the rows' groups, given to each fit as the search gives them (whole
    groups held out to stop early). whole: the search's (train scores, validation scores) per split of this
    configuration fitted on each split's whole training part, the very fits of the share 1.0, which are then read
    instead of repeated."""
    reused = whole is not None and fractions[-1] == 1.0
    fitted = fractions[:-1] if reused else fractions

    def one_split(k: int) -> Curve:
        X = split_matrix(k)  # one split's matrix at a time per process
        n, tr, va = learning_curve(make_model(), X, y, [splits[k]], fitted, scorer, random_state=seed + k,
                                   fit_groups=groups)  # fmt: skip
        return n, tr[:, 0], va[:, 0]

    nothing: Curve = (np.empty(0, np.int64), np.empty(0), np.empty(0))
    if fitted:
        curves: list[Curve] = yield Work(one_split, list(range(len(splits))), "learning curve")
    else:
        curves = [nothing] * len(splits)
    if reused and whole is not None:  # the share 1.0: every training row of the split, as the search fitted it
        curves = [(np.append(n, len(splits[k][0])), np.append(tr, whole[0][k]), np.append(va, whole[1][k]))
                  for k, (n, tr, va) in enumerate(curves)]  # fmt: skip
    train_rows, valid_rows = [tr for _, tr, _ in curves], [va for _, _, va in curves]
    sizes = np.min([n for n, _, _ in curves], axis=0)
    train, valid = np.array(train_rows), np.array(valid_rows)
    return {
        "fractions": list(fractions),
        "train_rows": sizes.tolist(),
        "train_mean": train.mean(axis=0).tolist(),
        "valid_mean": valid.mean(axis=0).tolist(),
        "valid_std": valid.std(axis=0).tolist(),
        "train_per_split": train.tolist(),
        "valid_per_split": valid.tolist(),
    }


def t_interval(values: np.ndarray, level: float = 0.95) -> list[float]:
    """Student t interval of the mean of `values` (NaN ends for fewer than two values)."""
    v = np.asarray(values, dtype=np.float64)
    if v.size < 2:
        return [math.nan, math.nan]
    half = stdtrit(v.size - 1, 0.5 + level / 2) * v.std(ddof=1) / math.sqrt(v.size)
    return [float(v.mean() - half), float(v.mean() + half)]


def diagnosis(curve: JSON, greater_is_better: bool) -> CurveDiagnosis:
    """high_variance | no_overfitting | inconclusive, from the per-split gaps and rises (the module's rule), with
    the figures and intervals behind the verdict."""
    sign = 1.0 if greater_is_better else -1.0
    train, valid = np.asarray(curve["train_per_split"]), np.asarray(curve["valid_per_split"])
    gaps = sign * (train[:, -1] - valid[:, -1])
    rises = sign * (valid[:, -1] - valid[:, -2])
    tolerance = 0.01 * max(1.0, abs(float(train[:, -1].mean())), abs(float(valid[:, -1].mean())))
    gap_interval, rise_interval = t_interval(gaps), t_interval(rises)
    gap, rise = float(gaps.mean()), float(rises.mean())
    figures = (
        f"train - validation gap {gap:.4g} [{gap_interval[0]:.4g}, {gap_interval[1]:.4g}], last rise of the "
        f"validation score {rise:.4g} [{rise_interval[0]:.4g}, {rise_interval[1]:.4g}], tolerance {tolerance:.4g}"
    )
    if gap_interval[0] > tolerance:
        outcome = "high_variance"
        verdict = "high variance (overfitting): the train score exceeds the validation score beyond the noise; " + (
            "the validation score is still rising, so more data would help"
            if rise_interval[0] > 0
            else "a simpler model or stronger regularisation would help (more data may too, the curve cannot tell)"
        )
    elif gap_interval[1] <= tolerance and rise_interval[1] <= tolerance:
        outcome = "no_overfitting"
        verdict = (
            "no overfitting: train and validation scores agree and more data no longer raises the validation score; "
            "the remaining error is bias or irreducible noise (a more flexible model might help, more data will not)"
        )
    else:
        outcome = "inconclusive"
        verdict = (
            "inconclusive: the gap and the rise are within the split-to-split noise; more splits (split.n_repeats) "
            "or more data would narrow them"
        )
    return CurveDiagnosis(
        outcome=outcome,
        verdict=f"{verdict} ({figures})",
        train_valid_gap=gap,
        gap_interval=gap_interval,
        last_rise=rise,
        rise_interval=rise_interval,
        tolerance=tolerance,
        confidence_level=0.95,
    )


def diagnosed(curve: JSON, scorer: Scorer) -> tuple[LearningCurve, list[JSON]]:
    """The learning curve with its diagnosis (printed), and its plot rows."""
    report = LearningCurve(**curve, diagnosis=diagnosis(curve, scorer.greater_is_better))
    print(
        f"assess: learning curve ({scorer.name}) validation "
        + ", ".join(f"{f:g}: {v:.4f}" for f, v in zip(curve["fractions"], curve["valid_mean"]))
        + f"; {report.diagnosis.verdict}"
    )
    rows = [
        {"fraction": f, "rows": n, "train": t, "valid": v}
        for f, n, t, v in zip(curve["fractions"], curve["train_rows"], curve["train_mean"], curve["valid_mean"])
    ]
    return report, rows


def single_feature_scores(
    split_matrix: Callable[[int], np.ndarray],
    names_of: Callable[[int], list[str]],
    y: np.ndarray,
    splits: SplitList,
    scorer: Scorer,
    tree_name: str,
    seed: int,
) -> Plan[dict[str, float]]:
    """{feature column: mean validation score of a depth-3 tree on that column alone} over the splits (a column
    missing from a split's matrix, e.g. dropped by a selection, is averaged over the splits that have it)."""
    from mllib import registry

    tree = registry.get(tree_name)

    def one_split(k: int) -> dict[str, float]:
        fit, valid = splits[k]
        X = split_matrix(k)
        found = {}
        for j, name in enumerate(names_of(k)):
            model = tree(max_depth=3, random_state=seed).fit(X[fit, j : j + 1], y[fit])
            found[name] = float(scorer.score(y[valid], response_values(model, X[valid, j : j + 1], scorer.response)))
        return found

    scores: dict[str, list[float]] = {}
    per_split: list[dict[str, float]] = yield Work(one_split, list(range(len(splits))), "single-feature scores")
    for found in per_split:
        for name, value in found.items():
            scores.setdefault(name, []).append(value)
    return {name: float(np.mean(v)) for name, v in scores.items()}


TREES = {"binary": "decision_tree", "multiclass": "decision_tree", "regression": "decision_tree_regressor"}  # by task


def single_feature_check(
    cfg: JSON,
    target: Target,
    features_of: Callable[[int], np.ndarray],
    y: np.ndarray,
    splits: list[tuple[np.ndarray, np.ndarray]],
    seed: int,
) -> Plan[SingleFeature]:
    """Each feature column alone on the splits, scored by the task's default score; flagged beyond the bound."""
    if cfg["single_feature_bound"] is None:
        return leaky_features({}, None, [], [], "")
    scorer = build.scorer("assess.single_feature_bound", "auto", target)  # ROC AUC / macro OvR AUC / R^2
    columns = read_json(paths.FEATURE_NAMES, "features")
    features = FeaturesReport.read()
    scores = yield from single_feature_scores(
        features_of, lambda k: columns[paths.fold_features(k).name], y, splits, scorer, TREES[target.task], seed
    )
    raw = features.numeric + features.categorical
    return leaky_features(scores, cfg["single_feature_bound"], cfg["legitimate_features"], raw, scorer.name)


def raw_column(feature: str, columns: list[str]) -> str:
    """The data column a feature column comes from: itself, a one-hot level `col=level`, an indicator
    `col_missing`; a derived column (a projection, an expansion) stands for itself."""
    for column in sorted(columns, key=len, reverse=True):
        if feature == column or feature.startswith(column + "=") or feature == column + "_missing":
            return column
    return feature


def leaky_features(
    scores: dict[str, float], bound: float | None, legitimate: list[str], columns: list[str], metric: str
) -> SingleFeature:
    """assessment.json's "single_feature": the scores, the feature columns at or beyond the bound, and which of them
    are declared legitimate (assess.legitimate_features, by data column); `flagged` holds the others."""
    if bound is None:
        return SingleFeature(statement="not checked (assess.single_feature_bound: null)", flagged=[])
    beyond = {f: s for f, s in scores.items() if s >= bound}
    flagged = sorted(f for f in beyond if raw_column(f, columns) not in legitimate)
    allowed = sorted(set(beyond) - set(flagged))
    top = sorted(scores.items(), key=lambda kv: -kv[1])[:5]
    best = ", ".join(f"{f} {s:.4f}" for f, s in top)
    if flagged:
        statement = (
            f"{', '.join(f'{f} ({beyond[f]:.4f})' for f in flagged)} alone predict(s) the target with {metric} at "
            f"or beyond {bound}: most often a copy or a consequence of the target (leakage). The gate will not "
            "promote this model; if the column is a legitimate input, list it in assess.legitimate_features"
        )
    else:
        statement = f"no feature alone reaches {metric} {bound} (strongest alone: {best})"
        if allowed:
            statement += f"; declared legitimate: {', '.join(allowed)}"
    return SingleFeature(statement=statement, flagged=flagged, metric=metric, bound=bound, scores=scores,
                         legitimate=allowed)  # fmt: skip


def refit_limit(cfg: JSON, n_rows: int) -> str | None:
    """Why nested CV and the validation curve, which refit the model tens of times, do not run for this many training
    rows (assess.max_refit_rows, held against all of them even when assess samples: the selection they measure was
    made on all of them, and its optimism shrinks with the rows), or None when they do."""
    limit = cfg["max_refit_rows"]
    if limit is None or n_rows <= limit:
        return None
    return (
        f"skipped: {n_rows:,} training rows exceed assess.max_refit_rows ({limit:,}); set it to null to run it on "
        "any size"
    )


def validation_sweep(
    model: BaseEstimator,
    best_params: JSON,
    parameter: str,
    values: Sequence[object],
    fold_data: FoldData,
    scorer: Scorer,
    searched: Sequence[JSON] = (),
) -> list[JSON]:
    """Train and validation score (mean, std over the splits) per value of one hyperparameter. searched: the train
    stage's candidates when they were scored on these same folds and rows; a value whose configuration is among them
    takes its scores instead of refitting (each fit is seeded by the model's own random_state, so a refit would give
    the same numbers: on the default data 20 of the 30 fits)."""
    candidates = [{**best_params, parameter: v} for v in values]
    known = {i: r for i, c in enumerate(candidates) for r in searched if r["params"] == c}
    missing = [i for i in range(len(candidates)) if i not in known]
    progress = Progress(f"assess: validation curve of {parameter} ({len(known)} of {len(values)} from the search)")
    fitted = (
        evaluate_candidates(model, [candidates[i] for i in missing], fold_data, scorer, progress=progress)
        if missing
        else []
    )
    results = {**known, **dict(zip(missing, fitted))}
    return [
        {
            "parameter": parameter,
            "value": v if isinstance(v, (int, float)) else str(v),
            "train": results[i]["mean_train_score"],
            "valid": results[i]["mean_valid_score"],
            "valid_std": results[i]["std_valid_score"],
        }
        for i, v in enumerate(values)
    ]
