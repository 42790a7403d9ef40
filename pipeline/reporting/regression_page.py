"""The report page of a regression target: its test evaluation with the prediction intervals, the errors by
group, the residual figures and the model-card lines."""

from __future__ import annotations

from ..core.evaluation_records import BinSummary, RegressionEvaluation, ResidualPlot
from ..core.fairness_records import RegressionFairness
from ..core.json_types import JSON
from ..core.records import TrainMetrics
from ..core.report_inputs import ReportInputs
from . import figures
from . import page as html
from .page import audited, fmt
from .results import gap_note, intervals_note, with_baseline, with_interval


def regression_test_section(test: RegressionEvaluation) -> JSON:
    intervals = test.intervals
    rows = [
        {"interval": name + (" (deployed)" if name == intervals.deployed else ""), **summary.to_json()}
        for name, summary in intervals.methods().items()
    ]
    return html.section(
        "Test evaluation (used once)",
        html.key_values({"n": test.n}),
        *with_baseline(test, ("rmse", "mae", "r2", "mean_residual")),
        html.heading(
            f"Prediction intervals (target coverage {html.fmt(intervals.coverage_target)}; computed on "
            f"{intervals.computed_on})"
        ),
        html.table(rows),
        html.muted(f"The deployed {intervals.deployed} intervals in each fifth of the test predictions, lowest first:"),
        html.table(fifth_rows(test)),
        html.muted(
            "cv_plus: CV+ from the fold models and their out-of-fold residuals (coverage guaranteed at "
            "least 1 - 2 alpha, close to 1 - alpha in practice); split: the final model's prediction -/+ the "
            "conformal quantile of the out-of-fold absolute residuals; model: the model's own Gaussian predictive "
            "interval, where it has one (it holds only if its noise model does). Coverage on test varies by about "
            "sqrt(c (1 - c) / n)."
        ),
        gap_note(test),
        html.figures("residuals.png"),
        html.muted(plotted_rows(test.residual_plot)),
    )


def fifth_rows(test: RegressionEvaluation) -> list[JSON]:
    """The deployed intervals' coverage (with its bootstrap interval) and width in each fifth of the predictions."""
    return [
        {"fifth": b.bin, "n": b.n, "predictions": f"{fmt(b.prediction[0])} to {fmt(b.prediction[1])}",
         "coverage": fifth_coverage(test, b), "mean width": b.mean_width}
        for b in test.intervals.by_fifth
    ]  # fmt: skip


def fifth_coverage(test: RegressionEvaluation, fifth: BinSummary) -> str:
    return html.interval(fifth.coverage, test.bootstrap.figures[f"coverage_fifth_{fifth.bin}"].interval)


def fifths_line(test: RegressionEvaluation) -> str:
    """The card's per-fifth coverage: rows, predicted range, coverage with its interval, mean width."""
    return "; ".join(
        f"{b.bin}: {b.n} rows predicted {fmt(b.prediction[0])} to {fmt(b.prediction[1])}, coverage "
        f"{fifth_coverage(test, b)}, mean width {fmt(b.mean_width)}"
        for b in test.intervals.by_fifth
    )


def scale_line(train: TrainMetrics, test: RegressionEvaluation) -> str:
    """The card's line on the target's scale: what was tried and chosen, what the predictions are, the floor and the
    test predictions it raised, and where the attributions add up."""
    chosen, deployed = train.target_transform, test.target_transform
    line = f"{chosen.statement} (model.target_transform: {chosen.setting}); deployed: {deployed.predictions}"
    if deployed.floor is not None:
        line += (
            f"; {deployed.clipped} of {test.n} test predictions raised to {deployed.floor:g} (the lowest before: "
            f"{fmt(deployed.lowest_unclipped)})"
        )
    return line + f"; explain's attributions add up on {deployed.attributions_add_up_on}"


def plotted_rows(plot: ResidualPlot) -> str:
    if plot.every == 1:
        return f"The figures show every test row ({plot.of})."
    return f"The figures show every {plot.every}-th test row: {plot.rows} of {plot.of}."


