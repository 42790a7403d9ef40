"""The headline figures of a run (each test metric with the no-skill baseline's beside it, `test_no_skill.*`, which
sorts after `test.*` so MLflow's compare view does not open on a constant): the few dozen numbers a reader compares
between experiments (`dvc metrics show`, `dvc exp show`, the MLflow run's metrics, the promotion gate), each once.
The stages' detailed reports stay in their own JSON files and plots; these are picked from them, with the same dotted
names everywhere (e.g. `test.roc_auc`).
"""

from __future__ import annotations

from ..core.assessment_records import Assessment
from ..core.evaluation_records import CalibrationReport, EvaluationReport, GainOnTest
from ..core.fairness_records import FairnessReport
from ..core.records import TrainMetrics
from ..core.task import Target, finite
from .page import fmt
from .page import interval as with_interval


def _pick(source: dict, keys) -> dict:
    return {k: finite(source.get(k)) for k in keys}


def headline(
    target: Target,
    train: TrainMetrics,
    calibration: CalibrationReport,
    test: EvaluationReport,
    fairness: FairnessReport,
    assessment: Assessment,
) -> dict:
    """{section: {name: number}}: the search's CV score and gap, the test metrics of the task, calibration or
    interval quality, and the fairness gaps of each sensitive attribute and their intersections."""
    out: dict[str, dict] = {
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
    out.update(target.quality_figures(test, calibration))
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


def gain_over_simplest(train: TrainMetrics, test: EvaluationReport) -> dict:
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

    def gain(g, what: str) -> str:
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


def interval(test: EvaluationReport, figure: str) -> list:
    """[lower, upper] of a test figure's bootstrap interval (test.json `bootstrap`)."""
    return test.bootstrap.figures[figure].interval


def undefined_gaps(target: Target, fairness: FairnessReport) -> list[str]:
    """The gaps (as fairness_gaps names them) of the attributes and intersections audited that could not be computed:
    the promotion gate names each as not evaluated."""
    return [name for name, gap in fairness_gaps(target, fairness).items() if gap is None]


def fairness_gaps(target: Target, fairness: FairnessReport) -> dict:
    """Per sensitive attribute and every intersection of them ("female x black": MLflow's metric names take no "&"):
    the parity gaps (classification) or the error, bias and coverage gaps (regression), max - min over the groups
    large enough, and the upper end of each one's bootstrap interval ("<name>_gap_high"). The gate's fairness bound
    reads every upper end, so a gap that only shows in an intersection, or only within its noise, counts."""
    gaps = {}
    for grouping, result in fairness.attributes.items():
        for name, gap in target.group_gaps(result).items():
            key = f"{grouping.replace(' & ', ' x ')}.{name}_gap"
            gaps[key] = finite(gap.difference)
            gaps[f"{key}_high"] = finite(gap.difference_interval[1]) if gap.difference_interval else None
    return gaps


def flat(headline_figures: dict) -> dict[str, float]:
    """{"section.name": number} of the defined figures (the MLflow metrics and the promotion gate's view)."""
    return {
        f"{section}.{name}": value
        for section, values in headline_figures.items()
        for name, value in values.items()
        if value is not None
    }
