"""The reject option: abstain when the model is not confident enough, predict otherwise.

Rule: reject x when max_k p(k | x) < theta (or when another confidence score is below theta); theta <= 1/K
never rejects, theta > 1 rejects everything. Quality of what is kept: coverage = accepted / n and selective
risk = errors among the accepted / accepted (the accuracy on accepted rows is 1 - selective risk).
Notes: seed 004, D4:1986-1996 ("when the class with highest probability is lower than a certain threshold ...
reject"; needs no refit; "need calibrated probabilities to do this reliably"); seed 003, D3:505, 510;
catalogue section 3.4 (the equations D4 leaves out, Bishop PRML 1.5.3).

Sections cited:
- Introduction to Machine Learning (Heidelberg) (seed 003): Multi-class classification (505)
- Ghent ML notes (seed 004): 11.1 Overconfidence and Unreliability of Models (1986)"""

from __future__ import annotations

import math

import numpy as np

from ..base import Interval, check_1d, check_array, check_posteriors, checked_arguments
from .cost import REJECT


@checked_arguments(threshold=Interval(False))
def reject_option(proba, threshold: float, confidence=None) -> dict:
    """Argmax predictions with abstentions.

    proba: (n, C) posteriors or 1-D p(y = 1); threshold: reject when confidence < threshold;
    confidence: optional per-row score to threshold instead of the max posterior (e.g. a margin).
    Returns {prediction: class index per row, REJECT (-1) where rejected; accepted: bool mask;
    confidence: the thresholded score; coverage: fraction accepted}.
    """
    p = check_posteriors(proba)
    threshold = float(threshold)
    if confidence is None:
        confidence = p.max(axis=1)
    else:
        confidence = check_array(check_1d(confidence, "confidence", p.shape[0]), ndim=None, name="confidence")
    accepted = confidence >= threshold
    prediction = np.where(accepted, np.argmax(p, axis=1), REJECT).astype(np.int64)
    return {
        "prediction": prediction,
        "accepted": accepted,
        "confidence": confidence,
        "coverage": float(accepted.mean()),
    }


def selective_risk(y_true, y_pred, accepted) -> dict:
    """Coverage and the error rate among accepted rows: {coverage, selective_risk, n_accepted, n_errors}.

    selective_risk is nan (undefined) when nothing is accepted.
    """
    y = check_1d(y_true, "y_true")
    y_hat = check_1d(y_pred, "y_pred", y.shape[0])
    keep = np.asarray(check_1d(accepted, "accepted", y.shape[0]), dtype=bool)
    n_accepted = int(keep.sum())
    n_errors = int(np.sum(y[keep] != y_hat[keep]))
    return {
        "coverage": n_accepted / y.shape[0],
        "selective_risk": n_errors / n_accepted if n_accepted else math.nan,
        "n_accepted": n_accepted,
        "n_errors": n_errors,
    }
