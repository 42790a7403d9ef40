"""The scale a regression model is fitted on (params.yaml model.target_transform): the target as it is, or its log.

A non-negative target whose spread grows with its level (prices, incomes, costs, counts) has errors that are closer
to multiplicative than additive: a model of y spends its fit on the largest values, predicts below 0 where the values
are small, and one interval width is too wide there and too narrow where they are large. A model of log(y + c) fits a
multiplicative error as an additive one, and its predictions and interval ends map back to y's units above -c
(mllib.regression.LogTarget: c = 0 when every training value is positive, else the smallest positive value).

The rule (auto): the model chosen by the comparison (pipeline/steps/comparison.py) is searched again over its grid on
log(y + c), on the same folds; both searches' best configurations are scored on each split's validation rows in y's
units, by the search's scorer, as the deployed regressor would predict them (back-transformed, at least the floor).
The log target is used only where it beats y by more than one standard error of the paired fold-score difference,
corrected for the folds' overlapping training rows (Nadeau & Bengio 2003, mllib.comparison.corrected_resampled_t_test:
the one-standard-error rule of the model comparison); otherwise y stays, and the record says what the log target would
have given. `log` fits the log target whatever the folds say (they are still compared, and said); `none` never tries
it. The choice of scale is made once, here: assess's nested CV reruns the model choice on the chosen scale, not this
choice.

Back to y's units: exp(f(x)) - c is the conditional median of y when the log-scale errors are symmetric, not its
mean; squared error (r2, rmse, mean_squared_error) rewards the mean, so those scorers get Duan's smearing estimate
(exp(f(x)) S - c, S the mean of exp(residual) over the training rows), and mean absolute error (mae), which rewards the
median, gets the median.

The floor: a target never negative on the training rows is never predicted below 0, by any model on any scale (a clip
of the prediction and of the interval ends; evaluate counts the test predictions it raised).

References: Duan (1983), Smearing estimate: a nonparametric retransformation method, JASA 78, 605-610; Nadeau & Bengio
(2003), Inference for the generalization error; Hastie, Tibshirani & Friedman, The Elements of Statistical Learning,
7.10 (the one-standard-error rule).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from mllib.comparison import corrected_resampled_t_test
from mllib.regression import log_shift

from ..core.errors import PipelineError
from ..core.json_types import JSON
from ..core.records import ScoredTarget, TargetComparison, TargetTransform

if TYPE_CHECKING:
    from mllib.metrics.scorers import Scorer

    from ..core.task import Target

Search = tuple[list[JSON], int]  # a search's results and the index of the best (training.search_model)
SplitList = list[tuple[np.ndarray, np.ndarray]]  # [(fitting rows, validation rows)], as folds.SplitList

MEDIAN_SCORERS = ("mae",)  # mean absolute error is least at the conditional median, squared error at the mean


def floor_of(y: np.ndarray) -> float | None:
    """0 for a target never negative on the training rows (no prediction below it), else None (no floor)."""
    return 0.0 if float(np.min(y)) >= 0 else None


def log_settings(transform: TargetTransform | None) -> JSON | None:
    """build.model's target_transform for the chosen scale: {shift, back_transform} of the log target, or None."""
    if not transform or transform.chosen != "log":
        return None
    return {"shift": transform.shift, "back_transform": transform.back_transform}


def log_name(column: str, shift: float) -> str:
    """log(price), or log(price + 0.5) with a shift."""
    return f"log({column})" if shift == 0 else f"log({column} + {shift:g})"


def floored_scores(result: JSON, y: np.ndarray, splits: SplitList, scorer: Scorer, floor: float | None) -> list[float]:
    """A search result's score on each split's validation rows with its out-of-fold values at least the floor: what the
    deployed regressor's predictions would score."""
    values = result["oof_values"]
    raised = values if floor is None else [np.maximum(v, floor) for v in values]
    return [float(scorer.score(y[valid], v)) for (_, valid), v in zip(splits, raised)]


