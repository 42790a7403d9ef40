"""Model comparison on the same folds (model.candidates): each model searched over its own grid, the table of their
best configurations, the corrected resampled t-test of the best against each other (mllib.comparison; the folds'
training parts overlap, so the plain paired t-test would overstate the evidence), and the selection rule:
`best` (the largest mean CV score) or `one_se` (the first model in the order listed whose mean is within one
standard error of the best's, the standard error = fold std / sqrt(k); list the simpler models first).
"""

from __future__ import annotations

import math

import numpy as np

from mllib.comparison import corrected_resampled_t_test

from ..core import build, paths
from ..core.records import ComparedModel, Comparison, TrainMetrics
from .feature_blocks import final_features


def compare(
    best: dict[str, dict], greater_is_better: bool, n_train: float, n_test: float, rule: str
) -> tuple[str, Comparison]:
    """best: {model name: its best search result (valid_scores per split, mean, std, params)}, in the listed order.
    Returns (the chosen model's name, the comparison report)."""
    sign = 1.0 if greater_is_better else -1.0
    names = list(best)
    top = max(names, key=lambda n: sign * best[n]["mean_valid_score"])  # ties: the first listed
    k = len(best[top]["valid_scores"])
    se = best[top]["std_valid_score"] / math.sqrt(k)
    if rule == "one_se":
        chosen = next(n for n in names if sign * (best[top]["mean_valid_score"] - best[n]["mean_valid_score"]) <= se)
    else:
        chosen = top
    order = sorted(names, key=lambda n: -sign * best[n]["mean_valid_score"])
    models = [
        ComparedModel(
            model=n,
            params=best[n]["params"],
            mean=best[n]["mean_valid_score"],
            std=best[n]["std_valid_score"],
            valid_scores=list(map(float, best[n]["valid_scores"])),
            rank=order.index(n) + 1,
            versus_best=None
            if n == top
            else corrected_resampled_t_test(best[top]["valid_scores"], best[n]["valid_scores"], n_train, n_test),
        )
        for n in names
    ]
    runner_up = order[1] if len(order) > 1 else None
    return chosen, Comparison(
        rule=rule,
        best=top,
        chosen=chosen,
        runner_up=runner_up if chosen == top else top,
        standard_error_of_best=se,
        n_train=n_train,
        n_test=n_test,
        models=models,
    )


def summary_lines(report: Comparison, scoring: str) -> list[str]:
    lines = [
        f"train: compared on the same folds ({scoring}, selection {report.rule}): "
        + ", ".join(f"{m.model} {m.mean:.4f} ± {m.std:.4f}" for m in sorted(report.models, key=lambda m: m.rank))
    ]
    for m in report.models:
        if m.versus_best is not None:
            t = m.versus_best
            lines.append(
                f"train:   {report.best} vs {m.model}: difference {t['mean_difference']:+.4f}, corrected "
                f"t {t['t']:.2f}, p {t['p_value']:.3g}"
            )
    lines.append(f"train: chosen {report.chosen}")
    return lines


def choose_model(searched: dict, splits: list[tuple], scorer, selection: str) -> tuple[str, Comparison | None]:
    """The model of a single-model run, or the one model.selection picks among model.candidates (with the comparison
    report: summary_lines says it); searched: {name: (results, best index)}."""
    if len(searched) == 1:
        return next(iter(searched)), None
    n_train, n_test = (float(np.mean([len(part) for part in parts])) for parts in zip(*splits))
    best = {n: r[b] for n, (r, b) in searched.items()}
    return compare(best, scorer.greater_is_better, n_train, n_test, selection)


def versus_runner_up(
    model_cfg: dict, seed: int, trained: TrainMetrics, target, y_train: np.ndarray, y: np.ndarray, model
) -> dict | None:
    """With model.candidates: the chosen model against the runner-up of the comparison on the test rows (both as
    fitted on every training row, their plain predictions; Target.compare_predictions), or None without a
    comparison."""
    comparison = trained.comparison
    if comparison is None:
        return None
    runner = next(m for m in comparison.models if m.model == comparison.runner_up)
    X_train, X_test = final_features(paths.TRAIN), final_features(paths.TEST)
    other = build.model(runner.model, model_cfg, seed, **runner.params).fit(X_train, y_train)
    return {
        "chosen": comparison.chosen,
        "runner_up": runner.model,
        **target.compare_predictions(y, model.predict(X_test), other.predict(X_test)),
    }
