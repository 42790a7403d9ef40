"""Matplotlib figures for the report and MLflow, drawn from the stage report files. PNG bytes are
deterministic: no timestamp or version metadata, the Agg backend, fixed sizes and DPI."""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from ..core.evaluation_records import RegressionIntervals, Selective  # noqa: E402
from ..core.explanation_records import (  # noqa: E402
    ImportanceRow,
    OneWayCurve,
    ShapeFunction,
    ShapleySummary,
    TwoWaySurface,
)
from ..core.fairness_records import BinaryGroup, MulticlassGroup, RegressionGroup  # noqa: E402
from ..core.json_types import JSON  # noqa: E402
from ..core.summaries import GROUP_RATES  # noqa: E402

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

plt.rcParams.update({"figure.dpi": 100, "font.size": 9, "axes.grid": True, "grid.alpha": 0.3})


def png_bytes(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, metadata={"Software": None}, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def _by_class(points: list[JSON]) -> dict[str, list[JSON]]:
    out: dict[str, list[JSON]] = {}
    for p in points:
        out.setdefault(p["class"], []).append(p)
    return out


def roc(points: list[JSON], auc: dict[str, float]) -> bytes:
    """One ROC curve per class against the rest (binary: the positive class); auc: {class: AUC}."""
    fig, ax = plt.subplots(figsize=(4, 4))
    curves = _by_class(points)
    for name, rows in curves.items():
        label = f"model (AUC {auc[name]:.3f})" if len(curves) == 1 else f"{name} vs rest (AUC {auc[name]:.3f})"
        ax.plot([p["fpr"] for p in rows], [p["tpr"] for p in rows], label=label)
    ax.plot([0, 1], [0, 1], "--", color="grey", label="chance")
    ax.set(xlabel="false positive rate", ylabel="true positive rate", title="ROC curve (test)")
    ax.legend(loc="lower right", fontsize=7)
    return png_bytes(fig)


def precision_recall(points: list[JSON], average_precision: dict[str, float], prevalence: dict[str, float]) -> bytes:
    """One PR curve per class against the rest (binary: the positive class), each with its prevalence."""
    fig, ax = plt.subplots(figsize=(4, 4))
    for i, (name, rows) in enumerate(_by_class(points).items()):
        color = f"C{i}"
        ax.step(
            [p["recall"] for p in rows],
            [p["precision"] for p in rows],
            where="post",
            color=color,
            label=f"{name} (AP {average_precision[name]:.3f})",
        )
        ax.axhline(
            prevalence[name], linestyle="--", color=color, linewidth=0.8, label=f"prevalence {prevalence[name]:.3f}"
        )
    ax.set(xlabel="recall", ylabel="precision", title="Precision-recall curve (test)", ylim=(0, 1.02))
    ax.legend(loc="lower left", fontsize=7)
    return png_bytes(fig)


def reliability(rows: list[JSON], title: str) -> bytes:
    """Observed frequency against mean prediction per bin (empty bins are gaps), with each bin's count below."""
    fig, (ax, counts) = plt.subplots(2, 1, figsize=(4, 5), sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    ax.plot([0, 1], [0, 1], "--", color="grey", label="perfect calibration")
    labels = list(dict.fromkeys(r["calibration"] for r in rows))
    for i, label in enumerate(labels):
        pts = [r for r in rows if r["calibration"] == label and r["count"]]
        ax.plot([r["mean_predicted"] for r in pts], [r["fraction_positive"] for r in pts], "o-", label=label)
        bins = [r for r in rows if r["calibration"] == label]
        width = [(r["bin_upper"] - r["bin_lower"]) / len(labels) for r in bins]
        counts.bar(
            [r["bin_lower"] + i * w for r, w in zip(bins, width)],
            [r["count"] for r in bins],
            width=width,
            align="edge",
            label=label,
        )
    ax.set(ylabel="observed positive frequency", title=title, xlim=(0, 1), ylim=(0, 1))
    ax.legend(loc="upper left")
    counts.set(xlabel="mean predicted probability (bins)", ylabel="rows per bin", xlim=(0, 1))
    return png_bytes(fig)


def risk_coverage(points: list[JSON], selective: Selective) -> bytes:
    """Selective risk (error rate among accepted rows) against coverage as the confidence threshold falls,
    with the configured reject option and the largest coverage within the target risk marked."""
    fig, ax = plt.subplots(figsize=(4.5, 3.5))
    ax.plot([p["coverage"] for p in points], [p["risk"] for p in points], label=f"model (AURC {selective.aurc:.4f})")
    ax.axhline(selective.target_risk, linestyle="--", color="grey", label=f"target risk {selective.target_risk:g}")
    reject = selective.reject_option
    if reject.n_accepted:
        ax.plot(
            [reject.coverage],
            [reject.selective_risk],
            "s",
            color="tab:red",
            label=f"reject below {reject.reject_threshold:g}: coverage {reject.coverage:.3f}",
        )
    at = selective.at_target_risk
    if at["achievable"]:
        ax.plot(
            [at["coverage"]], [at["risk"]], "o", color="tab:green", label=f"coverage at target {at['coverage']:.3f}"
        )
    ax.set(
        xlabel="coverage (fraction of rows decided)",
        ylabel="selective risk (error rate)",
        xlim=(0, 1.02),
        title="Risk-coverage curve (test)",
    )
    ax.legend(loc="lower right", fontsize=7)
    return png_bytes(fig)


def validation_curve(rows: list[JSON], scoring: str) -> bytes:
    fig, ax = plt.subplots(figsize=(5, 3.2))
    x = range(len(rows))
    ax.plot(x, [r["train"] for r in rows], "o-", label="train (fold mean)")
    ax.plot(x, [r["valid"] for r in rows], "o-", label="validation (fold mean)")
    ax.set_xticks(list(x), [r["params"] for r in rows], rotation=30, ha="right")
    ax.set(ylabel=scoring, title="Search candidates: train vs validation")
    ax.legend()
    return png_bytes(fig)


def _interval_bars(
    ax: Axes, offset: float, height: float, points: list[tuple[float | None, float | None, float | None]], label: str
) -> None:
    """One bar per group at offset + its row, with its interval as an error bar; points: (value, low, high), None
    where undefined (no bar, no error bar)."""
    values = [0.0 if v is None else v for v, _, _ in points]
    low = [0.0 if v is None or lo is None else max(v - lo, 0.0) for v, lo, _ in points]
    high = [0.0 if v is None or hi is None else max(hi - v, 0.0) for v, _, hi in points]
    ax.barh(
        [j + offset for j in range(len(points))],
        values,
        height=height,
        xerr=[low, high],
        error_kw={"elinewidth": 0.8, "capsize": 2},
        label=label,
    )


def _group_ticks(groups: Mapping[str, BinaryGroup | MulticlassGroup | RegressionGroup]) -> list[str]:
    """Each group's name, size and flag (below fairness.min_group_size)."""
    return [f"{g} (n={m.n}{', small' if m.small else ''})" for g, m in groups.items()]


def group_rates(attribute: str, groups: dict[str, BinaryGroup]) -> bytes:
    """Per-group rates as bars with their bootstrap intervals; groups below the minimum size are marked."""
    names, metrics = list(groups), GROUP_RATES
    fig, ax = plt.subplots(figsize=(5.5, 0.6 + 0.3 * len(names) * len(metrics)))
    height = 0.8 / len(metrics)
    for i, metric in enumerate(metrics):
        points = [(getattr(groups[g], metric), *groups[g].intervals.get(metric, [None, None])) for g in names]
        _interval_bars(ax, i * height, height, points, metric)
    ticks = _group_ticks(groups)
    ax.set_yticks([j + height * (len(metrics) - 1) / 2 for j in range(len(names))], ticks)
    ax.set(
        xlim=(0, 1.05),
        xlabel="rate (bars: point estimate, lines: bootstrap interval)",
        title=f"Test-set rates by {attribute}",
    )
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7)
    return png_bytes(fig)


def group_class_rates(attribute: str, groups: dict[str, MulticlassGroup]) -> bytes:
    """Multiclass: per group, each class's selection rate and recall with their bootstrap intervals."""
    names = list(groups)
    classes = list(next(iter(groups.values())).classes)
    fig, axes = plt.subplots(1, 2, figsize=(8, 0.9 + 0.35 * len(names) * len(classes)), sharey=True)
    height = 0.8 / len(classes)
    for ax, metric in zip(axes, ("selection_rate", "recall")):
        for i, c in enumerate(classes):
            points = [
                (
                    getattr(groups[g].classes[c], metric),
                    *((groups[g].intervals or {}).get(c, {}).get(metric) or [None, None]),
                )
                for g in names
            ]
            _interval_bars(ax, i * height, height, points, c)
        ax.set(xlim=(0, 1.05), title=metric.replace("_", " "))
    ticks = _group_ticks(groups)
    axes[0].set_yticks([j + height * (len(classes) - 1) / 2 for j in range(len(names))], ticks)
    axes[1].legend(title="class", loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7)
    fig.suptitle(f"Test-set rates by {attribute}, per class (bars: estimate, lines: bootstrap interval)", fontsize=9)
    return png_bytes(fig)


def importance(features: list[ImportanceRow], scoring: str, top: int = 15) -> bytes:
    shown = features[:top][::-1]
    fig, ax = plt.subplots(figsize=(5, 0.5 + 0.28 * len(shown)))
    # one repeat has no interval (null bounds): draw the bars without error lines
    xerr = (
        None
        if any(f.ci_low is None for f in shown)
        else [[f.mean - f.ci_low for f in shown], [f.ci_high - f.mean for f in shown]]
    )
    ax.barh([f.feature for f in shown], [f.mean for f in shown], xerr=xerr, color="tab:blue")
    ax.set(
        xlabel=f"drop in {scoring} when permuted" + ("" if xerr is None else " (95% t interval)"),
        title="Permutation importance (test)",
    )
    return png_bytes(fig)


def shapley_summary(shapley: ShapleySummary, names: list[str], top: int = 15) -> bytes:
    """One row per feature (largest mean |phi| on top): every explained row's Shapley value as a dot; per class
    (K > 2) the mean |phi| of each class as stacked bars."""
    if shapley.per_class:
        shown = shapley.features[:top][::-1]
        fig, ax = plt.subplots(figsize=(5.5, 0.5 + 0.3 * len(shown)))
        left = [0.0] * len(shown)
        for c in shown[0]["mean_abs_per_class"]:
            widths = [f["mean_abs_per_class"][c] for f in shown]
            ax.barh([f["feature"] for f in shown], widths, left=left, label=c)
            left = [a + b for a, b in zip(left, widths)]
        ax.set(
            xlabel=f"mean |Shapley value| ({shapley.output}), summed over classes",
            title=f"Shapley values per class ({shapley.method}), test sample",
        )
        ax.legend(title="class", fontsize=7)
        return png_bytes(fig)
    order = [names.index(f["feature"]) for f in shapley.features[:top]][::-1]
    values = [[row[j] for row in shapley.values] for j in order]
    fig, ax = plt.subplots(figsize=(5.5, 0.5 + 0.3 * len(order)))
    for k, column in enumerate(values):
        jitter = [((i * 7919) % 101 / 101 - 0.5) * 0.5 for i in range(len(column))]  # deterministic spread
        ax.scatter(column, [k + j for j in jitter], s=5, alpha=0.5, color="tab:purple")
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_yticks(range(len(order)), [names[j] for j in order])
    ax.set(xlabel=f"Shapley value ({shapley.output})", title=f"Shapley values ({shapley.method}), test sample")
    return png_bytes(fig)


def shape_function(shape: ShapeFunction, output: str, classes: list[str]) -> bytes:
    """An additive model's shape for one column: the addition per value (a step line for a number of more than ten
    values, points with bars for fewer and for the levels of a category; one line per class for K > 2) with its
    bagging band, and the addition for a missing value as a marker beside them."""
    fig, ax = plt.subplots(figsize=(4, 3.2))
    per_class = bool(shape.value) and isinstance(shape.value[0], list)
    lines = [[v[k] for v in shape.value] for k in range(len(classes))] if per_class else [shape.value]
    bands = [[b[k] for b in shape.band] for k in range(len(classes))] if per_class else [shape.band]
    labels = [f"class {c}" for c in classes] if per_class else [None]
    numeric = shape.kind == "numeric"
    x = np.asarray(shape.x, dtype=float) if numeric else np.arange(len(shape.x))
    for values, spread, label in zip(lines, bands, labels):
        value, band = np.asarray(values, dtype=float), np.asarray(spread, dtype=float)
        if numeric and len(x) > 10:  # a few distinct values (a 0/1 column) are points, as levels are
            line = ax.step(x, value, where="post", linewidth=1.8, label=label)[0]
            ax.fill_between(x, value - band, value + band, step="post", alpha=0.25, color=line.get_color())
        else:
            ax.errorbar(x, value, yerr=band, fmt="o", capsize=3, label=label)
    if shape.missing is not None:
        missing = np.atleast_1d(np.asarray(shape.missing, dtype=float))
        at = x.max() + (x.max() - x.min()) * 0.08 + (0 if numeric else 1)
        ax.plot([at] * len(missing), missing, "kx", label="missing")
    if not numeric:
        ax.set_xticks(x, shape.x, rotation=45, ha="right", fontsize=7)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set(xlabel=shape.feature, ylabel=f"addition ({output})", title=f"Shape function: {shape.feature}")
    if per_class or shape.missing is not None:
        ax.legend(loc="best", fontsize=7)
    return png_bytes(fig)


def partial_dependence(curve: OneWayCurve, classes: list[str], output: str, max_ice: int = 50) -> bytes:
    """PD with ICE curves (one probability or prediction, named by `output`); for K > 2 classes one PD line per
    class (ICE omitted)."""
    fig, ax = plt.subplots(figsize=(4, 3.2))
    numeric = all(isinstance(v, (int, float)) for v in curve.grid)
    x = curve.grid if numeric else list(range(len(curve.grid)))
    if isinstance(curve.average[0], list):
        for k, name in enumerate(classes):
            ax.plot(x, [a[k] for a in curve.average], linewidth=2, label=f"PD, class {name}")
    else:
        for line in curve.ice[:max_ice]:
            ax.plot(x, line, color="tab:grey", alpha=0.25, linewidth=0.7)
        ax.plot(x, curve.average, color="tab:red", linewidth=2, label="partial dependence")
    if not numeric:
        ax.set_xticks(x, curve.grid, rotation=45)
    ax.set(xlabel=curve.feature, ylabel=output, title=f"PD and ICE: {curve.feature}")
    ax.legend(loc="best", fontsize=7)
    return png_bytes(fig)


def partial_dependence_2d(surface: TwoWaySurface, output: str) -> bytes:
    fig, ax = plt.subplots(figsize=(4.2, 3.4))
    image = ax.imshow(surface.average, origin="lower", aspect="auto", cmap="viridis")
    ax.grid(False)
    fig.colorbar(image, ax=ax, label=output)
    (a, b), (ga, gb) = surface.features, surface.grid
    step_a, step_b = -(-len(ga) // 6), -(-len(gb) // 5)  # at most 6 / 5 labels: long numbers must not overlap
    ax.set_yticks(range(0, len(ga), step_a), [f"{v:.3g}" if isinstance(v, float) else v for v in ga[::step_a]])
    ax.set_xticks(
        range(0, len(gb), step_b),
        [f"{v:.3g}" if isinstance(v, float) else v for v in gb[::step_b]],
        rotation=30,
        ha="right",
    )
    ax.set(ylabel=a, xlabel=b, title=f"Partial dependence: {a} x {b}")
    return png_bytes(fig)


def residuals(points: list[JSON], intervals: RegressionIntervals) -> bytes:
    """Regression on test: predicted against actual (the diagonal is perfect), and residuals against predictions
    (a trend or a funnel means a misspecified or heteroscedastic model)."""
    actual, predicted = [p["actual"] for p in points], [p["predicted"] for p in points]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    low, high = min(actual + predicted), max(actual + predicted)
    left.scatter(actual, predicted, s=6, alpha=0.5)
    left.plot([low, high], [low, high], "k--", lw=0.8)
    left.set(xlabel="actual", ylabel="predicted", title="Predicted vs actual (test)")
    right.scatter(predicted, [p["residual"] for p in points], s=6, alpha=0.5)
    right.axhline(0, color="k", lw=0.8, ls="--")
    right.set(
        xlabel="predicted",
        ylabel="actual - predicted",
        title=f"Residuals; {intervals.deployed} interval coverage {intervals.deployed_summary.coverage:.3f}",
    )
    return png_bytes(fig)


def group_errors(attribute: str, groups: dict[str, RegressionGroup]) -> bytes:
    """Regression: per-group MAE, RMSE and mean residual with their bootstrap intervals."""
    names, metrics = list(groups), ("mae", "rmse", "mean_residual")
    fig, ax = plt.subplots(figsize=(5.5, 0.6 + 0.3 * len(names) * len(metrics)))
    height = 0.8 / len(metrics)
    for i, metric in enumerate(metrics):
        values = [getattr(groups[g], metric) for g in names]
        bounds = [(groups[g].intervals or {}).get(metric, [v, v]) for g, v in zip(names, values)]
        errors = [
            [max(v - (lo if lo is not None else v), 0.0) for v, (lo, _) in zip(values, bounds)],
            [max((hi if hi is not None else v) - v, 0.0) for v, (_, hi) in zip(values, bounds)],
        ]
        ax.barh(
            [j + i * height for j in range(len(names))],
            values,
            height=height,
            xerr=errors,
            error_kw={"elinewidth": 0.8, "capsize": 2},
            label=metric,
        )
    ticks = _group_ticks(groups)
    ax.set_yticks([j + height * (len(metrics) - 1) / 2 for j in range(len(names))], ticks)
    ax.axvline(0, color="k", lw=0.8)
    ax.set(
        xlabel="target units (bars: point estimate, lines: bootstrap interval)", title=f"Test-set errors by {attribute}"
    )
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7)
    return png_bytes(fig)


def learning_curve(rows: list[JSON], scoring: str, splits: str) -> bytes:
    """Train and validation score (mean over the splits, e.g. "stratified_group splits") against the training rows
    used."""
    fig, ax = plt.subplots(figsize=(5, 3.2))
    x = [r["rows"] for r in rows]
    ax.plot(x, [r["train"] for r in rows], "o-", label="train")
    ax.plot(x, [r["valid"] for r in rows], "o-", label="validation")
    ax.set(xlabel="training rows per split", ylabel=scoring, title=f"Learning curve ({splits})")
    ax.legend()
    return png_bytes(fig)


def hyperparameter_curve(rows: list[JSON], scoring: str, splits: str) -> bytes:
    """Train and validation score (mean over the splits, validation +- one std) per value of one hyperparameter;
    values shown in the order params lists them."""
    fig, ax = plt.subplots(figsize=(5, 3.2))
    x = list(range(len(rows)))
    valid = [r["valid"] for r in rows]
    ax.plot(x, [r["train"] for r in rows], "o-", label="train")
    ax.errorbar(x, valid, yerr=[r["valid_std"] for r in rows], fmt="o-", capsize=3, label="validation")
    ax.set_xticks(x, [f"{r['value']:g}" if isinstance(r["value"], (int, float)) else str(r["value"]) for r in rows])
    ax.set(xlabel=rows[0]["parameter"], ylabel=scoring, title=f"Validation curve ({splits})")
    ax.legend()
    return png_bytes(fig)
