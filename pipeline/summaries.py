"""Turn mllib results into report rows shared by several stages (calibration quality, reliability rows, the
per-group rates drawn for fairness)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from mllib.calibration import calibration_summary, group_calibration_summary, reliability_curve
from mllib.fairness import intersectional_groups
from mllib.metrics import brier_decomposition, brier_score, log_loss

from .frames import attribute_labels

GROUP_RATES = ("selection_rate", "tpr", "fpr", "precision")  # per-group rates plotted (fairness.csv, report figures)


def binning_spec(cfg: dict) -> dict:
    """The bins behind every ECE / MCE / reliability number, recorded next to them."""
    return {"n_bins": cfg["n_bins"], "strategy": cfg["binning"], "brier_decomposition": "uniform",
            "edges": "right-open bins [lower, upper), the last closed at 1"}


def sensitive_groupings(frame: pd.DataFrame, sensitive: list[str]) -> dict:
    """{attribute or intersection of attributes: group label per row} of the rows of `frame` ({} for none)."""
    return intersectional_groups(attribute_labels(frame, sensitive)) if sensitive else {}


def calibration_report(y: np.ndarray, p: np.ndarray, cfg: dict) -> dict:
    """ECE / MCE with the binning spec of params.yaml `calibration` and the bins actually used, Brier score, log
    loss and Murphy's Brier decomposition (equal-width bins, so the four terms reliability - resolution +
    uncertainty + within_bin add up to the Brier score exactly)."""
    summary = calibration_summary(y, p, n_bins=cfg["n_bins"], strategy=cfg["binning"])
    decomposition = brier_decomposition(y, p, n_bins=cfg["n_bins"])
    return {
        "ece": summary["ece"],
        "mce": summary["mce"],
        "brier": brier_score(y, p),
        "log_loss": log_loss(y, p),
        **{k: summary[k] for k in ("n_bins_used", "n_nonempty_bins", "n")},
        "brier_decomposition": {k: decomposition[k] for k in ("reliability", "resolution", "uncertainty", "within_bin")},
    }


def group_calibration(y: np.ndarray, before: np.ndarray, after: np.ndarray, groupings: dict, cfg: dict) -> dict:
    """{grouping: {group: {n, base_rate, before: {ece, mce}, after: {ece, mce}}}}: ECE / MCE within each sensitive
    group (bins formed within the group, so a small group's numbers are noisy: read them with its n)."""
    bins = dict(n_bins=cfg["n_bins"], strategy=cfg["binning"])
    out = {}
    for name, labels in groupings.items():
        labels = np.asarray(labels).astype(str)
        b, a = group_calibration_summary(y, before, labels, **bins), group_calibration_summary(y, after, labels, **bins)
        out[name] = {g: {"n": b[g]["n"], "base_rate": float(y[labels == g].mean()),
                         "before": {k: b[g][k] for k in ("ece", "mce")}, "after": {k: a[g][k] for k in ("ece", "mce")}}
                     for g in b}
    return out


def reliability_rows(y: np.ndarray, p: np.ndarray, cfg: dict, label: str) -> list[dict]:
    """Reliability-diagram rows for DVC plots, one per bin (empty bins kept, with null means)."""
    curve = reliability_curve(y, p, n_bins=cfg["n_bins"], strategy=cfg["binning"])
    return [{"calibration": label, "bin": i, **{k: v[i] for k, v in curve.items()}} for i in range(len(curve["count"]))]
