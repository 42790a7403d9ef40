"""Parity gaps: how far apart the groups are on a rate (difference max - min, ratio min / max).

Rule: a criterion such as FPR parity f_1/n_1 = f_2/n_2 (eq. 40) or TPR parity t_1/p_1 = t_2/p_2 (eq. 41 with
ERRATUM E4) holds when the gap is 0 and the ratio is 1. Notes: seed 004, D4:2064-2066, 2086-2098;
catalogue sections 5.1 and E5 (the three criteria are FPR, TPR and precision (PPV) parity).

Convention: difference = max - min >= 0 over groups (as fairlearn's "between_groups"), not the signed
unprivileged - privileged difference of AIF360; the groups attaining max and min are reported so the
direction is never lost.

Sections cited: Ghent ML notes (seed 004): 11.3 FAIRNESS: Criteria, Mitigation & “Fairness by Awareness” (2064)"""

from __future__ import annotations

import math

import numpy as np

DEFAULT_METRICS = ("selection_rate", "tpr", "fpr", "precision")


def parity_gaps(per_group: dict, metrics=DEFAULT_METRICS) -> dict:
    """Gap of each metric across groups, from `group_confusion` output (or any {group: {metric: value}}).

    Returns {metric: {difference, ratio, max, min, max_group, min_group, n_defined, undefined_groups}}.
    Only groups where the metric is defined (not nan) take part; they are listed in undefined_groups otherwise.
    difference = max - min and ratio = min / max need at least 2 defined groups, else they are nan;
    ratio is nan as well when max is 0 (0/0). Ties for max / min go to the first group in per_group's order
    (sorted group order for `group_confusion` output).
    """
    if not isinstance(per_group, dict) or not per_group:
        raise ValueError("per_group must be a non-empty dict {group: {metric: value}}, e.g. from group_confusion")
    if isinstance(metrics, str):
        metrics = (metrics,)
    names = list(per_group)
    result = {}
    for metric in metrics:
        missing = [g for g in names if metric not in per_group[g]]
        if missing:
            available = sorted(per_group[names[0]])
            raise ValueError(f"metric {metric!r} is missing for groups {missing}; available metrics: {available}")
        values = np.array([float(per_group[g][metric]) for g in names])
        defined = ~np.isnan(values)
        entry = {
            "difference": math.nan,
            "ratio": math.nan,
            "max": math.nan,
            "min": math.nan,
            "max_group": None,
            "min_group": None,
            "n_defined": int(defined.sum()),
            "undefined_groups": [g for g, ok in zip(names, defined) if not ok],
        }
        if defined.any():
            masked_max = np.where(defined, values, -np.inf)
            masked_min = np.where(defined, values, np.inf)
            i_max, i_min = int(np.argmax(masked_max)), int(np.argmin(masked_min))
            hi, lo = float(values[i_max]), float(values[i_min])
            entry.update(max=hi, min=lo, max_group=names[i_max], min_group=names[i_min])
            if defined.sum() >= 2:
                entry["difference"] = hi - lo
                entry["ratio"] = lo / hi if hi != 0 else math.nan
        result[metric] = entry
    return result
