"""Group-fairness audit of K > 2 class decisions: per group and class, the selection rate and the recall, and
the parity gaps averaged over classes.

Rule: per group g and class k, selection rate s_gk = P(y_hat = k | g) and recall r_gk = P(y_hat = k | y = k, g)
(class k against the rest, ERRATUM E4's TPR t/p read per class). Demographic parity holds for class k when
s_gk is equal across groups, equal opportunity when r_gk is; each is reported per class as
difference = max_g - min_g (0 = parity) and as the macro gap, the mean of the defined per-class differences.
Accuracy per group and its spread sit beside them. Notes: seed 004, D4:2058-2110 (the binary criteria, which
the one-vs-rest reading extends class by class); catalogue section 5.1. Intervals: seeded percentile bootstrap
over rows or clusters, as in audit.py. Groups below min_group_size are shown, flagged and left out of the gaps.

Sections cited: Ghent ML notes (seed 004): 11.3 FAIRNESS: Criteria, Mitigation & “Fairness by Awareness” (2058)"""

from __future__ import annotations

import math

import numpy as np

from ..base import (
    check_class_indices,
    check_int,
    check_random_state,
    check_rows,
    checked_arguments,
    safe_divide,
    to_python,
)
from ..metrics.bootstrap import bootstrap_units, percentile_interval, row_multiplicities
from ._checks import check_groups, group_index
from .audit import AUDIT_ARGUMENTS, _spread

MULTICLASS_CRITERIA = {"demographic_parity": "selection_rate", "equal_opportunity": "recall"}


def _statistics(counts: np.ndarray) -> dict:
    """Rates from counts (..., G, K, K) indexed [group, y, y_hat], vectorised over leading axes."""
    n = counts.sum(axis=(-2, -1))
    actual, decided = counts.sum(axis=-1), counts.sum(axis=-2)  # (..., G, K)
    diagonal = np.diagonal(counts, axis1=-2, axis2=-1)
    return {
        "base_rate": safe_divide(actual, n[..., None]),
        "selection_rate": safe_divide(decided, n[..., None]),
        "recall": safe_divide(diagonal, actual),
        "accuracy": safe_divide(diagonal.sum(axis=-1), n),
    }


def _gaps(stats: dict, keep: np.ndarray) -> dict:
    """{criterion: (per-class differences (..., K), macro difference (...))} over the kept groups."""
    out = {}
    for criterion, metric in MULTICLASS_CRITERIA.items():
        per_class = _spread(np.moveaxis(stats[metric][..., keep, :], -1, -2))[0]  # (..., K)
        defined = ~np.isnan(per_class)
        macro = np.where(
            defined.any(axis=-1),
            safe_divide(np.where(defined, per_class, 0).sum(axis=-1), defined.sum(axis=-1)),
            np.nan,
        )
        out[criterion] = (per_class, macro)
    out["accuracy"] = (None, _spread(stats["accuracy"][..., keep])[0])
    return out


@checked_arguments(**AUDIT_ARGUMENTS)
def multiclass_audit(
    y_true,
    y_pred,
    sensitive,
    n_classes: int,
    class_names=None,
    groups=None,
    min_group_size: int = 30,
    n_boot: int = 1000,
    confidence_level: float = 0.95,
    random_state=0,
) -> dict:
    """Per-group, per-class rates and macro parity gaps with bootstrap intervals for one sensitive grouping.

    y_true, y_pred: class indices 0..n_classes-1; sensitive: the group of each row; class_names: labels of the
    classes in index order (default the indices); groups: optional cluster id per row for a cluster bootstrap.
    Returns {groups: {group: {n, small, accuracy, classes: {class: {base_rate, selection_rate, recall}},
    intervals: {accuracy, <class>: {selection_rate, recall}}}}, small_groups,
    criteria: {demographic_parity | equal_opportunity: {metric, per_class: {class: difference}, difference (macro),
    difference_interval, defined, reason}, accuracy: {difference, difference_interval}}, bootstrap: {...}}.
    """
    K = check_int(n_classes, "n_classes", 2)
    y = check_class_indices(y_true, K, "y_true", "the classes")
    y_hat = check_class_indices(y_pred, K, "y_pred", "the classes")
    check_rows(y_true=y, y_pred=y_hat)
    values, gi = group_index(sensitive, y.size, name="sensitive")
    names = [to_python(c) for c in (range(K) if class_names is None else class_names)]
    if len(names) != K:
        raise ValueError(f"class_names has {len(names)} entries for {K} classes")
    G = values.size
    cell = (gi * K + y) * K + y_hat

    def tallies(weight):
        return np.bincount(cell, weights=weight, minlength=G * K * K).reshape(G, K, K)

    counts = tallies(np.ones(y.size))
    size = counts.sum(axis=(1, 2))
    keep = size >= min_group_size
    point = _statistics(counts)
    gaps = _gaps(point, keep)

    unit_of_row, n_units, unit = bootstrap_units(
        y.size, None if groups is None else check_groups(groups, y.size, name="groups")
    )
    rng = check_random_state(random_state)
    level = float(confidence_level)
    if n_boot:
        boot = _statistics(np.stack([tallies(row_multiplicities(rng, unit_of_row, n_units)) for _ in range(n_boot)]))
        boot_gaps = _gaps(boot, keep)

    def interval(samples):
        return percentile_interval(samples, level) if n_boot else None

    table = {}
    for a, group in enumerate(to_python(v) for v in values):
        row = {
            "n": int(size[a]),
            "small": bool(not keep[a]),
            "accuracy": float(point["accuracy"][a]),
            "classes": {
                names[k]: {m: float(point[m][a, k]) for m in ("base_rate", "selection_rate", "recall")}
                for k in range(K)
            },
        }
        if n_boot:
            row["intervals"] = {
                "accuracy": interval(boot["accuracy"][:, a]),
                **{names[k]: {m: interval(boot[m][:, a, k]) for m in ("selection_rate", "recall")} for k in range(K)},
            }
        table[group] = row
    criteria = {}
    for criterion, metric in MULTICLASS_CRITERIA.items():
        per_class, macro = gaps[criterion]
        difference = float(macro)
        criteria[criterion] = {
            "metric": metric,
            "per_class": {names[k]: float(per_class[k]) for k in range(K)},
            "difference": difference,
            "defined": not math.isnan(difference),
            "reason": None
            if not math.isnan(difference)
            else f"fewer than 2 groups (of size >= min_group_size) with a defined {metric} for any class",
            "difference_interval": interval(boot_gaps[criterion][1]) if n_boot else None,
        }
    criteria["accuracy"] = {
        "metric": "accuracy",
        "difference": float(gaps["accuracy"][1]),
        "difference_interval": interval(boot_gaps["accuracy"][1]) if n_boot else None,
    }
    return {
        "groups": table,
        "small_groups": [to_python(values[a]) for a in range(G) if not keep[a]],
        "criteria": criteria,
        "bootstrap": {
            "n_boot": int(n_boot),
            "confidence_level": level,
            "unit": unit,
            "n_units": int(n_units),
            "random_state": random_state if isinstance(random_state, (int, type(None))) else repr(random_state),
        },
    }
