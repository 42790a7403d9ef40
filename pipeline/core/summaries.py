"""Turn mllib results into report rows shared by several stages (calibration quality, reliability rows, the
per-group rates drawn for fairness).

Probabilities are (n, K) class probabilities. With two classes calibration is judged on p(positive); with more,
on the top label (the largest probability against whether its class is right, Guo et al. 2017), with the
classwise ECE beside it."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from mllib.base import GroupLabels, group_index
from mllib.calibration import calibration_summary, group_calibration_summary, reliability_curve
from mllib.fairness import intersectional_groups
from mllib.metrics import brier_score, log_loss

from .frames import attribute_labels
from .json_types import JSON
from .task import Classification

GROUP_RATES = ("selection_rate", "tpr", "fpr", "precision")  # per-group rates plotted (fairness.csv, report figures)


def binning_spec(cfg: JSON) -> JSON:
    """The bins behind every ECE / MCE / reliability number, recorded next to them."""
    return {
        "n_bins": cfg["n_bins"],
        "strategy": cfg["binning"],
        "brier_decomposition": "uniform",
        "edges": "right-open bins [lower, upper), the last closed at 1",
    }


def sensitive_groupings(
    frame: pd.DataFrame, sensitive: list[str], rows: Iterable[object] | None = None
) -> dict[str, GroupLabels]:
    """{attribute or intersection of attributes: group label per row} of the rows of `frame` ({} for none), or of
    the rows whose row ids are `rows`, in that order."""
    groupings: dict[str, GroupLabels] = (
        intersectional_groups(attribute_labels(frame, sensitive, rows)) if sensitive else {}
    )
    return groupings


def brier_decomposition_detail(y: np.ndarray, P: np.ndarray, cfg: JSON) -> JSON:
    """Murphy's Brier decomposition (equal-width bins, so reliability - resolution + uncertainty + within_bin add
    up to the Brier score exactly)."""
    from mllib.metrics import brier_decomposition

    terms = brier_decomposition(y, P[:, 1], n_bins=cfg["n_bins"])
    return {"brier_decomposition": {k: terms[k] for k in ("reliability", "resolution", "uncertainty", "within_bin")}}


def classwise_detail(y: np.ndarray, P: np.ndarray, cfg: JSON) -> JSON:
    """The classwise ECE: the mean over classes of the ECE of p_k against y = k."""
    from mllib.calibration import classwise_ece

    return {
        "ece_of": "top label",
        "classwise_ece": classwise_ece(y, P, n_bins=cfg["n_bins"], strategy=cfg["binning"])["mean"],
    }


# by classification task: its own calibration figures beside the ECE (the Brier decomposition, the classwise ECE)
CALIBRATION_DETAILS = {"binary": brier_decomposition_detail, "multiclass": classwise_detail}


def calibration_report(target: Classification, y: np.ndarray, P: np.ndarray, cfg: JSON) -> JSON:
    """ECE / MCE with the binning spec of params.yaml `calibration` and the bins actually used (of p(positive), or
    of the top label for K > 2), Brier score, log loss and the task's own detail (the Brier decomposition for two
    classes, the classwise ECE for more: CALIBRATION_DETAILS)."""
    outcome, p = target.calibration_view(y, P)
    summary = calibration_summary(outcome, p, n_bins=cfg["n_bins"], strategy=cfg["binning"])
    return {
        "ece": summary["ece"],
        "mce": summary["mce"],
        "brier": brier_score(y, target.metric_probabilities(P)),
        "log_loss": log_loss(y, target.metric_probabilities(P)),
        **{k: summary[k] for k in ("n_bins_used", "n_nonempty_bins", "n")},
        **CALIBRATION_DETAILS[target.task](y, P, cfg),
    }


def group_calibration(
    target: Classification,
    y: np.ndarray,
    before: np.ndarray,
    after: np.ndarray,
    groupings: dict[str, GroupLabels],
    cfg: JSON,
) -> dict[str, dict[str, JSON]]:
    """{grouping: {group: {n, base_rate, before: {ece, mce}, after: {ece, mce}}}}: ECE / MCE within each sensitive
    group (bins formed within the group, so a small group's numbers are noisy: read them with its n). base_rate is
    the positive share (two classes) or the accuracy of the calibrated top label (more)."""
    bins = dict(n_bins=cfg["n_bins"], strategy=cfg["binning"])
    out_b, p_b = target.calibration_view(y, before)
    out_a, p_a = target.calibration_view(y, after)
    out: dict[str, dict[str, JSON]] = {}
    for name, labels in groupings.items():
        _, inverse = group_index(labels, len(y), name)
        b = group_calibration_summary(out_b, p_b, labels, **bins)
        a = group_calibration_summary(out_a, p_a, labels, **bins)
        out[name] = {
            g: {
                "n": b[g]["n"],
                "base_rate": float(out_a[inverse == i].mean()),
                "before": {k: b[g][k] for k in ("ece", "mce")},
                "after": {k: a[g][k] for k in ("ece", "mce")},
            }
            for i, g in enumerate(b)
        }
    return out


def reliability_rows(target: Classification, y: np.ndarray, P: np.ndarray, cfg: JSON, label: str) -> list[JSON]:
    """Reliability-diagram rows for DVC plots, one per bin (empty bins kept, with null means); of p(positive), or
    of the top label for K > 2."""
    outcome, p = target.calibration_view(y, P)
    curve = reliability_curve(outcome, p, n_bins=cfg["n_bins"], strategy=cfg["binning"])
    return [{"calibration": label, "bin": i, **{k: v[i] for k, v in curve.items()}} for i in range(len(curve["count"]))]
