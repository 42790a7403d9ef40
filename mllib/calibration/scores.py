"""The real-valued score a calibrator maps to a probability: the model's decision function (for logistic
regression the log-odds x^T w + b), or, for models that only give probabilities, their log-odds."""
from __future__ import annotations

import numpy as np
from scipy.special import logit

_EPS = np.finfo(np.float64).eps


def decision_scores(estimator, X) -> np.ndarray:
    """1-D scores of a fitted binary classifier on X; larger means more likely positive."""
    if hasattr(estimator, "decision_function"):
        scores = np.asarray(estimator.decision_function(X), dtype=np.float64)
    else:
        p = np.asarray(estimator.predict_proba(X), dtype=np.float64)[:, 1]
        scores = logit(np.clip(p, _EPS, 1 - _EPS))
    if scores.ndim != 1:
        raise ValueError(f"calibration needs binary scores (1-D), got shape {scores.shape}")
    return scores
