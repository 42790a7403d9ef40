"""The real-valued scores a calibrator maps to probabilities.

Binary: one score per row, the model's decision function (for logistic regression the log-odds x^T w + b), or,
for models that only give probabilities, their log-odds. More classes: one score per row and class, the log of
the model's class probabilities (every mllib classifier has predict_proba; a multinomial model's logits equal
them up to a per-row shift, which softmax-based maps ignore). Larger always means more likely for that class.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logit

_EPS = np.finfo(np.float64).eps


def decision_scores(estimator, X) -> np.ndarray:
    """Scores of a fitted classifier on X: shape (n,) for two classes (larger = more likely positive), (n, K)
    log-probabilities (clipped at log eps, so finite) for K > 2 classes."""
    n_classes = len(getattr(estimator, "classes_", ())) or 2
    if n_classes > 2:
        p = np.asarray(estimator.predict_proba(X), dtype=np.float64)
        return np.log(np.clip(p, _EPS, 1.0))
    if hasattr(estimator, "decision_function"):
        scores = np.asarray(estimator.decision_function(X), dtype=np.float64)
    else:
        p = np.asarray(estimator.predict_proba(X), dtype=np.float64)[:, 1]
        scores = logit(np.clip(p, _EPS, 1 - _EPS))
    if scores.ndim != 1:
        raise ValueError(f"calibration needs binary scores (1-D), got shape {scores.shape}")
    return scores
