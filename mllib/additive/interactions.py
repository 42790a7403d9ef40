"""FAST: ranking the candidate pairs of features by how much a pairwise term would fit what the main effects left
(Lou, Caruana, Gehrke & Hooker 2013, "Accurate intelligible models with pairwise interactions").

For a pair (a, b) on coarse bins, the best single cut on each feature splits its cells into four quadrants; each
quadrant's Newton step fitted to the gradients g, h of the loss at the main-effects model lowers the second-order
approximation of the loss by half of sum_q G_q^2/(H_q + l2) - G^2/(H + l2): the pair's strength is that gain. With
histograms and prefix sums a pair costs O(its cells) after one pass over the rows, so every pair is scored, not a
shortlist, up to the model's max_interaction_features columns (beyond, the pairs among the columns of largest main
effects: 2.7 million pairs of a 2,308-column file took minutes per fit). The strongest pairs are then boosted like
the main effects (cyclic.py), each step a depth-2 tree over the pair's cells (a cut of one feature, then on each side
its own cut of the other: four leaves that need not line up, as InterpretML grows them; the more flexible tree takes
fewer rounds to fit a smooth surface than four quadrants)."""

from __future__ import annotations

import numpy as np

from ._kernels import pair_strengths
from .cyclic import MIN_HESSIAN


def rank_pairs(codes, n_bins, loss, target, raw, w, n_pairs, min_samples_leaf, l2) -> tuple[list, np.ndarray]:
    """The n_pairs strongest pairs (a, b), a < b, with a positive strength, strongest first (ties: the lower pair in
    row-major order), and their strengths, from the gradients of `loss` at the raw scores raw (n, K) of the rows of
    codes (n, d) coarse bin codes."""
    g, h = loss.gradient_hessian(target, raw, w)
    strength = pair_strengths(
        np.ascontiguousarray(codes), np.asarray(n_bins, np.int64), np.ascontiguousarray(g), np.ascontiguousarray(h),
        float(min_samples_leaf), float(l2), MIN_HESSIAN,
    )  # fmt: skip
    a, b = np.triu_indices(codes.shape[1], 1)
    order = np.argsort(-strength[a, b], kind="stable")[:n_pairs]
    order = order[strength[a[order], b[order]] > 0]
    return [(int(a[i]), int(b[i])) for i in order], strength[a[order], b[order]]
