"""The fairness stage's computations, for the deployed predictor's test decisions.

Binary targets: per-group rates with bootstrap intervals, the four parity criteria (seed 004, D4:2058-2110;
TPR parity is t1/p1 = t2/p2, erratum E4), which of them can hold together given the base rates (D4:2086-2108),
and two mitigations judged on test against the deployed decisions: per-group thresholds fitted on the cross-fitted
out-of-fold probabilities, and reweighing (Kamiran-Calders, catalogue section 5.3).
Multiclass targets: per group and class the selection rate and recall, their macro gaps with intervals
(mllib.fairness.multiclass_audit); reweighing is defined (the weights make the label independent of the groups),
per-group thresholds and the compatibility check are binary notions, reported as not defined.

Sections cited: Ghent ML notes (seed 004): 11.3 FAIRNESS: Criteria, Mitigation & “Fairness by Awareness” (2058,
    2086)"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from mllib.base import clone
from mllib.fairness import (
    CRITERIA,
    GroupThresholdOptimizer,
    criteria_compatibility,
    criterion_gap,
    fairness_report,
    intersectional_groups,
    multiclass_audit,
    regression_audit,
    reweighing_weights,
)

from ..core import paths
from ..core.errors import PipelineError
from ..core.fairness_records import widening
from ..core.frames import attribute_labels
from ..core.json_types import JSON
from ..core.records import FairnessBootstrap
from ..core.summaries import GROUP_RATES
from ..core.task import Binary, Classification, Multiclass, Regression, Target, label_key

if TYPE_CHECKING:
    from mllib.base import GroupLabels
    from mllib.deploy.predictor import DeployedPredictor
    from mllib.deploy.regressor import DeployedRegressor

    from ..core.params import Scalar
    from .feature_blocks import RowsInMemory, RowsOnParts

    Groups = np.ndarray | GroupLabels  # one group label per row (an intersection's, or one attribute's)

Plotted = tuple[str, float, list[float] | None]  # (metric, value, interval) of one group, as fairness.csv plots it

NOT_DEFINED_FOR_REGRESSION = (
    "not defined for regression targets: demographic parity, equal opportunity, equalized odds and predictive parity "
    "compare decisions (rates of a predicted class); a regression's groups are compared by their errors (MAE, RMSE), "
    "their bias (mean residual), their mean prediction and their interval coverage instead. Per-group thresholds and "
    "reweighing (which makes a discrete label independent of the groups) have no regression counterpart here"
)
REGRESSION_PLOTTED = ("mae", "rmse", "mean_residual", "interval_coverage")
NOT_DEFINED_FOR_MULTICLASS = (
    "not defined for multiclass targets: per-group thresholds act on a single probability "
    "p(positive); the decision over K > 2 classes has no one threshold to move per group"
)


def favourable_is_negative(target: Target, favourable: Scalar) -> bool:
    """Whether the favourable outcome (fairness.favourable_label) is a binary target's negative class: then every
    rate, criterion and mitigation reads the flipped labels, decisions and probabilities (a loan file whose positive
    label is "deny": equal opportunity compares approval among applicants who deserve it, not denial among the
    denied). null: the positive label is the favourable one; a label set for another kind of target is refused."""
    if favourable is None:
        return False
    return FAVOURABLE_IS_NEGATIVE[target.task](target, favourable)


def negative_is_favourable(target: Target, favourable: Scalar) -> bool:
    names = target.label_names()
    if label_key(favourable) not in names:
        raise PipelineError(
            f"params.yaml: fairness.favourable_label {favourable!r} is not one of the target's labels {target.classes}"
        )
    return names.index(label_key(favourable)) == 0


def no_favourable_label(target: Target, favourable: Scalar) -> bool:
    raise PipelineError(
        f"params.yaml: fairness.favourable_label is {favourable!r} but the target is {target.task}; it names one "
        "of a binary target's two labels. Set it to null"
    )


# by task
FAVOURABLE_IS_NEGATIVE: dict[str, Callable[[Target, Scalar], bool]] = {
    "binary": negative_is_favourable,
    "multiclass": no_favourable_label,
    "regression": no_favourable_label,
}


@dataclass(frozen=True)
class Outcomes:
    """The test rows as every rate, criterion and mitigation reads them: labels, decisions and probabilities of the
    favourable outcome (flipped when it is a binary target's negative class: favourable_is_negative)."""

    y: np.ndarray
    decision: np.ndarray
    P: np.ndarray
    flip: bool


def favourable_outcomes(
    target: Target, favourable: Scalar, y: np.ndarray, decision: np.ndarray, P: np.ndarray
) -> Outcomes:
    if favourable_is_negative(target, favourable):
        return Outcomes(1 - y, 1 - decision, P[:, ::-1], flip=True)
    return Outcomes(y, decision, P, flip=False)


def threshold_report(
    target: Classification,
    cfg: JSON,
    sensitive: list[str],
    train: pd.DataFrame,
    oof: pd.DataFrame | None,
    test_labels: dict[str, GroupLabels],
    seen: Outcomes,
    threshold: float | None,
) -> JSON:
    """fairness.json's "mitigation": per-group thresholds fitted on the cross-fitted out-of-fold probabilities `oof`
    (calibrate's) and judged on the test rows, on the favourable outcome's scale; the criterion alone without them
    (fairness.mitigation.criterion none)."""
    if oof is None:
        return {"criterion": cfg["criterion"]}
    if seen.flip:
        oof = oof.assign(y=1 - oof["y"], proba_1=1 - oof["proba_1"])
        threshold = None if threshold is None else 1 - threshold
    thresholds = threshold_mitigation(
        target, cfg, sensitive, train, oof, test_labels, seen.y, seen.P, seen.decision, threshold
    )
    return {"criterion": cfg["criterion"], **thresholds}


def report_header(
    target: Target, predictor: DeployedPredictor | DeployedRegressor, cfg: JSON, seed: int, group: str | None
) -> JSON:
    """fairness.json's fields beside the audit: the task, the deployed decision rule, the bootstrap's settings."""
    return {
        "task": target.task,
        "decision_rule": getattr(predictor, "rule_", None),
        "decision_threshold": getattr(predictor, "decision_threshold_", None),
        "min_group_size": cfg["min_group_size"],
        "favourable_label": cfg["favourable_label"],  # null but for a binary target (favourable_is_negative)
        "bootstrap": FairnessBootstrap(
            n_boot=cfg["n_boot"], confidence_level=cfg["confidence_level"], seed=seed, cluster=group
        ),
    }


def bootstrap_options(cfg: JSON, clusters: np.ndarray | None, seed: int) -> JSON:
    return dict(
        groups=clusters,
        min_group_size=cfg["min_group_size"],
        n_boot=cfg["n_boot"],
        confidence_level=cfg["confidence_level"],
        random_state=seed,
    )


def audit(
    target: Classification,
    y: np.ndarray,
    decision: np.ndarray,
    P: np.ndarray,
    labels: dict[str, GroupLabels],
    clusters: np.ndarray | None,
    cfg: JSON,
    seed: int,
    binning: JSON,
) -> JSON:
    """{grouping (each attribute and every intersection): audit} of the test decisions."""
    return AUDIT[target.task](target, y, decision, P, labels, clusters, cfg, seed, binning)


def binary_audit(
    target: Binary,
    y: np.ndarray,
    decision: np.ndarray,
    P: np.ndarray,
    labels: dict[str, GroupLabels],
    clusters: np.ndarray | None,
    cfg: JSON,
    seed: int,
    binning: JSON,
) -> JSON:
    """Per-group rates and calibration of p(positive), the parity criteria, which of them can hold together."""
    attributes = fairness_report(
        y,
        decision,
        labels,
        proba=P[:, 1],
        n_bins=binning["n_bins"],
        strategy=binning["binning"],
        **bootstrap_options(cfg, clusters, seed),
    )
    for result in attributes.values():
        result["compatibility"] = compatibility(result)
    return attributes


def per_class_audit(
    target: Multiclass,
    y: np.ndarray,
    decision: np.ndarray,
    P: np.ndarray,
    labels: dict[str, GroupLabels],
    clusters: np.ndarray | None,
    cfg: JSON,
    seed: int,
    binning: JSON,
) -> JSON:
    """Per group and class the selection rate and recall, their macro gaps."""
    names = target.label_names()
    return {
        name: multiclass_audit(
            y, decision, g, target.n_classes, class_names=names, **bootstrap_options(cfg, clusters, seed)
        )
        for name, g in intersectional_groups(labels).items()
    }


# by task
AUDIT: dict[str, Callable[..., JSON]] = {"binary": binary_audit, "multiclass": per_class_audit}


def regression_audits(
    y: np.ndarray,
    pred: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    labels: dict[str, GroupLabels],
    clusters: np.ndarray | None,
    cfg: JSON,
    seed: int,
) -> JSON:
    """{grouping (each attribute and every intersection): regression_audit} of the test predictions."""
    return {
        name: regression_audit(
            y,
            pred,
            g,
            lower,
            upper,
            groups=clusters,
            min_group_size=cfg["min_group_size"],
            n_boot=cfg["n_boot"],
            confidence_level=cfg["confidence_level"],
            random_state=seed,
        )
        for name, g in intersectional_groups(labels).items()
    }


def compatibility(audit: JSON) -> JSON:
    """criteria_compatibility over the groups that enter the criteria (not flagged small, base rate in (0, 1))."""
    rates = {g: m["base_rate"] for g, m in audit["groups"].items() if not m["small"] and 0 < m["base_rate"] < 1}
    if len(rates) < 2:
        return {
            "groups": list(rates),
            "statement": "fewer than two groups of sufficient size with both classes: "
            "the compatibility of the criteria cannot be judged",
        }
    return {"groups": list(rates), **criteria_compatibility(list(rates.values()))}


def criterion_gaps(
    target: Classification, y: np.ndarray, before: np.ndarray, after: np.ndarray, groups: Groups
) -> JSON:
    """Each parity criterion's gap of two sets of decisions on the same rows."""
    return CRITERION_GAPS[target.task](target, y, before, after, groups)


def binary_gaps(target: Binary, y: np.ndarray, before: np.ndarray, after: np.ndarray, groups: Groups) -> JSON:
    return every_criterion(y, before, after, groups)


def macro_gaps(target: Multiclass, y: np.ndarray, before: np.ndarray, after: np.ndarray, groups: Groups) -> JSON:
    """The multiclass criteria's macro gaps of two sets of decisions on the same rows (no intervals)."""
    a, b = (
        multiclass_audit(y, d, groups, target.n_classes, n_boot=0, min_group_size=1)["criteria"]
        for d in (before, after)
    )
    return {c: {"gap_before": a[c]["difference"], "gap_after": b[c]["difference"]} for c in a}


# by task
CRITERION_GAPS: dict[str, Callable[..., JSON]] = {"binary": binary_gaps, "multiclass": macro_gaps}


def every_criterion(y: np.ndarray, before: np.ndarray, after: np.ndarray, groups: Groups) -> JSON:
    """Each parity criterion's gap of two sets of decisions on the same rows."""
    return {
        c: {"gap_before": criterion_gap(y, before, groups, c), "gap_after": criterion_gap(y, after, groups, c)}
        for c in CRITERIA
    }


def accuracies(y: np.ndarray, before: np.ndarray, after: np.ndarray) -> dict[str, float]:
    """Accuracy of two sets of decisions on the same rows and what the change costs (before - after)."""
    accuracy_before, accuracy_after = float(np.mean(before == y)), float(np.mean(after == y))
    return {
        "accuracy_before": accuracy_before,
        "accuracy_after": accuracy_after,
        "accuracy_cost": accuracy_before - accuracy_after,
    }


def mitigate(
    oof_p: np.ndarray,
    oof_y: np.ndarray,
    oof_groups: Groups,
    test_p: np.ndarray,
    test_y: np.ndarray,
    test_groups: Groups,
    criterion: str,
    tolerance: float,
    threshold: float,
    deployed: np.ndarray,
) -> JSON:
    """Per-group thresholds for one attribute fitted on the out-of-fold rows, gap and accuracy before (p >= threshold
    for all; on test the deployed decisions) and after, on those rows and on test, and every criterion's test gap
    before and after (moving one rate moves the others). A grouping the optimiser cannot handle (a group without
    positives, a test group never seen out of fold) is reported with the reason, not dropped."""
    optimiser = GroupThresholdOptimizer(criterion=criterion, tolerance=tolerance, base_threshold=threshold)
    try:
        optimiser.fit(oof_p, oof_y, oof_groups)
        after = optimiser.predict(test_p, test_groups)
    except ValueError as exc:
        return {"applied": False, "reason": str(exc)}
    every = every_criterion(test_y, deployed, after, test_groups)
    return {
        "applied": True,
        "thresholds": dict(zip(optimiser.groups_, optimiser.thresholds_.tolist())),
        "fitted_oof": {
            "gap_before": optimiser.baseline_gap_,
            "gap_after": optimiser.gap_,
            "accuracy_before": optimiser.baseline_accuracy_,
            "accuracy_after": optimiser.accuracy_,
            "accuracy_cost": optimiser.accuracy_cost_,
        },
        "test": {**every[criterion], **accuracies(test_y, deployed, after)},
        "test_every_criterion": every,
    }


def training_weights(y_train: np.ndarray, train_labels: dict[str, GroupLabels]) -> tuple[str, JSON]:
    """(the intersection g of the sensitive attributes, the Kamiran-Calders weights w(g, y) = P(g) P(y) / P(g, y)
    of the training rows by it: reweighing_weights' {weights, table})."""
    joint = " & ".join(train_labels)
    return joint, reweighing_weights(y_train, intersectional_groups(train_labels)[joint])


def reweighing(
    target: Classification,
    predictor: DeployedPredictor,
    rows: RowsInMemory | RowsOnParts,
    y_train: np.ndarray,
    weighting: tuple[str, JSON],
    y_test: np.ndarray,
    test_labels: dict[str, GroupLabels],
    deployed: np.ndarray,
    refit: bool,
    model_name: str,
    best_params: JSON,
    flip: bool = False,
) -> JSON:
    """The training rows' weights (weighting: training_weights'); when `refit`, a clone of the deployed model
    refitted with them on the training rows in the deployed features (rows: feature_blocks.audited_rows'), put in the
    deployed chain (same features, calibrator and decision rule) and judged on test against the deployed
    decisions."""
    joint, weights = weighting
    report: JSON = {"groups": joint, "weights": weights["table"], "refit": refit}
    if not refit:
        return report
    model = clone(predictor.model)
    report.update(model=model_name, params=best_params)
    reason = rows.fit_weighted(model, y_train, weights["weights"])
    if reason:
        return {**report, "applied": False, "reason": reason}
    after = rows.decisions(predictor.with_model(model))
    after = 1 - after if flip else after  # the favourable outcome is the negative class (favourable_is_negative)
    gaps = {
        name: criterion_gaps(target, y_test, deployed, after, g)
        for name, g in intersectional_groups(test_labels).items()
    }
    return {
        **report,
        "applied": True,
        "scored_through": "the deployed features, calibrator and decision rule",
        "judged_on": "test",
        "test": {**accuracies(y_test, deployed, after), "attributes": gaps},
    }


def plotted(target: Target, m: JSON) -> list[Plotted]:
    """(metric, value, interval) of one group's audit that fairness.csv plots."""
    return PLOTTED[target.task](target, m)


def plotted_rates(target: Binary, m: JSON) -> list[Plotted]:
    return [(k, m[k], m["intervals"].get(k)) for k in GROUP_RATES]


def plotted_class_rates(target: Multiclass, m: JSON) -> list[Plotted]:
    """Per class, the rate named `<class>: selection_rate`."""
    return [
        (f"{c}: {k}", v[k], m.get("intervals", {}).get(c, {}).get(k))
        for c, v in m["classes"].items()
        for k in ("selection_rate", "recall")
    ]


def plotted_errors(target: Regression, m: JSON) -> list[Plotted]:
    return [(k, m[k], m.get("intervals", {}).get(k)) for k in REGRESSION_PLOTTED]


# by task
PLOTTED: dict[str, Callable[..., list[Plotted]]] = {
    "binary": plotted_rates,
    "multiclass": plotted_class_rates,
    "regression": plotted_errors,
}


PLOT_COLUMNS = ["attribute", "group", "metric", "value", "ci_low", "ci_high", "small"]


def plot_rows(target: Target, attributes: JSON) -> list[JSON]:
    """fairness.csv: one row per (grouping, group, rate) with its interval; groups carry their attribute's name, so
    "female=0" and "black=0" stay apart."""
    rows: list[JSON] = []
    for name, result in attributes.items():
        for g, m in result["groups"].items():
            group = str(g) if "=" in str(g) else f"{name}={g}"
            values = plotted(target, m)
            rows += [
                {
                    "attribute": name,
                    "group": group,
                    "metric": metric,
                    "value": value,
                    "ci_low": (interval or [math.nan])[0],
                    "ci_high": (interval or [math.nan, math.nan])[1],
                    "small": m["small"],
                }
                for metric, value, interval in values
            ]
    return rows


def threshold_mitigation(target: Classification, *settings_and_rows: object) -> JSON:
    """Per-group thresholds: defined for one probability p(positive) only."""
    return THRESHOLD_MITIGATION[target.task](target, *settings_and_rows)


def no_thresholds(target: Multiclass, *settings_and_rows: object) -> JSON:
    return {"applied": False, "reason": NOT_DEFINED_FOR_MULTICLASS}


def binary_thresholds(
    target: Binary,
    cfg: JSON,
    sensitive: list[str],
    train: pd.DataFrame,
    oof: pd.DataFrame,
    test_labels: dict[str, GroupLabels],
    y: np.ndarray,
    P: np.ndarray,
    decision: np.ndarray,
    threshold: float,
) -> JSON:
    """Per-group thresholds per attribute, fitted on the out-of-fold rows `oof` only (never test: calibrate's
    paths.OOF_CALIBRATED, row id, y and proba_1), each with the probability of a calibrator fitted without its
    fold."""
    oof_p, oof_y = oof["proba_1"].to_numpy(), oof["y"].to_numpy()
    oof_labels = attribute_labels(train, sensitive, rows=oof[paths.ROW_ID])
    return {
        "tolerance": cfg["tolerance"],
        "fitted_on": "out-of-fold probabilities, cross-fitted by the calibrate stage",
        "judged_on": "test",
        "attributes": {
            a: mitigate(
                oof_p,
                oof_y,
                oof_labels[a],
                P[:, 1],
                y,
                test_labels[a],
                cfg["criterion"],
                cfg["tolerance"],
                threshold,
                decision,
            )
            for a in sensitive
        },
    }


# by task
THRESHOLD_MITIGATION: dict[str, Callable[..., JSON]] = {"binary": binary_thresholds, "multiclass": no_thresholds}


def regression_fairness(predictions: pd.DataFrame, test: pd.DataFrame, cfg: JSON, seed: int, data: JSON) -> JSON:
    """fairness.json's audit of a regression target's test predictions: errors, bias and interval coverage by group;
    the mitigations are not defined."""
    labels = attribute_labels(test, data["sensitive"])
    clusters = test[data["group"]].to_numpy() if data["group"] else None
    y, pred, lower, upper = (predictions[c].to_numpy() for c in ("y", "prediction", "lower", "upper"))
    return {
        "attributes": regression_audits(y, pred, lower, upper, labels, clusters, cfg, seed),
        "mitigation": {
            "criterion": cfg["mitigation"]["criterion"],
            "applied": False,
            "reason": NOT_DEFINED_FOR_REGRESSION,
        },  # fmt: skip
        "reweighing": {"refit": False, "reason": NOT_DEFINED_FOR_REGRESSION},
    }


def regression_lines(attributes: JSON) -> list[str]:
    """What the stage prints of a regression audit: each grouping's gaps."""
    return [
        f"fairness: {name}: MAE gap {result['gaps']['mae']['difference']:.4g}, mean residual gap "
        f"{result['gaps']['mean_residual']['difference']:.4g}, interval coverage gap "
        f"{result['gaps']['interval_coverage']['difference']:.3f}; largest relative gap: {result['largest_gap']}"
        for name, result in attributes.items()
    ]


def summary_lines(report: JSON, criterion: str) -> list[str]:
    lines = []
    for name, result in report["attributes"].items():
        c = result["criteria"]
        lines.append(
            f"fairness: {name}: "
            + ", ".join(
                f"{k.replace('_', ' ')} gap {v['difference']:.3f}" for k, v in c.items() if k != "predictive_parity"
            )
        )
    for name, m in report["mitigation"].get("attributes", {}).items():
        lines.append(
            f"fairness: {criterion} thresholds by {name}: test gap {m['test']['gap_before']:.3f} -> "
            f"{m['test']['gap_after']:.3f}{widening(m['test']['gap_before'], m['test']['gap_after'])}, accuracy cost "
            f"{m['test']['accuracy_cost']:.4f}"
            if m["applied"]
            else f"fairness: no {criterion} thresholds by {name}: {m['reason']}"
        )
    rw = report["reweighing"]
    if rw.get("applied"):
        shown = criterion if criterion in next(iter(rw["test"]["attributes"].values())) else "demographic_parity"
        gaps = ", ".join(
            f"{name} {g[shown]['gap_before']:.3f} -> {g[shown]['gap_after']:.3f}"
            f"{widening(g[shown]['gap_before'], g[shown]['gap_after'])}"
            for name, g in rw["test"]["attributes"].items()
        )
        lines.append(
            f"fairness: reweighing by {rw['groups']}: test {shown} gaps {gaps}, accuracy cost "
            f"{rw['test']['accuracy_cost']:.4f}"
        )
    elif rw.get("refit"):
        lines.append(f"fairness: reweighing by {rw['groups']}: {rw['reason']}")
    return lines
