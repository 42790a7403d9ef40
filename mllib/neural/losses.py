"""Output losses on the network's scores Z (the logits, before any softmax): per-row loss and dE/dZ.

T holds the targets in the output layout: a 0/1 column for binary classification (one logit, the log-odds
of the positive class), one-hot rows for K > 2 classes, the target column for regression.
- cross-entropy: binary  E = log(1 + e^z) - t z,             dE/dz = sigma(z) - t;
                 softmax E = -sum_k t_k log softmax(z)_k,     dE/dz = softmax(z) - t
  (seed 003, D3:470, the "error x input" form; catalogue 001-003-004 section 8.1).
- hinge: binary with s = 2t - 1 in {-1, +1}: E = max(0, 1 - s z) (seed 000, lines 2491-2519, H5);
  multiclass (Crammer-Singer): E = max(0, 1 + max_{j != y} z_j - z_y).
- squared (regression): E = (z - t)^2 / 2, dE/dz = z - t.

Sections cited:
- ML 1 lecture notes (seed 000): Regularizing the NN (2491)
- Introduction to Machine Learning (Heidelberg) (seed 003): Logistic regression (LR) (470)"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, log_softmax


def cross_entropy(Z, T):
    if Z.shape[1] == 1:
        loss = np.logaddexp(0.0, Z) - T * Z
        return loss[:, 0], expit(Z) - T
    log_p = log_softmax(Z, axis=1)
    return -np.einsum("ij,ij->i", T, log_p), np.exp(log_p) - T


def hinge(Z, T):
    if Z.shape[1] == 1:
        s = 2.0 * T - 1.0
        margin = 1.0 - s * Z
        active = margin > 0
        return np.where(active, margin, 0.0)[:, 0], np.where(active, -s, 0.0)
    rows = np.arange(Z.shape[0])
    true = np.argmax(T, axis=1)
    rivals = np.where(T > 0, -np.inf, Z)
    best = np.argmax(rivals, axis=1)
    loss = np.maximum(0.0, 1.0 + rivals[rows, best] - Z[rows, true])
    delta = np.zeros_like(Z)
    active = loss > 0
    delta[rows[active], best[active]] = 1.0
    delta[rows[active], true[active]] = -1.0
    return loss, delta


def squared(Z, T):
    residual = Z - T
    return 0.5 * np.einsum("ij,ij->i", residual, residual), residual


LOSSES = {"cross_entropy": cross_entropy, "hinge": hinge, "squared": squared}
