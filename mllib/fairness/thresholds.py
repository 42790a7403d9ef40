"""Mitigation by post-processing: one decision threshold per group, chosen to equalise a rate across groups
while keeping as much accuracy as possible.

Rule: group i predicts positive when its score >= tau_i. The criterion's rate vector r_i(tau) is the
selection rate (demographic_parity), the TPR t_i/p_i (equal_opportunity, E4) or (TPR, FPR)
(equalized_odds). For each target box [r, r + tolerance] (r running over the groups' achievable rates),
every group takes its most accurate threshold whose rates lie in the box, or, if none does, the one closest
to it (Chebyshev distance; ties to the more accurate). A target is feasible when its parity gap (max - min
over groups, the worse rate for equalized odds) is within tolerance plus the resolution of the groups' rate
grids at the chosen thresholds (or plus the smallest gap any target reaches, if that is larger); the
feasible target with the highest accuracy on the fitting data wins. The constant decisions (nobody or
everybody positive), which satisfy every criterion trivially, are not candidates.
Deterministic thresholds reach exact equalized odds only where the groups' ROC curves cross (exact parity
needs randomised thresholds, Hardt et al. 2016), so for equalized_odds this minimises the max gap.
Notes: seed 004, D4:2110 (different thresholds per group); catalogue section 5.3 (algorithm, oracles).

Fit on out-of-fold (validation) scores and judge on test (leakage rule L2). The group is needed at
prediction time. Because of D4:2086-2108, equal TPR and FPR make precision unequal when base rates differ.

Sections cited: Ghent ML notes (seed 004): 11.3 FAIRNESS: Criteria, Mitigation & “Fairness by Awareness” (2086,
    2110)"""

from __future__ import annotations

import numpy as np

from .. import registry
from ..base import BaseEstimator, check_binary_labels, check_is_fitted, check_scores, checked_arguments, to_python
from ..base.constraints import NON_NEGATIVE, Options, check_hyperparameters, positive_int
from ._checks import GroupLabels, check_groups, group_index
from .group_metrics import group_confusion

MITIGATION_CRITERIA = registry.MITIGATION_CRITERIA
_CHUNK = 64  # target boxes compared with a group's candidates at a time ...
_CELLS = 1 << 21  # ... fewer when the group has many candidates: (targets, candidates, rates) stays under 16 MB


def _group_curve(s: np.ndarray, y: np.ndarray) -> dict:
    """Rates and correct counts of one group at every candidate threshold, from 'predict none' (+inf)
    down to its lowest distinct score (predict all)."""
    order = np.argsort(-s, kind="stable")
    s, y = s[order], y[order]
    last = np.append(np.nonzero(s[1:] != s[:-1])[0], s.size - 1)  # end of each run of equal scores
    tp = np.concatenate([[0], np.cumsum(y)[last]])
    selected = np.concatenate([[0], last + 1])
    fp = selected - tp
    n_pos, n_neg = int(y.sum()), int(s.size - y.sum())
    return {
        "threshold": np.concatenate([[np.inf], s[last]]),
        "selection_rate": selected / s.size,
        "tpr": tp / n_pos if n_pos else np.full(tp.shape, np.nan),
        "fpr": fp / n_neg if n_neg else np.full(fp.shape, np.nan),
        "correct": tp + (n_neg - fp),
    }


def _resolution(r: np.ndarray) -> np.ndarray:
    """Per candidate, the larger Chebyshev step to its neighbouring candidates: how finely the group's rates
    can be set around it (1/p for TPR without tied scores)."""
    step = np.abs(np.diff(r, axis=0)).max(axis=1)
    step = np.where(np.isnan(step), 0.0, step)
    return np.maximum(np.append(step, 0.0), np.insert(step, 0, 0.0))


def _rate_columns(criterion: str) -> tuple[str, ...]:
    return {"demographic_parity": ("selection_rate",), "equal_opportunity": ("tpr",), "equalized_odds": ("tpr", "fpr")}[
        criterion
    ]


