"""The headline figures of a run (each test metric with the no-skill baseline's beside it, `test_no_skill.*`, which
sorts after `test.*` so MLflow's compare view does not open on a constant): the few dozen numbers a reader compares
between experiments (`dvc metrics show`, `dvc exp show`, the MLflow run's metrics, the promotion gate), each once.
The stages' detailed reports stay in their own JSON files and plots; these are picked from them, with the same dotted
names everywhere (e.g. `test.roc_auc`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, cast

from ..core.assessment_records import Assessment
from ..core.evaluation_records import (
    CalibrationReport,
    ClassificationCalibration,
    ClassificationEvaluation,
    EvaluationReport,
    GainOnTest,
    RegressionCalibration,
    RegressionEvaluation,
)
from ..core.fairness_records import BinaryAudit, FairnessReport, MulticlassAudit, RegressionAudit
from ..core.json_types import JSON
from ..core.records import ModelGain, TrainMetrics
from ..core.task import Target, finite
from ..core.task_regression import FIFTHS
from .page import fmt
from .page import interval as with_interval


def _pick(source: JSON, keys: Iterable[str]) -> JSON:
    return {k: finite(source.get(k)) for k in keys}


def headline(
    target: Target,
    train: TrainMetrics,
    calibration: CalibrationReport,
    test: EvaluationReport,
    fairness: FairnessReport,
    assessment: Assessment,
) -> JSON:
    """{section: {name: number}}: the search's CV score and gap, the test metrics of the task, calibration or
    interval quality, and the fairness gaps of each sensitive attribute and their intersections."""
    out: dict[str, JSON] = {
        "train": {
            "cv_mean": train.cv_mean,
            "cv_std": train.cv_std,
            "cv_pooled": train.cv_pooled,
            "n_candidates": train.n_candidates,
            "baseline_cv_mean": train.baseline.cv_mean,
        },
        "test": {"cv_vs_test_gap": test.cv_vs_test.gap},
    }
    out["train"].update(gain_over_simplest(train, test)["train"])
    out["test"].update(gain_over_simplest(train, test)["test"])
    out["test"].update({k: finite(test.figure(k)) for k in target.test_metrics})
    # the test rows and the lower end of the headline's interval: what the promotion gate's min_headline reads
    out["test"]["n"] = test.n
    out["test"][f"{target.headline_metric}_low"] = finite(interval(test, target.headline_metric)[0])
    out["test_no_skill"] = _pick(test.baseline, target.test_metrics)
    out.update(QUALITY_FIGURES[target.task](test, calibration))
    out["fairness"] = {
        **fairness_gaps(target, fairness),
        "n_attributes": sum(" & " not in a for a in fairness.attributes),
    }
    curve, single = assessment.learning_curve, assessment.single_feature
    trust: dict[str, float | int | None] = {
        "leakage_inflation": finite(assessment.leakage.inflation),
        "learning_curve_gap": finite(curve.diagnosis.train_valid_gap if curve else None),
        "nested_cv_mean": finite(assessment.nested.outer_mean),
        "search_optimism": finite(assessment.nested.optimism),
        # feature columns that alone predict the target beyond assess.single_feature_bound and are not declared
        # legitimate (None: not checked); the promotion gate requires 0
        "leaky_features": None if single.bound is None else len(single.flagged),
    }
    out["trust"] = trust
    return out


def gain_over_simplest(train: TrainMetrics, test: EvaluationReport) -> JSON:
    """{train: {gain_over_simplest, _low}, test: {...}}: what the chosen model gains over the simplest compared one
    (the linear model of model.name auto), on the folds and on test, with the lower end of its interval; 0 when the
    simplest was chosen; None without a comparison."""
    c = train.comparison
    names = ("gain_over_simplest", "gain_over_simplest_low")
    if c is None:
        return {part: dict.fromkeys(names) for part in ("train", "test")}
    on_folds = c.gain_over_simplest
    on_test = test_gains(test).get(c.simplest)
    return {
        "train": dict(zip(names, (on_folds.gain, on_folds.interval[0]) if on_folds else (0.0, 0.0))),
        "test": dict(zip(names, (on_test.gain, on_test.interval[0]) if on_test else (0.0, 0.0))),
    }


def test_gains(test: EvaluationReport) -> dict[str, GainOnTest]:
    """{model: the chosen model's test gain over it}, {} without a comparison."""
    return test.comparison.gains if test.comparison else {}


def model_choice(train: TrainMetrics, test: EvaluationReport) -> str:
    """Why this model: the models compared and the rule, what the choice gained over the simplest on the folds and on
    test, what the next simpler model would cost, each with its interval; or that model.name fixed it."""
    c = train.comparison
    if c is None:
        return f"{train.model}, as model.name names it (no comparison: model.name auto compares the default set)"
    rule = {
        ("best", True): "the best mean",
        ("one_se", True): "the best, by more than one standard error over every simpler model",
        ("one_se", False): f"the simplest within one standard error of the best ({c.best})",
    }[c.rule, c.chosen == c.best]
    line = f"{c.chosen} of {', '.join(m.model for m in c.models)} (simplest first) on the same folds: {rule}"
    on_test = test_gains(test)

    def gain(g: ModelGain, what: str) -> str:
        shown = f"{what} {g.model}: {train.scoring} {with_interval(g.gain, g.interval)} on the folds"
        if g.model in on_test:
            shown += f", {with_interval(on_test[g.model].gain, on_test[g.model].interval)} on test"
        return shown

    if c.gain_over_simplest is not None:
        line += f"; gain over {gain(c.gain_over_simplest, 'the simplest,')}"
    if c.next_simpler is not None and c.next_simpler.model != c.simplest:
        line += f"; choosing the next simpler model would cost {gain(c.next_simpler, 'the')}"
    flexible = [m for m in c.models[[m.model for m in c.models].index(c.chosen) + 1 :] if m.versus_best]
    if c.chosen == c.best and flexible:  # the more flexible models it was preferred to
        line += "; more flexible: " + ", ".join(
            f"{m.model} ({c.chosen} minus it on the folds {fmt(m.versus_best.mean_difference)}, standard error "
            f"{fmt(m.versus_best.standard_error)})"
            for m in flexible
            if m.versus_best
        )
    if c.chosen != c.best:
        t = next(m.versus_best for m in c.models if m.model == c.chosen)
        assert t is not None  # every model but the best has its test against it
        line += (
            f"; {c.best} minus {c.chosen} on the folds: {fmt(t.mean_difference)} (standard error "
            f"{fmt(t.standard_error)}), within the noise"
        )
    if c.left_out:
        left_out = ", ".join(c.left_out)
        line += f"; left out (they need every training row in one matrix; the data are in parts): {left_out}"
    return line


def interval(test: EvaluationReport, figure: str) -> list[float]:
    """[lower, upper] of a test figure's bootstrap interval (test.json `bootstrap`)."""
    return test.bootstrap.figures[figure].interval


def undefined_gaps(target: Target, fairness: FairnessReport) -> list[str]:
    """The gaps (as fairness_gaps names them) of the attributes and intersections audited that could not be computed:
    the promotion gate names each as not evaluated."""
    return [name for name, gap in fairness_gaps(target, fairness).items() if gap is None]


def fairness_gaps(target: Target, fairness: FairnessReport) -> JSON:
    """Per sensitive attribute and every intersection of them ("female x black": MLflow's metric names take no "&"):
    the parity gaps (classification) or the error, bias and coverage gaps (regression), max - min over the groups
    large enough, and the upper end of each one's bootstrap interval ("<name>_gap_high"). The gate's fairness bound
    reads every upper end, so a gap that only shows in an intersection, or only within its noise, counts."""
    gaps = {}
    for grouping, result in fairness.attributes.items():
        for name, gap in GROUP_GAPS[target.task](result).items():
            key = f"{grouping.replace(' & ', ' x ')}.{name}_gap"
            gaps[key] = finite(gap.difference)
            gaps[f"{key}_high"] = finite(gap.difference_interval[1]) if gap.difference_interval else None
    return gaps


def flat(headline_figures: JSON) -> dict[str, float]:
    """{"section.name": number} of the defined figures (the MLflow metrics and the promotion gate's view)."""
    return {
        f"{section}.{name}": value
        for section, values in headline_figures.items()
        for name, value in values.items()
        if value is not None
    }


def probability_quality(test: ClassificationEvaluation, calibration: ClassificationCalibration) -> JSON:
    """The headline sections of how far the deployed probabilities and decisions can be trusted: calibration
    error before and after the map, the reject option's and the conformal sets' coverage."""
    reject, figures, against = test.selective.reject_option, test.bootstrap.figures, test.decision.against_no_skill
    return {
        "calibration": {
            "oof_ece_before": calibration.oof_before.ece,
            "oof_ece_after": calibration.oof_after_crossfitted.ece,
            "test_ece_before": test.calibration.before.ece,
            "test_ece_after": test.calibration.after.ece,
            "test_ece_after_high": finite(figures["ece"].interval[1]),
        },
        "decisions": {
            "gain_vs_no_skill": against.gain,
            "gain_vs_no_skill_low": finite(against.gain_interval[0]),
            "classes_decided": against.classes_decided,
            "reject_coverage": reject.coverage,
            "selective_risk": finite(reject.selective_risk),
            "aurc": test.selective.aurc,
            "set_coverage": test.conformal.coverage,
            "mean_set_size": test.conformal.mean_set_size,
        },
    }


def interval_quality(test: RegressionEvaluation, calibration: RegressionCalibration) -> JSON:
    """The headline section of the deployed intervals: their test coverage and width, the coverage asked, and the
    worst fifth of the test predictions: its coverage and the lower end of its interval (what the gate reads)."""
    deployed, figures = test.intervals.deployed_summary, test.bootstrap.figures
    fifths = [figures[f"coverage_fifth_{k + 1}"] for k in range(FIFTHS) if f"coverage_fifth_{k + 1}" in figures]
    lows = [finite(f.interval[0]) for f in fifths]
    return {
        "intervals": {
            "coverage": deployed.coverage,
            "coverage_low": finite(figures["coverage"].interval[0]),
            "mean_width": deployed.mean_width,
            "target_coverage": test.intervals.coverage_target,
            "worst_fifth_coverage": min(
                cast("Iterator[float]", (finite(f.value) for f in fifths if finite(f.value) is not None)), default=None
            ),
            "worst_fifth_coverage_low": None if None in lows or not lows else min(cast("list[float]", lows)),
        }
    }


def parity_gaps(audit: BinaryAudit | MulticlassAudit) -> JSON:
    """The headline's gaps of one fairness grouping (its BinaryAudit or MulticlassAudit): demographic parity and
    equal opportunity, max - min, each with its interval (difference, difference_interval)."""
    return {c: audit.criteria[c] for c in ("demographic_parity", "equal_opportunity")}


def error_gaps(audit: RegressionAudit) -> JSON:
    """The headline's gaps of one grouping (its RegressionAudit): absolute error, bias (mean residual) and
    interval coverage, each with its interval (difference, difference_interval)."""
    return {m: getattr(audit.gaps, m) for m in ("mae", "mean_residual", "interval_coverage")}


# by task: the headline sections of how far the deployed output can be trusted, and the gaps of one audited grouping
QUALITY_FIGURES: dict[str, Callable[[Any, Any], JSON]] = {
    "binary": probability_quality,
    "multiclass": probability_quality,
    "regression": interval_quality,
}
GROUP_GAPS: dict[str, Callable[[Any], JSON]] = {
    "binary": parity_gaps,
    "multiclass": parity_gaps,
    "regression": error_gaps,
}
