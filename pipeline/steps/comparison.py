"""Model comparison on the same folds (model.name auto: the task's default set; or model.candidates): each model
searched over its own grid, the table of their best configurations, the corrected resampled t-test of the best
against each other (mllib.comparison; the folds' training parts overlap, so the plain paired t-test would overstate
the evidence), and the selection rule: `best` (the largest mean CV score) or `one_se` (the first model in the order
listed, simplest first, whose mean is within one standard error of the best's: the standard error of their paired
fold-score difference, corrected for the overlap (Nadeau & Bengio 2003)). A more flexible model is chosen only where
it beats every simpler one by more than that noise; the record says what it gained over the simplest and what the
next simpler one would cost, each with its interval, and the evaluate stage measures both again on the test rows.

Reference: Hastie, Tibshirani & Friedman, The Elements of Statistical Learning, 7.10 (the one-standard-error rule);
Nadeau & Bengio (2003), Inference for the generalization error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from mllib.base import fit_with_groups
from mllib.comparison import corrected_resampled_t_test
from mllib.model_selection import response_values

from ..core import build, paths
from ..core.evaluation_records import ComparisonOnTest, GainOnTest
from ..core.json_types import JSON
from ..core.records import ComparedModel, Comparison, ModelGain, PairedFoldTest, TrainMetrics
from .feature_blocks import final_features

Search = tuple[list[JSON], int]  # a search's results and the index of the best (training.search_model)
SplitList = list[tuple[np.ndarray, np.ndarray]]  # [(fitting rows, validation rows)], as folds.SplitList

if TYPE_CHECKING:
    from mllib.base import BaseEstimator
    from mllib.metrics.scorers import Scorer


def paired_test(scores_a: Sequence[float], scores_b: Sequence[float], n_train: float, n_test: float) -> JSON:
    """corrected_resampled_t_test of A minus B; on one split (the nested CV's inner selection inside an early
    forward-chaining split has one earlier period to validate on) no standard error exists: its figures are NaN and
    the one-SE rule keeps the simpler model."""
    if min(len(scores_a), len(scores_b)) >= 2:
        test: JSON = corrected_resampled_t_test(scores_a, scores_b, n_train, n_test)
        return test
    nan = float("nan")
    difference = float(np.mean(scores_a) - np.mean(scores_b))
    return {"mean_difference": difference, "standard_error": nan, "interval": [nan, nan], "t": nan, "df": 0,
            "p_value": nan, "correction": nan}  # fmt: skip


def compare(
    best: dict[str, JSON],
    greater_is_better: bool,
    n_train: float,
    n_test: float,
    rule: str,
    left_out: list[str] | None = None,
) -> tuple[str, Comparison]:
    """best: {model name: its best search result (valid_scores per split, mean, std, params)}, simplest first.
    Returns (the chosen model's name, the comparison report)."""
    sign = 1.0 if greater_is_better else -1.0
    names = list(best)
    top = max(names, key=lambda n: sign * best[n]["mean_valid_score"])  # ties: the first listed
    versus_best = {
        n: PairedFoldTest(**paired_test(best[top]["valid_scores"], best[n]["valid_scores"], n_train, n_test))
        for n in names
        if n != top
    }

    def within_noise(n: str) -> bool:
        # not (beyond): a standard error that cannot be computed keeps the simpler model
        t = versus_best[n]
        return not sign * t.mean_difference > t.standard_error

    chosen = top if rule == "best" else next(n for n in names if n == top or within_noise(n))
    order = sorted(names, key=lambda n: -sign * best[n]["mean_valid_score"])

    def gain_over(other: str) -> ModelGain | None:
        if other == chosen:
            return None
        t = paired_test(best[chosen]["valid_scores"], best[other]["valid_scores"], n_train, n_test)
        low, high = sorted(sign * end for end in t["interval"])
        return ModelGain(other, sign * t["mean_difference"], t["standard_error"], [low, high], t["p_value"])

    models = [
        ComparedModel(
            model=n,
            params=best[n]["params"],
            mean=best[n]["mean_valid_score"],
            std=best[n]["std_valid_score"],
            valid_scores=list(map(float, best[n]["valid_scores"])),
            rank=order.index(n) + 1,
            versus_best=versus_best.get(n),
        )
        for n in names
    ]
    runner_up = order[1] if len(order) > 1 else None
    position = names.index(chosen)
    return chosen, Comparison(
        rule=rule,
        best=top,
        chosen=chosen,
        runner_up=runner_up if chosen == top else top,
        simplest=names[0],
        n_train=n_train,
        n_test=n_test,
        models=models,
        gain_over_simplest=gain_over(names[0]),
        next_simpler=gain_over(names[position - 1]) if position > 0 else None,
        left_out=list(left_out or []),
    )


def gain_text(gain: ModelGain, figure: str = "CV") -> str:
    """'+0.0160 [+0.0012, +0.0308] over logistic_regression (CV)': a gain with its interval."""
    low, high = gain.interval
    return f"{gain.gain:+.4f} [{low:+.4f}, {high:+.4f}] over {gain.model} ({figure})"


def summary_lines(report: Comparison, scoring: str) -> list[str]:
    lines = [
        f"train: compared on the same folds ({scoring}, selection {report.rule}, simplest first): "
        + ", ".join(f"{m.model} {m.mean:.4f} ± {m.std:.4f}" for m in report.models)
    ]
    if report.left_out:
        lines.append(
            f"train: left out of model.name auto's set: {', '.join(report.left_out)} (it needs every training row in "
            "one matrix; the data are in parts on the dask backend)"
        )
    for m in report.models:
        if m.versus_best is not None:
            t = m.versus_best
            lines.append(
                f"train:   {report.best} vs {m.model}: difference {t.mean_difference:+.4f} (standard error "
                f"{t.standard_error:.4f}), corrected t {t.t:.2f}, p {t.p_value:.3g}"
            )
    chosen = f"train: chosen {report.chosen}"
    if report.gain_over_simplest is not None:
        chosen += f": {gain_text(report.gain_over_simplest)}"
    if report.next_simpler is not None and report.next_simpler.model != report.simplest:
        chosen += f"; {gain_text(report.next_simpler)}"
    if report.chosen != report.best:
        chosen += f" (within one standard error of {report.best})"
    lines.append(chosen)
    return lines


def choose_model(
    searched: dict[str, Search], splits: SplitList, scorer: Scorer, selection: str, left_out: list[str] | None = None
) -> tuple[str, Comparison | None]:
    """The model of a single-model run, or the one model.selection picks among the compared models (with the
    comparison report: summary_lines says it); searched: {name: (results, best index)}, simplest first."""
    if len(searched) == 1:
        return next(iter(searched)), None
    n_train, n_test = (float(np.mean([len(part) for part in parts])) for parts in zip(*splits))
    best = {n: r[b] for n, (r, b) in searched.items()}
    return compare(best, scorer.greater_is_better, n_train, n_test, selection, left_out)


def test_gains(
    model_cfg: JSON,
    seed: int,
    trained: TrainMetrics,
    scorer: Scorer,
    y_train: np.ndarray,
    groups_train: np.ndarray | None,
    y: np.ndarray,
    model: BaseEstimator,
    intervals: Callable[[Callable[[np.ndarray], dict[str, float]], int], JSON],
) -> ComparisonOnTest | None:
    """On the test rows: the chosen model's score minus each other compared model's (each refitted on every training
    row with its best configuration, as train refits the chosen one), signed so that positive is better, with
    paired bootstrap intervals (one draw of the test rows scores both models: intervals(figures_of, n), the evaluate
    stage's with_intervals); None without a comparison."""
    comparison = trained.comparison
    if comparison is None:
        return None
    sign = 1.0 if scorer.greater_is_better else -1.0
    X_train, X_test = final_features(paths.TRAIN), final_features(paths.TEST)
    responses = {comparison.chosen: response_values(model, X_test, scorer.response)}
    for m in comparison.models:
        if m.model != comparison.chosen:
            other = fit_with_groups(build.model(m.model, model_cfg, seed, **m.params), X_train, y_train, groups_train)
            responses[m.model] = response_values(other, X_test, scorer.response)
    chosen = responses.pop(comparison.chosen)

    def figures_of(rows: np.ndarray) -> dict[str, float]:
        score = scorer.score(y[rows], chosen[rows])
        return {n: sign * (score - scorer.score(y[rows], r[rows])) for n, r in responses.items()}

    boot = intervals(figures_of, y.size)
    gains = {n: GainOnTest(f["value"], f["interval"]) for n, f in boot["figures"].items()}
    return ComparisonOnTest(comparison.chosen, scorer.name, boot["method"], gains)