def choose_scale(
    setting: str,
    target: Target,
    y: np.ndarray,
    splits: SplitList,
    scorer: Scorer,
    plain: Search,
    search_log: Callable[[JSON], Search],
) -> tuple[TargetTransform | None, Search]:
    """(the record, the search of the chosen scale: (results, index of the best)) for model.target_transform
    `setting`; plain: the chosen model's search on y; search_log(settings): its search on log(y + c) with LogTarget
    settings {shift, back_transform}. A classification target has no scale to choose: (None, plain)."""
    if target.classifies:
        if setting == "log":
            raise PipelineError(
                f"params.yaml: model.target_transform is 'log' but the target is a {target.task} target (classes have "
                "no log); set it to auto or none"
            )
        return None, plain
    column, floor = target.column, floor_of(y)
    negative = int(np.sum(y < 0))
    shift, back_transform = log_shift(y), "median" if scorer.name in MEDIAN_SCORERS else "mean"
    settings = {"shift": shift, "back_transform": back_transform}
    floor_note = (
        f"; predictions and interval ends never below {floor:g} (the target is never negative)" if floor == 0 else ""
    )

    def record(chosen: str, statement: str, comparison: TargetComparison | None = None) -> TargetTransform:
        log = chosen == "log"
        compared = {"comparison": comparison} if comparison else {}
        return TargetTransform(
            setting=setting,
            chosen=chosen,
            fitted_on=log_name(column, shift) if log else column,
            shift=shift if log else None,
            back_transform=back_transform if log else None,
            floor=floor,
            statement=statement + floor_note,
            **compared,
        )

    if setting == "none":
        return record("none", f"{column} as it is (model.target_transform: none; the log target was not tried)"), plain
    if negative:
        if setting == "log":
            raise PipelineError(
                f"params.yaml: model.target_transform is 'log' but the target {column!r} has {negative} negative "
                f"values on the training rows (smallest {float(np.min(y)):g}); log(y + c) needs y >= 0: set it to auto "
                "or none"
            )
        why = f"{negative} negative training values (smallest {float(np.min(y)):g})"
        return record("none", f"{column} as it is: no log target, the target has {why}"), plain
    logged = search_log(settings)
    comparison = compare_scales(column, shift, y, splits, scorer, plain, logged, floor)
    beyond = comparison.gain > comparison.standard_error  # NaN (no spread): not beyond, y stays
    chosen = "log" if setting == "log" or beyond else "none"
    statement = scale_statement(chosen, comparison, back_transform, beyond)
    return record(chosen, statement, comparison), (logged if chosen == "log" else plain)


def compare_scales(
    column: str,
    shift: float,
    y: np.ndarray,
    splits: SplitList,
    scorer: Scorer,
    plain: Search,
    logged: Search,
    floor: float | None,
) -> TargetComparison:
    """The two searches' best configurations on the same folds, scored as deployed; log minus y, signed so that
    positive is better."""
    sign = 1.0 if scorer.greater_is_better else -1.0
    n_train, n_test = (float(np.mean([len(part) for part in parts])) for parts in zip(*splits))
    scored = {}
    for name, (results, best) in (("plain", plain), ("log", logged)):
        scores = floored_scores(results[best], y, splits, scorer, floor)
        target = column if name == "plain" else log_name(column, shift)
        scored[name] = ScoredTarget(target=target, params=results[best]["params"], mean=float(np.mean(scores)),
                                    std=float(np.std(scores)), valid_scores=scores)  # fmt: skip
    t = corrected_resampled_t_test(scored["log"].valid_scores, scored["plain"].valid_scores, n_train, n_test)
    low, high = sorted(sign * end for end in t["interval"])
    return TargetComparison(scoring=scorer.name, plain=scored["plain"], log=scored["log"],
                            gain=sign * t["mean_difference"], standard_error=t["standard_error"], interval=[low, high],
                            p_value=t["p_value"])  # fmt: skip


def scale_statement(chosen: str, c: TargetComparison, back_transform: str, beyond: bool) -> str:
    """The card's sentence: what was tried, what it gave on the folds with its noise, and what was chosen."""
    low, high = c.interval
    figures = (
        f"{c.log.target} {c.scoring} {c.log.mean:.4f} against {c.plain.target} {c.plain.mean:.4f} on the same "
        f"{len(c.log.valid_scores)} folds (as deployed, in {c.plain.target}'s units): {c.gain:+.4f} [{low:+.4f}, "
        f"{high:+.4f}], standard error {c.standard_error:.4f}"
    )
    predictions = (
        "means (exp of the log-scale prediction times Duan's smearing estimate), what " + c.scoring + " rewards"
        if back_transform == "mean"
        else "medians (exp of the log-scale prediction), what " + c.scoring + " rewards"
    )
    if chosen == "log":
        why = (
            f"it beats {c.plain.target} by more than one standard error"
            if beyond
            else f"within one standard error of {c.plain.target}, fitted as model.target_transform: log asks"
        )
        return f"{c.log.target} ({why}): {figures}; predictions are {predictions}"
    return (
        f"{c.plain.target} as it is: the log target does not beat it by more than one standard error ({figures}); "
        f"the log target would have predicted {predictions}"
    )
