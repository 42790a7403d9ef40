"""Minimum-expected-cost (risk) decisions (seed 000, lines 179-232; catalogue 000 A6).

Expected cost of action a: lambda(a | x) = sum_j lambda(a | omega_j) P(omega_j | x); take argmin_a.
Maximum accuracy is the special case lambda(decide k | omega_j) = -[j = k] (lines 194-208).

Sections cited: ML 1 lecture notes (seed 000): Minimum Cost Decisions (179)"""

from __future__ import annotations

import numpy as np


def check_cost_matrix(cost_matrix, n_classes: int) -> np.ndarray:
    """cost_matrix[a, j] = cost of deciding class a when the truth is class j (classes_ order), shape (K, K)."""
    C = np.asarray(cost_matrix, dtype=np.float64)
    if C.shape != (n_classes, n_classes) or not np.isfinite(C).all():
        raise ValueError(
            f"cost_matrix must be a finite ({n_classes}, {n_classes}) array with entry [a, j] the cost of deciding "
            f"classes_[a] when the true class is classes_[j]; got shape {C.shape}"
        )
    return C


def min_risk_decision(posteriors, cost_matrix) -> tuple[np.ndarray, np.ndarray]:
    """Actions minimising the expected cost, and the expected costs (n, A), for posteriors (n, C) and costs (A, C)."""
    P = np.atleast_2d(np.asarray(posteriors, dtype=np.float64))
    C = np.asarray(cost_matrix, dtype=np.float64)
    if C.ndim != 2 or C.shape[1] != P.shape[1]:
        raise ValueError(f"cost_matrix must have one column per class ({P.shape[1]}), got shape {C.shape}")
    risk = P @ C.T
    return np.argmin(risk, axis=1), risk