def regression_fairness_section(r: ReportInputs) -> JSON:
    f = r.fairness_as(RegressionFairness)
    boot = f.bootstrap
    parts = [
        html.muted(
            f"Test set. Intervals: {html.fmt(boot.confidence_level)} percentile bootstrap, "
            f"{boot.n_boot} replicates (seed {boot.seed}"
            f"{', resampling whole ' + html.fmt(boot.cluster) + ' clusters' if boot.cluster else ', rows'}). "
            f"Groups below {f.min_group_size} rows are flagged and left out of the gaps (max - min over groups). "
            "mean residual = mean of actual - predicted (> 0: the group is under-predicted)."
        ),
        html.note(f"{html.fmt(f.mitigation.reason or '')}"),
    ]
    for i, (attribute, result) in enumerate(f.attributes.items()):
        rows = [
            {
                "group": g,
                "n": m.n,
                **{
                    k: html.interval(getattr(m, k), (m.intervals or {}).get(k))
                    for k in ("mae", "rmse", "mean_residual", "mean_prediction", "interval_coverage")
                },
                "flag": "below min size" if m.small else "",
            }
            for g, m in result.groups.items()
        ]
        gaps = [
            {"metric": k, "gap (max - min)": html.gap(v.difference, v.difference_interval)}
            for k, v in result.gaps.items()
        ]
        title = f"{html.fmt(attribute)} (largest relative gap: {html.fmt(result.largest_gap)})"
        parts += html.grouping(i, title, html.table(rows), html.table(gaps))
    return html.section("Fairness: errors by group", *parts)


def regression_card(data: JSON, train: TrainMetrics, test: RegressionEvaluation, fairness: RegressionFairness) -> JSON:
    intervals = test.intervals
    deployed = intervals.deployed_summary
    gaps = {a: result.gaps for a, result in audited(fairness, data).items()}  # with the intersections
    return {
        "Intended use": f"Predicts {data['target']} with a {fmt(intervals.coverage_target)} prediction interval "
        f"({intervals.deployed}) for rows like the training data",
        "Performance": f"test RMSE {with_interval(test, 'rmse')}, MAE {with_interval(test, 'mae')}, R^2 "
        f"{with_interval(test, 'r2')} ({intervals_note(test)})",
        "Target scale": scale_line(train, test),
        "Prediction intervals": f"{intervals.deployed} on {intervals.computed_on}: hold the actual value on "
        f"{html.interval(deployed.coverage, test.bootstrap.figures['coverage'].interval)} of test "
        f"rows (target {fmt(intervals.coverage_target)}), mean width {fmt(deployed.mean_width)}; by fifth of the "
        f"test predictions, lowest first: {fifths_line(test)}",
        "Fairness": "; ".join(
            f"by {a}: MAE gap {html.gap(g.mae.difference)}, mean residual gap "
            f"{html.gap(g.mean_residual.difference)}, interval coverage gap "
            f"{html.gap(g.interval_coverage.difference)}"
            for a, g in gaps.items()
        )
        or "no sensitive attributes",
        "Fairness mitigation": "none: per-group thresholds and reweighing are classification methods",
    }


class RegressionPage:
    """What a regression target's page shows: the test section with the intervals, the errors by group, the residual
    figures and the model card's lines."""

    two_way_pdp = True
    fold_note = (html.muted("Regression: class_counts count the rows per quantile bin of the target."),)

    @staticmethod
    def task_figures(r: ReportInputs) -> dict[str, bytes]:
        figs = {"residuals.png": figures.residuals(r.residuals, r.test_as(RegressionEvaluation).intervals)}
        for i, (attribute, result) in enumerate(r.fairness.attributes.items()):
            figs[f"fairness_{i}.png"] = figures.group_errors(attribute, result.groups)
        return figs

    @staticmethod
    def task_sections(r: ReportInputs) -> list[JSON]:
        return [regression_test_section(r.test_as(RegressionEvaluation)), regression_fairness_section(r)]

    @staticmethod
    def card(params: JSON, r: ReportInputs) -> JSON:
        return regression_card(
            params["data"], r.train, r.test_as(RegressionEvaluation), r.fairness_as(RegressionFairness)
        )
