"""Reweighing (Kamiran & Calders 2012): pre-processing weights that make the label independent of the group.

Rule: w(g, y) = P(g) P(y) / P(g, y) = n_g n_y / (n n_gy); under these weights the weighted joint distribution
of (group, label) is the product of its marginals, so every group has the overall base rate, and the total
weight stays n (when every (group, label) cell is non-empty). Train any learner that takes sample_weight.
Notes: seed 004, D4:2110 (mitigation (c): give more representation to the under-represented group);
catalogue section 5.3; anchors.md (AIF360 / fairlearn Reweighing).

Sections cited: Ghent ML notes (seed 004): 11.3 FAIRNESS: Criteria, Mitigation & “Fairness by Awareness” (2110)"""

from __future__ import annotations

import numpy as np

from ..base import check_1d, to_python
from ._checks import group_index


def reweighing_weights(y, sensitive) -> dict:
    """Kamiran-Calders weights for labels y (any discrete labels) and the group of each row.

    Returns {weights: one weight per row (float64), table: {group: {label: w(g, y)}} for the non-empty cells}.
    """
    y = check_1d(y, "y")
    groups, gi = group_index(sensitive, y.shape[0], name="sensitive")
    try:
        labels, yi = np.unique(y, return_inverse=True)
    except TypeError:
        raise ValueError("y and sensitive must each hold values of one sortable type") from None
    joint = np.bincount(gi * labels.size + yi, minlength=groups.size * labels.size).reshape(groups.size, labels.size)
    n = y.shape[0]
    n_g, n_y = joint.sum(axis=1), joint.sum(axis=0)
    cell = np.zeros(joint.shape)
    filled = joint > 0
    cell[filled] = np.outer(n_g, n_y)[filled] / (n * joint[filled])
    table = {
        to_python(gv): {to_python(lv): float(cell[a, b]) for b, lv in enumerate(labels) if filled[a, b]}
        for a, gv in enumerate(groups)
    }
    return {"weights": cell[gi, yi], "table": table}
