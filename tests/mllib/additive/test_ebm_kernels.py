"""The explainable boosting machine's compiled round against hand computations: one cyclic round of one feature
(histogram, best cut, Newton step), the gradients of mllib.gradient_boosting.losses, a weight of 2 as a duplicated
row, FAST's four quadrants and a pair's depth-2 step against brute force, and the greedy growth of a three-leaf
tree."""

import numpy as np
import pytest

from mllib.additive._kernels import (
    BINOMIAL,
    COPIES,
    SOFTMAX,
    SQUARED_ERROR,
    best_quadrant_cut,
    cyclic_round,
    fit_pair_tree,
)
from mllib.additive.cyclic import MIN_HESSIAN, Terms
from mllib.gradient_boosting.losses import BinomialLogLoss, HalfSquaredError, MultinomialLogLoss


def one_round(loss, codes, n_bins, features, Y, w, S, lr=1.0, l2=0.0, max_leaves=2, min_leaf=1):
    """Run one cyclic round; returns (tables, the last term's G and H, the state after the round)."""
    terms = Terms.of(features, np.asarray(n_bins))
    codes = np.asfortranarray(codes, dtype=np.uint8)
    counts = terms.cell_weights(codes, np.ones(codes.shape[0]))
    K = Y.shape[1]
    cells = (terms.n_cells, K)
    buffers = (
        np.zeros(cells),
        np.zeros((COPIES, *cells)),
        np.zeros((COPIES, *cells)),
        np.zeros(cells),
        np.zeros(cells),
    )
    held_out = (terms.cells(codes[:0]), np.zeros((0, K)))
    cyclic_round(
        loss, (terms.cells(codes), terms.shape, terms.cell_start, counts), (Y, w, S), held_out,
        (lr, l2, max_leaves, float(min_leaf), MIN_HESSIAN), buffers,
    )  # fmt: skip
    tables, G, H = buffers[:3]
    return tables, G[0], H[0], S  # copy 0 holds the last term's whole histogram


def test_one_round_of_one_feature_by_hand_squared_error():
    # x in three bins of two rows each, y = 1 2 | 3 4 | 10 12, F_0 = mean y = 16/3, g = F - y, h = 1:
    #   G per bin = 2 F_0 - (3, 7, 22) = (23/3, 11/3, -34/3), H = (2, 2, 2), G_total = 0.
    #   cut after bin 0: (23/3)^2/2 + (23/3)^2/4 = 44.08; after bin 1: (34/3)^2/4 + (34/3)^2/2 = 96.33 -> bin 1.
    #   leaves {0, 1}: -(34/3)/4 = -17/6; {2}: +(34/3)/2 = 17/3: F becomes each leaf's mean (2.5 and 11).
    codes = np.array([[0], [0], [1], [1], [2], [2]])
    y = np.array([1.0, 2, 3, 4, 10, 12])
    S = np.full((6, 1), 16 / 3)
    tables, G, H, S = one_round(SQUARED_ERROR, codes, [3], [(0,)], y[:, None], np.ones(6), S)
    np.testing.assert_allclose(G[:3, 0], [23 / 3, 11 / 3, -34 / 3], rtol=1e-14)
    np.testing.assert_allclose(H[:3, 0], [2, 2, 2])
    np.testing.assert_allclose(tables[:, 0], [-17 / 6, -17 / 6, 17 / 3], rtol=1e-14)
    np.testing.assert_allclose(S[:, 0], [2.5, 2.5, 2.5, 2.5, 11, 11], rtol=1e-14)


def test_one_round_of_one_feature_by_hand_log_loss():
    # y = 0 1 | 1 1, prior 3/4, F_0 = log 3 (state: the odds 3): p = 3/4, g = p - y = (3/4, -1/4 | -1/4, -1/4),
    # h = 3/16: G = (1/2, -1/2), H = (3/8, 3/8); the one cut; Newton steps -G/H = (-4/3, 4/3); the odds move by e^step
    codes = np.array([[0], [0], [1], [1]])
    y = np.array([0.0, 1, 1, 1])
    tables, G, H, S = one_round(BINOMIAL, codes, [2], [(0,)], y[:, None], np.ones(4), np.full((4, 1), 3.0))
    np.testing.assert_allclose(G[:2, 0], [0.5, -0.5], rtol=1e-14)
    np.testing.assert_allclose(H[:2, 0], [3 / 8, 3 / 8], rtol=1e-14)
    np.testing.assert_allclose(tables[:, 0], [-4 / 3, 4 / 3], rtol=1e-14)
    np.testing.assert_allclose(np.log(S[:, 0]), np.log(3) + np.array([-4, -4, 4, 4]) / 3, rtol=1e-14)


