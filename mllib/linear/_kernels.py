"""Compiled coordinate-wise loops of the linear classifiers (numba): the perceptron and the dual coordinate descent
of the linear SVM visit one row at a time and update the weights after each row, and the L1 logistic regression's
inner coordinate descent updates one coefficient at a time; numpy cannot vectorise either (in Python these loops
took 80 % of the L1 fit and made the row loops ~100x slower than scikit-learn; benchmarks/results/classifiers.md).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, fastmath={"reassoc", "contract"})  # lets the row dot products vectorise (no inf/nan assumptions)
def perceptron_epochs(X, t, sample_weight, lr, max_iter, shuffle, averaged, seed):
    """Rosenblatt's rule on targets t in {-1, +1}: for each row with t_k (w^T x_k + b) <= 0,
    w += lr s_k t_k x_k and b += lr s_k t_k. Stops after an epoch without mistakes.
    averaged: return the average of (w, b) over all row visits instead of the last iterate.
    Returns w, b, epochs run."""
    np.random.seed(seed)
    n, d = X.shape
    w = np.zeros(d)
    b = 0.0
    u = np.zeros(d)  # sum of step * update, for the running average
    ub = 0.0
    order = np.arange(n)
    step = 0
    epochs = 0
    for epoch in range(max_iter):
        epochs += 1
        if shuffle:
            np.random.shuffle(order)
        mistakes = 0
        for j in range(n):
            i = order[j]
            if sample_weight[i] <= 0.0:  # a zero-weight row is not visited (nor counted in the average)
                continue
            step += 1
            z = b
            for f in range(d):
                z += w[f] * X[i, f]
            if t[i] * z <= 0.0:
                mistakes += 1
                g = lr * sample_weight[i] * t[i]
                for f in range(d):
                    w[f] += g * X[i, f]
                b += g
                if averaged:
                    for f in range(d):
                        u[f] += step * g * X[i, f]
                    ub += step * g
        if mistakes == 0:
            break
    if averaged and step > 0:
        # an update at visit s counts in the iterates s..T: mean = ((T + 1) w - u) / T
        w = ((step + 1) * w - u) / step
        b = ((step + 1) * b - ub) / step
    return w, b, epochs


@njit(cache=True, fastmath={"reassoc", "contract"})  # lets the row dot products vectorise (no inf/nan assumptions)
def svm_dual_cd(X, t, upper, tol, max_iter, seed):
    """Dual coordinate descent for the hinge-loss linear SVM (Hsieh et al. 2008, with their shrinking):
    min_a 1/2 a^T Q a - 1^T a, 0 <= a_i <= upper_i (= C s_i), Q_ij = t_i t_j x_i^T x_j, keeping
    w = sum_i a_i t_i x_i. A coordinate at a bound whose gradient points outward beyond last epoch's extreme
    projected gradients is set aside; when the projected gradient of the remaining ones varies by less than tol
    over an epoch, all coordinates are checked again, and the run stops once that holds for all of them.
    Returns w, a, epochs run."""
    np.random.seed(seed)
    n, d = X.shape
    w = np.zeros(d)
    a = np.zeros(n)
    qii = np.empty(n)
    for i in range(n):
        s = 0.0
        for f in range(d):
            s += X[i, f] * X[i, f]
        qii[i] = s
    order = np.arange(n)
    active = n
    pg_max_old = np.inf
    pg_min_old = -np.inf
    epochs = 0
    while epochs < max_iter:
        epochs += 1
        for j in range(active - 1, 0, -1):  # shuffle the active coordinates
            r = np.random.randint(0, j + 1)
            order[j], order[r] = order[r], order[j]
        pg_max = -np.inf
        pg_min = np.inf
        j = 0
        while j < active:
            i = order[j]
            if upper[i] <= 0.0 or qii[i] <= 0.0:  # zero weight or an all-zero row: a_i stays 0
                j += 1
                continue
            z = 0.0
            for f in range(d):
                z += w[f] * X[i, f]
            G = t[i] * z - 1.0
            pg = 0.0
            if a[i] <= 0.0:
                if G > pg_max_old:  # shrink: at the lower bound and moving outward
                    active -= 1
                    order[j], order[active] = order[active], order[j]
                    continue
                if G < 0.0:
                    pg = G
            elif a[i] >= upper[i]:
                if G < pg_min_old:
                    active -= 1
                    order[j], order[active] = order[active], order[j]
                    continue
                if G > 0.0:
                    pg = G
            else:
                pg = G
            pg_max = max(pg_max, pg)
            pg_min = min(pg_min, pg)
            if abs(pg) > 1e-12:
                old = a[i]
                a[i] = min(max(a[i] - G / qii[i], 0.0), upper[i])
                delta = (a[i] - old) * t[i]
                for f in range(d):
                    w[f] += delta * X[i, f]
            j += 1
        if pg_max - pg_min <= tol:
            if active == n:
                break
            active = n  # converged on the active set: check every coordinate again
            pg_max_old = np.inf
            pg_min_old = -np.inf
            continue
        pg_max_old = pg_max if pg_max > 0.0 else np.inf
        pg_min_old = pg_min if pg_min < 0.0 else -np.inf
    return w, a, epochs


@njit(cache=True)
def l1_quadratic_step(g, H, beta, penalised, lam, tol, max_sweeps):
    """argmin_d g^T d + 1/2 d^T H d + lam sum_{penalised j} |beta_j + d_j| by cyclic coordinate descent: each
    coordinate's exact minimiser is a soft-threshold (plain Newton for the unpenalised intercepts). Sweeps until
    no coordinate moves by tol."""
    p = beta.size
    d = np.zeros(p)
    Hd = np.zeros(p)
    for _ in range(max_sweeps):
        largest = 0.0
        for j in range(p):
            a = H[j, j]
            if a <= 0.0:
                continue
            slope = g[j] + Hd[j]
            if penalised[j]:
                z = beta[j] + d[j] - slope / a
                shrunk = max(abs(z) - lam / a, 0.0)
                step = (shrunk if z > 0 else -shrunk) - beta[j] - d[j]
            else:
                step = -slope / a
            if step != 0.0:
                d[j] += step
                for i in range(p):
                    Hd[i] += step * H[i, j]
                largest = max(largest, abs(step))
        if largest < tol:
            break
    return d
