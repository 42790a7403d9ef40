"""Group-fairness audit: per-group rates with bootstrap intervals, and the four parity criteria.

Rule: per group i, n_i negatives, p_i positives, f_i false and t_i true positives give selection rate
(t_i + f_i)/(n_i + p_i), TPR t_i/p_i (ERRATUM E4: not t_i/n_i), FPR f_i/n_i, precision t_i/(t_i + f_i);
a criterion holds when its rate is equal across groups:
  demographic parity = equal selection rates; equal opportunity = equal TPR;
  equalized odds = equal TPR and equal FPR; predictive parity = equal precision (PPV).
Each is reported as difference = max - min over groups (0 = parity) and ratio = min / max (1 = parity);
equalized odds takes the worse of its two rates (max of the differences, min of the ratios), as fairlearn.
Notes: seed 004, D4:2058-2110 (section 11.3), eqs. (40)-(44); catalogue sections 5.1-5.3, E4, E5.

Undefined is never 0: a rate whose denominator is 0 is nan, and a criterion with fewer than two defined
groups (or a ratio with max = 0) is nan with defined = False and a reason. Groups below min_group_size keep
their row in the table (flagged small) but do not enter the criteria, which list them as excluded.
Intervals: seeded percentile bootstrap over rows of the evaluation set, or over clusters (`groups`, e.g. a
person id, so that a person's rows are resampled together); calibration bins stay at the full-sample edges.

Sections cited: Ghent ML notes (seed 004): 11.3 FAIRNESS: Criteria, Mitigation & “Fairness by Awareness” (2058)"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ..base import (
    OPEN_UNIT,
    check_1d,
    check_binary_labels,
    check_int,
    check_probabilities,
    check_random_state,
    check_rows,
    checked_arguments,
    positive_int,
    safe_divide,
    to_python,
)
from ..calibration.reliability import assign_bins, bin_edges
from ..metrics.bootstrap import bootstrap_units, percentile_interval, row_multiplicities
from ._checks import GroupLabels, check_groups, group_index

METRICS = ("base_rate", "selection_rate", "tpr", "fpr", "precision", "accuracy")
CRITERIA = {
    "demographic_parity": ("selection_rate",),
    "equal_opportunity": ("tpr",),
    "equalized_odds": ("tpr", "fpr"),
    "predictive_parity": ("precision",),
}


def intersectional_groups(attributes: dict) -> dict:
    """Every sensitive attribute on its own and every combination of two or more of them.

    attributes: {name: one value per row, or GroupLabels}. Returns {name: labels}: single attributes as given;
    a combination is named "a & b" with labels "a=x,b=y" (strings), one per row, held as GroupLabels: the
    combination of each row is found from the attributes' codes, and each distinct one spelled once.
    """
    if not isinstance(attributes, dict) or not attributes:
        raise ValueError("attributes must be a non-empty dict {attribute name: one value per row}")
    columns = {name: v if isinstance(v, GroupLabels) else check_1d(v, name) for name, v in attributes.items()}
    n = check_rows(**columns)
    index = {name: group_index(v, n, name=name) for name, v in columns.items()}
    result = dict(columns)
    names = list(columns)
    for size in range(2, len(names) + 1):
        for combo in itertools.combinations(names, size):
            shape = tuple(index[a][0].size for a in combo)
            cell = np.ravel_multi_index(tuple(index[a][1] for a in combo), shape)
            present, codes = np.unique(cell, return_inverse=True)
            spelled = np.array(
                [
                    ",".join(f"{a}={index[a][0][i]}" for a, i in zip(combo, position))
                    for position in zip(*np.unravel_index(present, shape))
                ],
                dtype=str,
            )
            order = np.argsort(spelled, kind="stable")  # the labels' own order, as np.unique of the strings gives
            rank = np.empty_like(order)
            rank[order] = np.arange(order.size)
            result[" & ".join(combo)] = GroupLabels(spelled[order], rank[codes])
    return result


def _rates(counts: np.ndarray) -> dict:
    """Rates from confusion counts of shape (..., G, 2, 2) indexed [group, y, y_hat]; nan where undefined."""
    tn, fp = counts[..., 0, 0], counts[..., 0, 1]
    fn, tp = counts[..., 1, 0], counts[..., 1, 1]
    n_pos, n_neg = tp + fn, fp + tn
    n = n_pos + n_neg
    return {
        "base_rate": safe_divide(n_pos, n),
        "selection_rate": safe_divide(tp + fp, n),
        "tpr": safe_divide(tp, n_pos),
        "fpr": safe_divide(fp, n_neg),
        "precision": safe_divide(tp, tp + fp),
        "accuracy": safe_divide(tp + tn, n),
    }


def _ece(sums: np.ndarray) -> np.ndarray:
    """Per-group ECE from (..., G, bins, 3) sums [count, sum p, sum y]; nan for an empty group."""
    count, sum_p, sum_y = sums[..., 0], sums[..., 1], sums[..., 2]
    gap = np.abs(sum_p - sum_y)  # n_b |mean_pred_b - freq_b| = |sum p - sum y| in bin b
    return safe_divide(gap.sum(axis=-1), count.sum(axis=-1))


def _spread(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """max - min and min / max over the last axis, ignoring nan; nan with < 2 defined values or max = 0."""
    if values.shape[-1] == 0:  # every group below min_group_size
        empty = np.full(values.shape[:-1], np.nan)
        return empty, empty.copy()
    defined = ~np.isnan(values)
    enough = defined.sum(axis=-1) >= 2
    hi = np.where(defined, values, -np.inf).max(axis=-1)
    lo = np.where(defined, values, np.inf).min(axis=-1)
    difference = np.where(enough, hi - lo, np.nan)
    ratio = np.where(enough, safe_divide(np.where(enough, lo, np.nan), np.where(enough, hi, np.nan)), np.nan)
    return difference, ratio


def _criteria_values(rates: dict, keep: np.ndarray) -> dict:
    """{criterion: (difference, ratio)} over the groups in keep, vectorised over leading axes."""
    out = {}
    for criterion, metrics in CRITERIA.items():
        spreads = [_spread(rates[m][..., keep]) for m in metrics]
        difference = spreads[0][0] if len(spreads) == 1 else np.fmax(spreads[0][0], spreads[1][0])
        ratio = spreads[0][1] if len(spreads) == 1 else np.fmin(spreads[0][1], spreads[1][1])
        if len(spreads) > 1:  # equalized odds is undefined as soon as one of its rates is
            undefined = np.isnan(spreads[0][0]) | np.isnan(spreads[1][0])
            difference = np.where(undefined, np.nan, difference)
            ratio = np.where(undefined | np.isnan(spreads[0][1]) | np.isnan(spreads[1][1]), np.nan, ratio)
        out[criterion] = (difference, ratio)
    return out


def _reason(criterion: str, difference: float, ratio: float, per_metric_defined: dict) -> str | None:
    if math.isnan(difference):
        few = [m for m, k in per_metric_defined.items() if k < 2]
        return f"fewer than 2 groups (of size >= min_group_size) with a defined {', '.join(few)}"
    if math.isnan(ratio):
        return "ratio undefined: the largest rate is 0 (0 / 0)"
    return None


# what every audit (binary, multiclass, regression) takes besides its data
AUDIT_ARGUMENTS = {"min_group_size": positive_int(), "n_boot": positive_int(0), "confidence_level": OPEN_UNIT}


@checked_arguments(**AUDIT_ARGUMENTS)
def audit_groups(
    y_true,
    y_pred,
    sensitive,
    proba=None,
    groups=None,
    min_group_size: int = 30,
    n_boot: int = 1000,
    confidence_level: float = 0.95,
    random_state=0,
    n_bins: int = 10,
    strategy: str = "uniform",
) -> dict:
    """Per-group metrics, parity criteria and their bootstrap intervals for one sensitive grouping.

    y_true, y_pred: {0, 1} labels and decisions; sensitive: the group of each row (one attribute or an
    intersection, see intersectional_groups); proba: optional p(y = 1) per row, adds each group's calibration
    error (ECE with n_bins / strategy bins formed within the group); groups: optional cluster id per row
    (e.g. person) for a cluster bootstrap; n_boot = 0 skips the intervals.

    Returns {
      groups: {group: {n, n_pos, n_neg, base_rate, selection_rate, tpr, fpr, precision, accuracy,
               [calibration_error], small, undefined (metrics that are nan), intervals: {metric: [lo, hi]}}},
      small_groups: groups with n < min_group_size (flagged, excluded from the criteria),
      criteria: {demographic_parity | equal_opportunity | equalized_odds | predictive_parity:
                 {metrics, difference, ratio, defined (difference not nan), ratio_defined, reason (why
                  something is undefined, else None), per_metric: {max_group, min_group, n_defined},
                  difference_interval, ratio_interval, excluded_groups}},
      bootstrap: {n_boot, confidence_level, random_state, unit ("row" | "cluster"), n_units},
      binning: {n_bins, strategy} (when proba is given)}
    """
    y = check_binary_labels(y_true, "y_true")
    y_hat = check_binary_labels(y_pred, "y_pred", n_samples=y.shape[0])
    values, gi = group_index(sensitive, y.shape[0], name="sensitive")
    cluster = None if groups is None else check_groups(groups, y.shape[0], name="groups")
    n_groups = values.size
    cell = gi * 4 + 2 * y + y_hat  # [group, y, y_hat] flattened

    calibration = proba is not None
    if calibration:
        p = check_probabilities(proba)
        check_rows(y_true=y, proba=p)
        n_bins = check_int(n_bins, "n_bins")
        bins = np.empty(y.shape[0], dtype=np.int64)
        for k in range(n_groups):
            rows = gi == k
            bins[rows] = assign_bins(p[rows], bin_edges(p[rows], n_bins, strategy))
        bin_cell = gi * n_bins + bins
        y_float, ones = y.astype(np.float64), np.ones_like(p)

    def tallies(weight: np.ndarray) -> np.ndarray:
        """Weighted counts per [group, y, y_hat] cell, then (with proba) per [group, bin] count, sum p, sum y."""
        parts = [np.bincount(cell, weights=weight, minlength=4 * n_groups)]
        if calibration:
            parts += [
                np.bincount(bin_cell, weights=weight * v, minlength=n_groups * n_bins) for v in (ones, p, y_float)
            ]
        return np.concatenate(parts)

    def statistics(t: np.ndarray) -> dict:
        """Rates (and ECE) from tallies of shape (..., T), vectorised over leading (replicate) axes."""
        lead = t.shape[:-1]
        stats = _rates(t[..., : 4 * n_groups].reshape(*lead, n_groups, 2, 2))
        if calibration:
            sums = t[..., 4 * n_groups :].reshape(*lead, 3, n_groups, n_bins)
            stats["calibration_error"] = _ece(np.moveaxis(sums, -3, -1))
        return stats

    point = statistics(tallies(np.ones(y.shape[0])))
    counts = np.bincount(cell, minlength=4 * n_groups).reshape(n_groups, 2, 2)
    size = counts.sum(axis=(1, 2))
    keep = size >= min_group_size
    point_criteria = _criteria_values(point, keep)

    unit_of_row, n_units, unit = bootstrap_units(y.shape[0], cluster)
    rng = check_random_state(random_state)
    boot = [tallies(row_multiplicities(rng, unit_of_row, n_units)) for _ in range(n_boot)]
    if n_boot:
        replicates = statistics(np.stack(boot))
        replicate_criteria = _criteria_values(replicates, keep)

    level = float(confidence_level)
    names = [to_python(v) for v in values]
    reported = METRICS + (("calibration_error",) if calibration else ())
    table = {}
    for k, name in enumerate(names):
        row = {"n": int(size[k]), "n_pos": int(counts[k, 1].sum()), "n_neg": int(counts[k, 0].sum())}
        row.update({m: float(point[m][k]) for m in reported})
        row["small"] = bool(not keep[k])
        row["undefined"] = [m for m in reported if math.isnan(row[m])]
        row["intervals"] = {m: percentile_interval(replicates[m][:, k], level) for m in reported} if n_boot else {}
        table[name] = row

    excluded = [names[k] for k in range(n_groups) if not keep[k]]
    criteria = {}
    for criterion, metrics in CRITERIA.items():
        difference, ratio = (float(v) for v in point_criteria[criterion])
        per_metric = {}
        for m in metrics:
            vals = np.where(keep, point[m], np.nan)
            defined = ~np.isnan(vals)
            per_metric[m] = {
                "max_group": names[int(np.argmax(np.where(defined, vals, -np.inf)))] if defined.any() else None,
                "min_group": names[int(np.argmin(np.where(defined, vals, np.inf)))] if defined.any() else None,
                "n_defined": int(defined.sum()),
            }
        reason = _reason(criterion, difference, ratio, {m: v["n_defined"] for m, v in per_metric.items()})
        criteria[criterion] = {
            "metrics": list(metrics),
            "difference": difference,
            "ratio": ratio,
            "defined": not math.isnan(difference),
            "ratio_defined": not math.isnan(ratio),
            "reason": reason,
            "per_metric": per_metric,
            "excluded_groups": excluded,
            "difference_interval": percentile_interval(replicate_criteria[criterion][0], level) if n_boot else None,
            "ratio_interval": percentile_interval(replicate_criteria[criterion][1], level) if n_boot else None,
        }
    result = {
        "groups": table,
        "small_groups": excluded,
        "criteria": criteria,
        "bootstrap": {
            "n_boot": int(n_boot),
            "confidence_level": level,
            "random_state": random_state if isinstance(random_state, (int, type(None))) else repr(random_state),
            "unit": unit,
            "n_units": int(n_units),
        },
    }
    if calibration:
        result["binning"] = {"n_bins": n_bins, "strategy": strategy}
    return result


def fairness_report(y_true, y_pred, attributes: dict, proba=None, groups=None, **options) -> dict:
    """audit_groups for every sensitive attribute and every intersection of them: {grouping name: audit}."""
    return {
        name: audit_groups(y_true, y_pred, labels, proba=proba, groups=groups, **options)
        for name, labels in intersectional_groups(attributes).items()
    }
