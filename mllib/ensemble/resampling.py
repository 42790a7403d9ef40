"""Bootstrap samples and out-of-bag estimates shared by bagging and random forests (seed 000, lines 2843-2968,
catalogue I5-I6; seed 002, lines 1396-1418, catalogue P8).

A member's sample is given by in-bag counts (how often each row was drawn), regenerated from its seed, so a fitted
ensemble never stores its samples. A row a member did not draw is out of bag for it (fraction (1 - 1/N)^N -> e^-1);
the OOB prediction of a row averages the members that did not draw it, an estimate of the generalisation error
"as if from an independent test sample" (seed-001-003-004 catalogue 7.10).

Sections cited:
- ML 1 lecture notes (seed 000): → Decision Tree regularization via model averaging (ensembles) (2843)
- Machine Learning lecture notes (seed 002): Bootstrap & Bagging (1396)"""

from __future__ import annotations

import numpy as np

from ..base.constraints import OPTIONAL, Interval, check_value, positive_int
from ..metrics import accuracy_score, r2_score

# rows drawn per member: all (None), a count, or a fraction of the rows (bagging and forests)
MAX_SAMPLES = [OPTIONAL, positive_int(), Interval(False, 0, 1, "right")]


def resolve_max_samples(max_samples, n_samples: int) -> int:
    """Rows drawn per member from a checked max_samples (MAX_SAMPLES); a count must not exceed the rows."""
    if max_samples is None:
        return n_samples
    if isinstance(max_samples, (int, np.integer)):
        check_value("", "max_samples", max_samples, positive_int(1, n_samples))  # at most the rows
        return int(max_samples)
    return max(1, int(round(max_samples * n_samples)))


def bootstrap_counts(seed: int, n_samples: int, n_draws: int, bootstrap: bool) -> np.ndarray:
    """How often each row enters the member with this seed: a bootstrap sample (with replacement) or, without
    bootstrap, n_draws distinct rows (all rows when n_draws = n_samples)."""
    rng = np.random.default_rng(seed)
    if bootstrap:
        return np.bincount(rng.integers(0, n_samples, n_draws), minlength=n_samples).astype(np.float64)
    if n_draws == n_samples:
        return np.ones(n_samples)
    counts = np.zeros(n_samples)
    counts[rng.choice(n_samples, n_draws, replace=False)] = 1.0
    return counts


def in_bag_counts(seeds, n_samples: int, max_samples, bootstrap: bool) -> np.ndarray:
    """(n_members, n_samples): how often each training row entered each member (0 = out of bag)."""
    n_draws = resolve_max_samples(max_samples, n_samples)
    return np.array([bootstrap_counts(int(s), n_samples, n_draws, bootstrap) for s in seeds])


def _oob_mean(total, n_members):
    seen = n_members > 0
    mean = np.full(total.shape, np.nan)
    mean[seen] = total[seen] / n_members[seen, None]
    return mean, seen


def oob_classification(total, n_members, code):
    """OOB class probabilities (NaN rows: drawn by every member) and the OOB accuracy over the other rows.
    total: (n, K) sums of the OOB members' probabilities; n_members: (n,) how many members each sum holds."""
    decision, seen = _oob_mean(total, n_members)
    return decision, accuracy_score(code[seen], np.argmax(decision[seen], axis=1))


def oob_regression(total, n_members, y):
    """OOB predictions (NaN where every member drew the row) and the OOB R^2 over the other rows."""
    prediction, seen = _oob_mean(total, n_members)
    return prediction[:, 0], r2_score(y[seen], prediction[seen, 0])
