"""Turn mllib results into report rows shared by several stages (calibration quality, reliability rows, the
per-group rates drawn for fairness).

Probabilities are (n, K) class probabilities. With two classes calibration is judged on p(positive); with more,
on the top label (the largest probability against whether its class is right, Guo et al. 2017), with the
classwise ECE beside it."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mllib.calibration import calibration_summary, classwise_ece, group_calibration_summary, reliability_curve
from mllib.fairness import intersectional_groups
from mllib.metrics import brier_decomposition, brier_score, log_loss

from .frames import attribute_labels

GROUP_RATES = ("selection_rate", "tpr", "fpr", "precision")  # per-group rates plotted (fairness.csv, report figures)


def binning_spec(cfg: dict) -> dict:
    """The bins behind every ECE / MCE / reliability number, recorded next to them."""
    return {
        "n_bins": cfg["n_bins"],
        "strategy": cfg["binning"],
        "brier_decomposition": "uniform",
        "edges": "right-open bins [lower, upper), the last closed at 1",
    }


def sensitive_groupings(frame: pd.DataFrame, sensitive: list[str]) -> dict:
    """{attribute or intersection of attributes: group label per row} of the rows of `frame` ({} for none)."""
    return intersectional_groups(attribute_labels(frame, sensitive)) if sensitive else {}


def binary_view(y: np.ndarray, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(outcome, probability) whose calibration stands for P's: (y, p(positive)) for two classes, (top label is
    right, top probability) for more."""
    if P.shape[1] == 2:
        return y, P[:, 1]
    return (np.argmax(P, axis=1) == y).astype(np.int64), P.max(axis=1)


def calibration_report(y: np.ndarray, P: np.ndarray, cfg: dict) -> dict:
    """ECE / MCE with the binning spec of params.yaml `calibration` and the bins actually used (of p(positive), or
    of the top label for K > 2 with the classwise ECE beside it), Brier score, log loss and, for two classes,
    Murphy's Brier decomposition (equal-width bins, so the four terms reliability - resolution + uncertainty +
    within_bin add up to the Brier score exactly)."""
    outcome, p = binary_view(y, P)
    summary = calibration_summary(outcome, p, n_bins=cfg["n_bins"], strategy=cfg["binning"])
    binary = P.shape[1] == 2
    report = {
        "ece": summary["ece"],
        "mce": summary["mce"],
        "brier": brier_score(y, P[:, 1] if binary else P),
        "log_loss": log_loss(y, P[:, 1] if binary else P),
        **{k: summary[k] for k in ("n_bins_used", "n_nonempty_bins", "n")},
    }
    if binary:
        decomposition = brier_decomposition(y, p, n_bins=cfg["n_bins"])
        report["brier_decomposition"] = {
            k: decomposition[k] for k in ("reliability", "resolution", "uncertainty", "within_bin")
        }
    else:
        report["ece_of"] = "top label"
        report["classwise_ece"] = classwise_ece(y, P, n_bins=cfg["n_bins"], strategy=cfg["binning"])["mean"]
    return report


def group_calibration(y: np.ndarray, before: np.ndarray, after: np.ndarray, groupings: dict, cfg: dict) -> dict:
    """{grouping: {group: {n, base_rate, before: {ece, mce}, after: {ece, mce}}}}: ECE / MCE within each sensitive
    group (bins formed within the group, so a small group's numbers are noisy: read them with its n). base_rate is
    the positive share (two classes) or the accuracy of the calibrated top label (more)."""
    bins = dict(n_bins=cfg["n_bins"], strategy=cfg["binning"])
    out_b, p_b = binary_view(y, before)
    out_a, p_a = binary_view(y, after)
    out = {}
    for name, labels in groupings.items():
        labels = np.asarray(labels).astype(str)
        b = group_calibration_summary(out_b, p_b, labels, **bins)
        a = group_calibration_summary(out_a, p_a, labels, **bins)
        out[name] = {
            g: {
                "n": b[g]["n"],
                "base_rate": float(out_a[labels == g].mean()),
                "before": {k: b[g][k] for k in ("ece", "mce")},
                "after": {k: a[g][k] for k in ("ece", "mce")},
            }
            for g in b
        }
    return out


def reliability_rows(y: np.ndarray, P: np.ndarray, cfg: dict, label: str) -> list[dict]:
    """Reliability-diagram rows for DVC plots, one per bin (empty bins kept, with null means); of p(positive), or
    of the top label for K > 2."""
    outcome, p = binary_view(y, P)
    curve = reliability_curve(outcome, p, n_bins=cfg["n_bins"], strategy=cfg["binning"])
    return [{"calibration": label, "bin": i, **{k: v[i] for k, v in curve.items()}} for i in range(len(curve["count"]))]