def test_three_leaves_grow_best_first_and_min_samples_leaf_holds():
    # y steps up at bin 2 strongly and at bin 4 weakly: the first cut is after bin 1, the second after bin 3
    codes = np.repeat(np.arange(6), 10)[:, None]
    y = np.repeat([0.0, 0, 5, 5, 6, 6], 10)
    tables, *_ = one_round(SQUARED_ERROR, codes, [6], [(0,)], y[:, None], np.ones(60), np.full((60, 1), y.mean()),
                           max_leaves=3)  # fmt: skip
    np.testing.assert_allclose(tables[:, 0] + y.mean(), [0, 0, 5, 5, 6, 6], atol=1e-12)
    # with 30 rows per leaf required only the middle cut (after bin 2: 30 | 30) is allowed
    tables, *_ = one_round(SQUARED_ERROR, codes, [6], [(0,)], y[:, None], np.ones(60), np.full((60, 1), y.mean()),
                           max_leaves=3, min_leaf=30)  # fmt: skip
    np.testing.assert_allclose(tables[:, 0] + y.mean(), [5 / 3] * 3 + [17 / 3] * 3, atol=1e-12)


@pytest.mark.parametrize("loss_name", ["squared_error", "binomial", "softmax"])
def test_histograms_hold_the_gradients_of_the_shared_losses(loss_name):
    rng = np.random.default_rng(0)
    n, K = 300, 3
    codes = rng.integers(0, 7, size=(n, 1))
    w = rng.uniform(0.5, 2.0, n)
    raw = rng.normal(size=(n, 1 if loss_name != "softmax" else K))
    if loss_name == "squared_error":
        loss, code, target = HalfSquaredError(), SQUARED_ERROR, rng.normal(size=n)
        Y, S = target[:, None], raw.copy()
    elif loss_name == "binomial":
        loss, code, target = BinomialLogLoss(), BINOMIAL, rng.integers(0, 2, n).astype(float)
        Y, S = target[:, None], np.exp(raw)
    else:
        loss, code, target = MultinomialLogLoss(K), SOFTMAX, rng.integers(0, K, n)
        Y, S = np.eye(K)[target], np.exp(raw)
    _, G, H, _ = one_round(code, codes, [7], [(0,)], Y, w, S, lr=0.0)
    g, h = loss.gradient_hessian(target, raw, w)
    for k in range(raw.shape[1]):
        np.testing.assert_allclose(G[:7, k], np.bincount(codes[:, 0], g[:, k], 7), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(H[:7, k], np.bincount(codes[:, 0], h[:, k], 7), rtol=1e-12, atol=1e-12)


def test_a_weight_of_two_is_a_duplicated_row():
    rng = np.random.default_rng(1)
    n = 200
    codes = np.column_stack([rng.integers(0, 5, n), rng.integers(0, 4, n)])
    y = (rng.random(n) < 0.4).astype(float)
    twice = rng.random(n) < 0.3
    w = np.where(twice, 2.0, 1.0)
    rows = np.concatenate([np.arange(n), np.flatnonzero(twice)])
    features = [(0,), (1,), (0, 1)]
    n_bins = [5, 4]
    weighted, *_ = one_round(BINOMIAL, codes, n_bins, features, y[:, None], w, np.full((n, 1), 0.7), lr=0.3)
    duplicated, *_ = one_round(
        BINOMIAL, codes[rows], n_bins, features, y[rows, None], np.ones(rows.size), np.full((rows.size, 1), 0.7),
        lr=0.3,
    )  # fmt: skip
    np.testing.assert_allclose(weighted, duplicated, rtol=1e-12, atol=1e-14)


def test_fast_cuts_the_pair_into_four_quadrants_as_brute_force_does():
    # a 4 x 5 grid of cells with random gradients and row counts: every pair of cuts scored in numpy
    rng = np.random.default_rng(2)
    n_a, n_b = 4, 5
    G, H = rng.normal(size=(n_a, n_b)), rng.uniform(0.5, 2, size=(n_a, n_b))
    C = rng.integers(1, 4, size=(n_a, n_b)).astype(float)

    def score(g, h):
        return g.sum() ** 2 / h.sum()

    gains = {}
    for ca in range(n_a - 1):
        for cb in range(n_b - 1):
            sides_a, sides_b = (slice(None, ca + 1), slice(ca + 1, None)), (slice(None, cb + 1), slice(cb + 1, None))
            parts = [(side_a, side_b) for side_a in sides_a for side_b in sides_b]
            if all(C[p].sum() >= 6 for p in parts):
                gains[ca, cb] = sum(score(G[p], H[p]) for p in parts) - score(G, H)
    best = max(gains, key=gains.get)
    gain, cut_a, cut_b = best_quadrant_cut(
        G.reshape(-1, 1), H.reshape(-1, 1), C.ravel(), n_a, n_b, 6.0, 0.0, MIN_HESSIAN
    )
    assert (cut_a, cut_b) == best and gain == pytest.approx(gains[best], rel=1e-12)
    assert len(gains) < (n_a - 1) * (n_b - 1)  # min_samples_leaf ruled some cuts out
    # no admissible cut: each quadrant of a 4 x 5 grid cannot hold all rows
    assert best_quadrant_cut(G.reshape(-1, 1), H.reshape(-1, 1), C.ravel(), n_a, n_b, C.sum(), 0.0, 1e-3)[1] == -1


def test_a_pairs_step_is_the_best_depth_two_tree_as_brute_force_finds_it():
    # every tree: a root cut on one feature, then on each side a cut of the other feature or none
    rng = np.random.default_rng(3)
    n_a, n_b = 4, 5
    G, H = rng.normal(size=(n_a, n_b)), rng.uniform(0.5, 2, size=(n_a, n_b))
    C = rng.integers(1, 4, size=(n_a, n_b)).astype(float)
    min_leaf = 4.0

    def score(part):
        return G[part].sum() ** 2 / H[part].sum()

    best = 0.0
    for root_on_a, n_root, n_other in ((True, n_a, n_b), (False, n_b, n_a)):
        for r in range(n_root - 1):
            for low_cut in range(-1, n_other - 1):
                for high_cut in range(-1, n_other - 1):
                    leaves = []
                    for side, cut in ((slice(None, r + 1), low_cut), (slice(r + 1, None), high_cut)):
                        halves = [slice(None)] if cut < 0 else [slice(None, cut + 1), slice(cut + 1, None)]
                        leaves += [(side, h) if root_on_a else (h, side) for h in halves]
                    if all(C[leaf].sum() >= min_leaf for leaf in leaves):
                        best = max(best, sum(score(leaf) for leaf in leaves) - score((slice(None), slice(None))))
    step = np.zeros((n_a * n_b, 1))
    scratch = (np.empty(n_a * n_b, np.int64), np.zeros((8, 1)))
    fit_pair_tree(
        G.reshape(-1, 1), H.reshape(-1, 1), C.ravel(), n_a, n_b, min_leaf, 0.0, MIN_HESSIAN, 1.0, step, *scratch
    )
    # the leaves are the cells sharing a step; their gain is the brute force's best
    leaves = [step[:, 0].reshape(n_a, n_b) == v for v in np.unique(step)]
    assert len(leaves) in (3, 4) and all(C[leaf].sum() >= min_leaf for leaf in leaves)
    found = sum(score(leaf) for leaf in leaves) - score((slice(None), slice(None)))
    assert found == pytest.approx(best, rel=1e-12)
    for leaf in leaves:  # each leaf's step is its Newton step
        np.testing.assert_allclose(step[:, 0].reshape(n_a, n_b)[leaf], -G[leaf].sum() / H[leaf].sum(), rtol=1e-12)