class GroupThresholdOptimizer(BaseEstimator):
    """Per-group decision thresholds that equalise a fairness criterion at the least accuracy cost.
    fit(scores, y, sensitive) -> self; predict(scores, sensitive) -> {0, 1} decisions.

    Parameters
    ----------
    criterion : {"demographic_parity", "equal_opportunity", "equalized_odds"}, default "equal_opportunity"
        The parity to reach: equal selection rates, equal true-positive rates, or equal true- and false-positive rates.
    tolerance : float, default 0.0
        Parity gap allowed beyond the score grid's resolution (0 = parity as exact as the groups' rate grids allow;
        larger values trade parity for accuracy). For equalized_odds exact parity with deterministic thresholds is often
        reachable only near the trivial corners (all / none positive), at a large accuracy cost: a tolerance of
        0.01-0.02 usually keeps most of the accuracy.
    max_targets : int, default 200
        At most this many target rates per group are tried (evenly spaced along its curve); every group's candidates are
        tried when they are fewer.
    base_threshold : float, default 0.5
        The single threshold the mitigation is compared with (accuracy cost, gap before).

    Attributes
    ----------
    groups_ : list
        The group values.
    thresholds_ : ndarray
        One threshold per group; inf = never positive.
    gap_ : float
        The parity gap on the fitting data with the thresholds.
    accuracy_ : float
        The accuracy on the fitting data with the thresholds.
    baseline_gap_ : float
        The parity gap with base_threshold for everyone.
    baseline_accuracy_ : float
        The accuracy with base_threshold for everyone.
    accuracy_cost_ : float
        baseline_accuracy_ - accuracy_.
    """

    _constraints = {
        "criterion": Options(MITIGATION_CRITERIA),
        "tolerance": NON_NEGATIVE,  # the parity gap allowed beyond the best reachable
        "max_targets": positive_int(2),
    }

    def __init__(
        self,
        criterion: str = "equal_opportunity",
        tolerance: float = 0.0,
        max_targets: int = 200,
        base_threshold: float = 0.5,
    ):
        self.criterion = criterion
        self.tolerance = tolerance
        self.max_targets = max_targets
        self.base_threshold = base_threshold

    @staticmethod
    def _inputs(scores, sensitive, y=None):
        s = check_scores(scores)
        g = sensitive if isinstance(sensitive, GroupLabels) else check_groups(sensitive, s.shape[0], name="sensitive")
        if y is None:
            return s, g
        return s, g, check_binary_labels(y, "y", n_samples=s.shape[0]).astype(np.int64)

    def fit(self, scores, y, sensitive) -> GroupThresholdOptimizer:
        """Choose thresholds on (out-of-fold) scores, binary labels y and the group of each row."""
        check_hyperparameters(self)
        s, g, y = self._inputs(scores, sensitive, y)
        values, gi = group_index(g, s.shape[0], name="sensitive")
        columns = _rate_columns(self.criterion)
        curves = [_group_curve(s[gi == k], y[gi == k]) for k in range(values.size)]
        for value, curve in zip(values, curves):
            if any(np.isnan(curve[c]).all() for c in columns):
                raise ValueError(
                    f"group {to_python(value)!r} has no "
                    f"{'positives' if np.isnan(curve['tpr']).all() else 'negatives'}: "
                    f"its {self.criterion} rate is undefined, so no threshold can equalise it"
                )
        rates = [np.column_stack([c[col] for col in columns]) for c in curves]  # (candidates_k, d)
        steps = [_resolution(r) for r in rates]
        targets = np.unique(np.concatenate([self._subsample(r) for r in rates]), axis=0)
        # the constant decisions (nobody / everybody positive) satisfy every criterion trivially: not a mitigation
        trivial = (targets == 0).all(axis=1) | (targets == 1).all(axis=1)
        targets = targets[~trivial]
        if targets.shape[0] == 0:
            raise ValueError("every group's scores are constant: only the trivial all/none decisions exist")

        # per target box: each group's most accurate candidate inside it, or its closest one (Chebyshev)
        tol = float(self.tolerance)
        choice = np.empty((targets.shape[0], values.size), dtype=np.int64)
        achieved = np.empty((targets.shape[0], values.size, len(columns)))
        for k, (r, curve) in enumerate(zip(rates, curves)):
            chunk = max(1, min(_CHUNK, _CELLS // r.size))  # bounded memory: (chunk, candidates, d) at a time
            for start in range(0, targets.shape[0], chunk):
                t = targets[start : start + chunk]
                # Chebyshev distance from each candidate's rates to the target box [t, t + tolerance]
                below, above = t[:, None, :] - r[None, :, :], r[None, :, :] - (t[:, None, :] + tol)
                distance = np.maximum(np.maximum(below, above), 0.0).max(axis=2)
                best = distance.min(axis=1, keepdims=True)
                score = np.where(distance <= best + 1e-12, curve["correct"][None, :], -1)
                choice[start : start + chunk, k] = np.argmax(score, axis=1)
            achieved[:, k] = r[choice[:, k]]
        gap = (achieved.max(axis=1) - achieved.min(axis=1)).max(axis=1)
        resolution = np.max([steps[k][choice[:, k]] for k in range(values.size)], axis=0)
        correct = sum(curve["correct"][choice[:, k]] for k, curve in enumerate(curves))
        # parity within the score grid's resolution (or as close as any target gets), plus the tolerance
        feasible = gap <= np.maximum(resolution, gap.min()) + self.tolerance + 1e-12
        best_target = int(np.argmax(np.where(feasible, correct, -1)))

        self.groups_ = [to_python(v) for v in values]
        self.thresholds_ = np.array([curve["threshold"][choice[best_target, k]] for k, curve in enumerate(curves)])
        self.gap_ = float(gap[best_target])
        self.accuracy_ = float(correct[best_target] / s.size)
        baseline = (s >= self.base_threshold).astype(np.int64)
        self.baseline_accuracy_ = float(np.mean(baseline == y))
        self.baseline_gap_ = criterion_gap(y, baseline, g, self.criterion)
        self.accuracy_cost_ = self.baseline_accuracy_ - self.accuracy_
        return self

    def _subsample(self, r: np.ndarray) -> np.ndarray:
        r = r[~np.isnan(r).any(axis=1)]
        if r.shape[0] <= self.max_targets:
            return r
        return r[np.unique(np.linspace(0, r.shape[0] - 1, self.max_targets).round().astype(np.int64))]

    def predict(self, scores, sensitive) -> np.ndarray:
        """Decisions 1[score >= tau_group] for new rows; every group must have been seen at fit time."""
        check_is_fitted(self)
        s, g = self._inputs(scores, sensitive)
        lookup = {v: t for v, t in zip(self.groups_, self.thresholds_)}
        values, inverse = group_index(g, s.shape[0], name="sensitive")
        unseen = [to_python(v) for v in values if to_python(v) not in lookup]
        if unseen:
            raise ValueError(f"sensitive holds groups {unseen} that were not in the fitting data {self.groups_}")
        tau = np.array([lookup[to_python(v)] for v in values])[inverse]
        return (s >= tau).astype(np.int64)

    def report(self, scores, y, sensitive) -> dict:
        """Accuracy and parity gap on new (test) data before (base_threshold for all) and after (group thresholds).

        Returns {criterion, accuracy_before, accuracy_after, accuracy_cost, gap_before, gap_after, thresholds}.
        """
        check_is_fitted(self)
        s, g, y = self._inputs(scores, sensitive, y)
        before = (s >= self.base_threshold).astype(np.int64)
        after = self.predict(s, g)
        acc_before, acc_after = float(np.mean(before == y)), float(np.mean(after == y))
        return {
            "criterion": self.criterion,
            "accuracy_before": acc_before,
            "accuracy_after": acc_after,
            "accuracy_cost": acc_before - acc_after,
            "gap_before": criterion_gap(y, before, g, self.criterion),
            "gap_after": criterion_gap(y, after, g, self.criterion),
            "thresholds": dict(zip(self.groups_, self.thresholds_.tolist())),
        }


@checked_arguments(criterion=Options(MITIGATION_CRITERIA + ("predictive_parity",)))
def criterion_gap(y_true, y_pred, sensitive, criterion: str) -> float:
    """The parity gap of decisions for one criterion: max - min over groups of its rate (the larger of the
    TPR and FPR gaps for equalized_odds); nan when fewer than two groups have the rate defined."""
    per_group = group_confusion(y_true, y_pred, sensitive)
    columns = {"predictive_parity": ("precision",)}.get(criterion) or _rate_columns(criterion)
    gaps = []
    for column in columns:
        vals = np.array([m[column] for m in per_group.values()])
        vals = vals[~np.isnan(vals)]
        if vals.size < 2:
            return float("nan")
        gaps.append(vals.max() - vals.min())
    return float(max(gaps))
