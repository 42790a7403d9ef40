"""Group-fairness audit of a regressor: per group the error and the bias of the predictions, and how far apart the
groups are.

Per group g with residuals r = y - y_hat: MAE = mean |r|, RMSE = sqrt(mean r^2), mean residual (the bias: > 0 means
the group is under-predicted), mean prediction and mean target, and, given prediction intervals, their coverage.
The gap of each is max_g - min_g over the groups of at least min_group_size rows (0 = parity). Classification
criteria (demographic parity, equal opportunity, ...) compare decisions and have no regression meaning; the
closest analogues are the mean-prediction gap (independence) and the residual gaps (sufficiency / separation of the
errors). Intervals: seeded percentile bootstrap over rows or clusters, as in audit.py. Notes: the lecture notes'
criteria (seed 004, D4:2058-2110) are for classifiers; this module applies their group comparison to regression
errors.

Sections cited: Ghent ML notes (seed 004): 11.3 FAIRNESS: Criteria, Mitigation & “Fairness by Awareness” (2058)"""

from __future__ import annotations

import numpy as np

from ..base import check_array, check_random_state, check_rows, checked_arguments, safe_divide, to_python
from ..metrics.bootstrap import bootstrap_units, percentile_interval, row_multiplicities
from ._checks import check_groups, group_index
from .audit import AUDIT_ARGUMENTS, _spread

REGRESSION_METRICS = ("mae", "rmse", "mean_residual", "mean_prediction", "mean_target", "interval_coverage")


def _statistics(sums: dict) -> dict:
    """Per-group metrics from weighted sums (..., G)."""
    n = sums["n"]
    return {
        "mae": safe_divide(sums["abs"], n),
        "rmse": np.sqrt(safe_divide(sums["sq"], n)),
        "mean_residual": safe_divide(sums["r"], n),
        "mean_prediction": safe_divide(sums["pred"], n),
        "mean_target": safe_divide(sums["y"], n),
        "interval_coverage": safe_divide(sums["covered"], n),
    }


@checked_arguments(**AUDIT_ARGUMENTS)
def regression_audit(
    y_true,
    y_pred,
    sensitive,
    lower=None,
    upper=None,
    groups=None,
    min_group_size: int = 30,
    n_boot: int = 1000,
    confidence_level: float = 0.95,
    random_state=0,
) -> dict:
    """Per-group regression metrics and their gaps (max - min) with bootstrap intervals for one sensitive grouping.

    lower, upper: optional prediction intervals (interval_coverage is then the share of rows inside, else nan);
    groups: optional cluster id per row for a cluster bootstrap. Returns {groups: {group: {n, small, <metric>...,
    intervals: {<metric>: [lo, hi]}}}, small_groups, gaps: {<metric>: {difference, difference_interval}},
    largest_gap: the metric whose gap relative to the overall value is largest (among mae, rmse, mean_prediction),
    bootstrap}.
    """
    y, pred = check_array(y_true, ndim=1, name="y_true"), check_array(y_pred, ndim=1, name="y_pred")
    check_rows(y_true=y, y_pred=pred)
    values, gi = group_index(sensitive, y.size, name="sensitive")
    covered = (
        np.full(y.size, np.nan)
        if lower is None
        else ((np.asarray(lower) <= y) & (y <= np.asarray(upper))).astype(np.float64)
    )
    G, r = values.size, y - pred
    terms = {"n": np.ones(y.size), "abs": np.abs(r), "sq": r * r, "r": r, "pred": pred, "y": y, "covered": covered}

    def sums(weight):
        return {k: np.bincount(gi, weights=weight * v, minlength=G) for k, v in terms.items()}

    point = _statistics(sums(np.ones(y.size)))
    size = np.bincount(gi, minlength=G)
    keep = size >= min_group_size
    unit_of_row, n_units, unit = bootstrap_units(
        y.size, None if groups is None else check_groups(groups, y.size, name="groups")
    )
    rng = check_random_state(random_state)
    level = float(confidence_level)
    replicates = [sums(row_multiplicities(rng, unit_of_row, n_units)) for _ in range(n_boot)]
    boot = _statistics({k: np.stack([s[k] for s in replicates]) for k in terms}) if n_boot else None

    table = {}
    for a, group in enumerate(to_python(v) for v in values):
        row = {"n": int(size[a]), "small": bool(not keep[a]), **{m: float(point[m][a]) for m in REGRESSION_METRICS}}
        if n_boot:
            row["intervals"] = {m: percentile_interval(boot[m][:, a], level) for m in REGRESSION_METRICS}
        table[group] = row
    gaps = {
        m: {
            "difference": float(_spread(point[m][keep])[0]),
            "difference_interval": percentile_interval(_spread(boot[m][:, keep])[0], level) if n_boot else None,
        }
        for m in REGRESSION_METRICS
    }
    overall = {"mae": np.abs(r).mean(), "rmse": np.sqrt((r * r).mean()), "mean_prediction": abs(pred.mean())}
    relative = {m: safe_divide(gaps[m]["difference"], overall[m]) for m in overall}
    defined = {m: v for m, v in relative.items() if not np.isnan(v)}
    return {
        "groups": table,
        "small_groups": [to_python(values[a]) for a in range(G) if not keep[a]],
        "gaps": gaps,
        "largest_gap": max(defined, key=defined.get) if defined else None,
        "bootstrap": {
            "n_boot": int(n_boot),
            "confidence_level": level,
            "unit": unit,
            "n_units": int(n_units),
            "random_state": random_state if isinstance(random_state, (int, type(None))) else repr(random_state),
        },
    }
