"""Compiled hot loops of the explainable boosting machine (numba; the measurements are in
benchmarks/results/additive.md): one whole cyclic round over the terms per call, the shallow trees fitted on a
term's histogram, the per-row gathers of the term tables, FAST's pair strengths, and the walk over a column's distinct
values that cuts the main bins (bins.py).

A term reads one feature (a main effect) or two (a pair) of a uint8 code matrix; its cells are the feature's bins,
or the pair's bins flattened row-major (cell = code_a * n_bins_b + code_b). Every term's table is a block of rows
of one (total cells, K) array: term t owns rows cell_start[t] .. cell_start[t + 1] - 1.

Per row the round keeps a state S from which the loss's gradient is a division away, so a boosting step updates
it by one multiply instead of an exp: squared error S = F (g = w (F - y), h = w); the log-losses S = e^F per
score, p_k = S_k / (1 + S) for the binary odds and S_k / sum_j S_j for the softmax, g_k = w (p_k - y_k),
h_k = w p_k (1 - p_k) (the gradients of mllib.gradient_boosting.losses; tests compare the two).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _cell(codes, i, term):
    """Row i's cell of term = (a, b, n_bins of b): a main effect's (b = -1) or a pair's."""
    a, b, width = term
    if b < 0:
        return np.int64(codes[i, a])
    return np.int64(codes[i, a]) * width + codes[i, b]


SQUARED_ERROR, BINOMIAL, SOFTMAX = 0, 1, 2

# One pass over the rows per loss: each row's state moved by its cell's step of the term just fitted, then the row's
# gradient and hessian added to its cell of the coming term. A term's cells per row are computed once per bag
# (cyclic.Terms.cells: a main effect's bin codes, a pair's code_a * n_bins_b + code_b), so a pass reads two plain
# columns of cells whatever the terms' kinds: a pair's pass on 850,000 rows took 4.1 ms with the cell computed per
# row and pass (benchmarks/results/additive.md). One loop per loss: a switch on the loss inside the row loop made a
# pass 20% slower, one function for the three losses 4-10 times.


# A pass adds each row to one cell of the coming term's histograms. Consecutive rows often share a cell (a binary
# feature, a skewed one, a person's repeated years), and each addition then waits for the one before it to be
# stored: so the histograms come in COPIES, row i adding to copy i mod COPIES, summed in a fixed order after the
# pass (fold_copies). With plain columns, a round of main effects on the million-row default data went from 0.166
# to 0.127 s (benchmarks/results/additive.md).
COPIES = 4  # a power of two: row i adds to copy i & COPY_MASK
COPY_MASK = COPIES - 1


@njit(cache=True)
def _squared_error_pass(done, coming, Y, w, S, G, H, move):
    """S = F: F moves by the done term's step; g = w (F - y), h = w (Y, S: (n,); G, H: (COPIES, cells))."""
    for i in range(done.shape[0]):
        s = S[i] + move[done[i]]
        S[i] = s
        c, w_i = coming[i], w[i]
        G[i & COPY_MASK, c] += w_i * (s - Y[i])
        H[i & COPY_MASK, c] += w_i


@njit(cache=True)
def _binomial_pass(done, coming, Y, w, S, G, H, move):
    """S = e^F, the odds against the other class's e^0: p = S / (1 + S), g = w (p - y), h = w p (1 - p)."""
    for i in range(done.shape[0]):
        s = S[i] * move[done[i]]
        S[i] = s
        c, w_i = coming[i], w[i]
        p = s / (1.0 + s)
        G[i & COPY_MASK, c] += w_i * (p - Y[i])
        H[i & COPY_MASK, c] += w_i * p * (1.0 - p)


@njit(cache=True)
def _softmax_pass(done, coming, Y, w, S, G, H, move):
    """S_k = e^F_k: p_k = S_k / sum_j S_j, g_k = w (p_k - y_k), h_k = w p_k (1 - p_k) (S, Y: (n, K))."""
    K = S.shape[1]
    for i in range(done.shape[0]):
        c = done[i]
        for k in range(K):
            S[i, k] *= move[c, k]
        c, w_i = coming[i], w[i]
        total = 0.0
        for k in range(K):
            total += S[i, k]
        for k in range(K):
            p = S[i, k] / total
            G[i & COPY_MASK, c, k] += w_i * (p - Y[i, k])
            H[i & COPY_MASK, c, k] += w_i * p * (1.0 - p)


@njit(cache=True)
def _pass(loss, done, coming, Y, w, S, G, H, move):
    """A pass of `loss` (the first of a round: move holds no step, see cyclic_round)."""
    if loss == SQUARED_ERROR or loss == BINOMIAL:
        # one score: the arrays as contiguous columns (reshaped, not sliced: a sliced column's strided indexing made
        # the pass 1.6 times slower)
        n, cells = S.shape[0], G.shape[1]
        columns = (Y.reshape(n), w, S.reshape(n), G.reshape(COPIES, cells), H.reshape(COPIES, cells))
        if loss == SQUARED_ERROR:
            _squared_error_pass(done, coming, *columns, move.reshape(cells))
        else:
            _binomial_pass(done, coming, *columns, move.reshape(cells))
    else:
        _softmax_pass(done, coming, Y, w, S, G, H, move)


@njit(cache=True)
def _last_pass(loss, done, S, move):
    """The round's last pass: the state moved by the last term's step, no histogram to build."""
    for i in range(done.shape[0]):
        c = done[i]
        for k in range(S.shape[1]):
            if loss == SQUARED_ERROR:
                S[i, k] += move[c, k]
            else:
                S[i, k] *= move[c, k]


@njit(cache=True)
def _newton_score(g, h):
    """g^2 / h, the second-order loss reduction of a side (twice it), 0 for a side without curvature: the hessian sums
    to exactly 0 where the rows' probabilities are 0 or 1 in float64 (a fold of one class), and such a side has no
    step to take."""
    return g * g / h if h > 0.0 else 0.0


@njit(cache=True)
def _side_score(G, H, k_count, l2):
    """sum_k G_k^2 / (H_k + l2) of one leaf's sums (G, H of length K): twice the loss reduction of its step."""
    score = 0.0
    for k in range(k_count):
        score += _newton_score(G[k], H[k] + l2)
    return score


@njit(cache=True)
def _best_cut(G, H, C, lo, hi, min_leaf, l2, min_hessian, work):
    """Best cut of the bins lo..hi-1 into lo..cut and cut+1..hi-1 by the second-order gain
    sum_k G_L^2/(H_L+l2) + G_R^2/(H_R+l2) - G^2/(H+l2) (twice the loss reduction), each side with >= min_leaf rows
    and >= min_hessian hessian per score. Ties: the lowest cut. Returns (gain, cut); cut -1 when none gains.
    work: scratch of >= 4 rows of K (a cut is searched once per term and round: no allocation)."""
    K = G.shape[1]
    g_all, h_all, g_left, h_left = work[0], work[1], work[2], work[3]
    g_all[:] = 0.0
    h_all[:] = 0.0
    g_left[:] = 0.0
    h_left[:] = 0.0
    n_all = 0.0
    for b in range(lo, hi):
        n_all += C[b]
        for k in range(K):
            g_all[k] += G[b, k]
            h_all[k] += H[b, k]
    parent = _side_score(g_all, h_all, K, l2)
    n_left = 0.0
    best_gain, best_cut = 0.0, -1
    for b in range(lo, hi - 1):
        n_left += C[b]
        for k in range(K):
            g_left[k] += G[b, k]
            h_left[k] += H[b, k]
        if n_left < min_leaf:
            continue
        if n_all - n_left < min_leaf:
            break
        gain = -parent
        admissible = True
        for k in range(K):
            h_right = h_all[k] - h_left[k]
            if h_left[k] < min_hessian or h_right < min_hessian:
                admissible = False
                break
            g_right = g_all[k] - g_left[k]
            gain += _newton_score(g_left[k], h_left[k] + l2) + _newton_score(g_right, h_right + l2)
        if admissible and gain > best_gain:
            best_gain, best_cut = gain, b
    return best_gain, best_cut


@njit(cache=True)
def _newton_steps(G, H, leaf, n_cells, n_leaves, lr, l2, step, work):
    """step[c] = -lr G_l / (H_l + l2) for every cell c of leaf l = leaf[c], with G_l, H_l the sums over the leaf's
    cells (work: scratch of >= 2 n_leaves rows of K)."""
    K = G.shape[1]
    sums = work[: 2 * n_leaves]
    sums[:] = 0.0
    for c in range(n_cells):
        for k in range(K):
            sums[2 * leaf[c], k] += G[c, k]
            sums[2 * leaf[c] + 1, k] += H[c, k]
    for c in range(n_cells):
        for k in range(K):
            g, h = sums[2 * leaf[c], k], sums[2 * leaf[c] + 1, k]
            step[c, k] = -lr * g / (h + l2) if h + l2 > 0.0 else 0.0


@njit(cache=True)
def fit_histogram_tree(G, H, C, n_bins, max_leaves, min_leaf, l2, min_hessian, lr, step, leaf, work):
    """A tree of at most max_leaves leaves over one feature's bins 0..n_bins-1, grown best-first (the leaf whose
    best cut gains most is cut next); step[b] = the shrunk Newton step of bin b's leaf. leaf, work: scratch (the
    leaf of each bin; >= max(4, 2 max_leaves) rows of K). Returns the leaves."""
    lo, hi = np.zeros(max_leaves, np.int64), np.zeros(max_leaves, np.int64)
    gain, cut = np.zeros(max_leaves), np.full(max_leaves, -1, np.int64)
    hi[0] = n_bins
    gain[0], cut[0] = _best_cut(G, H, C, 0, n_bins, min_leaf, l2, min_hessian, work)
    n_leaves = 1
    while n_leaves < max_leaves:
        best = -1
        for s in range(n_leaves):
            if cut[s] >= 0 and (best < 0 or gain[s] > gain[best]):
                best = s
        if best < 0:
            break
        lo[n_leaves], hi[n_leaves], hi[best] = cut[best] + 1, hi[best], cut[best] + 1
        for s in (best, n_leaves):
            gain[s], cut[s] = _best_cut(G, H, C, lo[s], hi[s], min_leaf, l2, min_hessian, work)
        n_leaves += 1
    for s in range(n_leaves):
        leaf[lo[s] : hi[s]] = s
    _newton_steps(G, H, leaf, n_bins, n_leaves, lr, l2, step, work)
    return n_leaves


@njit(cache=True)
def best_quadrant_cut(G, H, C, n_a, n_b, min_leaf, l2, min_hessian):
    """FAST (Lou et al. 2013): the best pair of cuts (bin_a <= cut_a, bin_b <= cut_b) splitting a pair's n_a x n_b
    cells into four quadrants, by the second-order gain sum over quadrants q of G_q^2/(H_q+l2) - G^2/(H+l2); each
    quadrant with >= min_leaf rows and >= min_hessian hessian per score. Quadrant sums come from 2-D prefix sums, so
    a pair costs O(n_a n_b K) after its histogram. Returns (gain, cut_a, cut_b); cut_a = -1 when none gains."""
    K = G.shape[1]
    prefix = np.zeros((n_a, n_b, 2 * K + 1))
    for a in range(n_a):
        for b in range(n_b):
            c = a * n_b + b
            for k in range(K):
                prefix[a, b, k] = G[c, k]
                prefix[a, b, K + k] = H[c, k]
            prefix[a, b, 2 * K] = C[c]
    return _quadrant_cut_of_cells(prefix, n_a, n_b, K, min_leaf, l2, min_hessian, np.zeros((4, 2 * K + 1)))


@njit(cache=True)
def _quadrant_cut_of_cells(prefix, n_a, n_b, K, min_leaf, l2, min_hessian, quadrants):
    """best_quadrant_cut on prefix[:n_a, :n_b] = the cells' sums (G of K scores, H of K scores, row count), turned
    into 2-D prefix sums in place. Cuts leaving fewer than 2 min_leaf rows on a side of either feature are never
    admissible, so the sweep skips them (on a few rows most are)."""
    n_stats = 2 * K
    for a in range(n_a):
        for b in range(n_b):
            for s in range(n_stats + 1):
                if a > 0:
                    prefix[a, b, s] += prefix[a - 1, b, s]
                if b > 0:
                    prefix[a, b, s] += prefix[a, b - 1, s]
                if a > 0 and b > 0:
                    prefix[a, b, s] -= prefix[a - 1, b - 1, s]
    total = prefix[n_a - 1, n_b - 1]
    n = total[n_stats]
    parent = 0.0
    for k in range(K):
        parent += _newton_score(total[k], total[K + k] + l2)
    best_gain, best_a, best_b = 0.0, -1, -1
    for ca in range(n_a - 1):
        rows_low_a = prefix[ca, n_b - 1, n_stats]
        if rows_low_a < 2 * min_leaf or n - rows_low_a < 2 * min_leaf:
            continue
        for cb in range(n_b - 1):
            rows_low_b = prefix[n_a - 1, cb, n_stats]
            if rows_low_b < 2 * min_leaf or n - rows_low_b < 2 * min_leaf:
                continue
            low_low = prefix[ca, cb, n_stats]
            if (
                low_low < min_leaf
                or rows_low_a - low_low < min_leaf
                or rows_low_b - low_low < min_leaf
                or n - rows_low_a - rows_low_b + low_low < min_leaf
            ):
                continue
            for s in range(n_stats):
                low_low = prefix[ca, cb, s]
                low_a = prefix[ca, n_b - 1, s]
                low_b = prefix[n_a - 1, cb, s]
                quadrants[0, s] = low_low
                quadrants[1, s] = low_a - low_low
                quadrants[2, s] = low_b - low_low
                quadrants[3, s] = total[s] - low_a - low_b + low_low
            gain = -parent
            admissible = True
            for q in range(4):
                for k in range(K):
                    h = quadrants[q, K + k]
                    if h < min_hessian:
                        admissible = False
                        break
                    gain += _newton_score(quadrants[q, k], h + l2)
                if not admissible:
                    break
            if admissible and gain > best_gain:
                best_gain, best_a, best_b = gain, ca, cb
    return best_gain, best_a, best_b


@njit(cache=True)
def _best_sweep(G, H, C, n_a, n_b, root_on_a, min_leaf, l2, min_hessian, work):
    """The best depth-2 tree whose root cuts one feature of the pair (root_on_a: a, else b) and whose two children
    each cut the other feature at their own best place (or not at all): (gain, root cut, low child's cut, high
    child's cut), cuts -1 for none. For each root cut the children's per-bin sums along the other feature are
    running sums, so the sweep costs O(n_a n_b K). work: scratch of >= 8 rows of K."""
    K = G.shape[1]
    n_root, n_other = (n_a, n_b) if root_on_a else (n_b, n_a)
    low_G, low_H, low_C = np.zeros((n_other, K)), np.zeros((n_other, K)), np.zeros(n_other)
    high_G, high_H, high_C = np.zeros((n_other, K)), np.zeros((n_other, K)), np.zeros(n_other)
    low_g, low_h, high_g, high_h = work[4], work[5], work[6], work[7]  # the sides' totals
    low_g[:] = 0.0
    low_h[:] = 0.0
    high_g[:] = 0.0
    high_h[:] = 0.0
    n_low, n_high = 0.0, 0.0
    for r in range(n_root):  # start with every row on the high side
        for j in range(n_other):
            c = r * n_b + j if root_on_a else j * n_b + r
            high_C[j] += C[c]
            n_high += C[c]
            for k in range(K):
                high_G[j, k] += G[c, k]
                high_H[j, k] += H[c, k]
                high_g[k] += G[c, k]
                high_h[k] += H[c, k]
    parent = _side_score(high_g, high_h, K, l2)
    best = (0.0, -1, -1, -1)
    for r in range(n_root - 1):
        for j in range(n_other):  # the root's bin r moves to the low side
            c = r * n_b + j if root_on_a else j * n_b + r
            low_C[j] += C[c]
            high_C[j] -= C[c]
            n_low += C[c]
            n_high -= C[c]
            for k in range(K):
                low_G[j, k] += G[c, k]
                high_G[j, k] -= G[c, k]
                low_H[j, k] += H[c, k]
                high_H[j, k] -= H[c, k]
                low_g[k] += G[c, k]
                high_g[k] -= G[c, k]
                low_h[k] += H[c, k]
                high_h[k] -= H[c, k]
        if n_low < min_leaf or n_high < min_leaf or low_h.min() < min_hessian or high_h.min() < min_hessian:
            continue
        gain = _side_score(low_g, low_h, K, l2) + _side_score(high_g, high_h, K, l2) - parent
        gain_low, cut_low = _best_cut(low_G, low_H, low_C, 0, n_other, min_leaf, l2, min_hessian, work)
        gain_high, cut_high = _best_cut(high_G, high_H, high_C, 0, n_other, min_leaf, l2, min_hessian, work)
        gain += gain_low + gain_high
        if gain > best[0]:
            best = (gain, r, cut_low, cut_high)
    return best


@njit(cache=True)
def fit_pair_tree(G, H, C, n_a, n_b, min_leaf, l2, min_hessian, lr, step, leaf, work):
    """A pair's boosting step: the better depth-2 tree of the two sweeps (root on a or on b; up to four leaves),
    each leaf's cells taking its shrunk Newton step (one leaf for all cells when no cut gains). leaf, work: scratch
    (the leaf of each cell; >= 8 rows of K). Returns the leaves."""
    on_a = _best_sweep(G, H, C, n_a, n_b, True, min_leaf, l2, min_hessian, work)
    on_b = _best_sweep(G, H, C, n_a, n_b, False, min_leaf, l2, min_hessian, work)
    root_on_a = on_a[0] >= on_b[0]
    gain, root, cut_low, cut_high = on_a if root_on_a else on_b
    for a in range(n_a):
        for b in range(n_b):
            x_root, x_other = (a, b) if root_on_a else (b, a)
            high = x_root > root
            child_cut = cut_high if high else cut_low
            # 0..3: (above the root cut) * 2 + (above its child's cut); all 0 without a root cut
            leaf[a * n_b + b] = 0 if root < 0 else 2 * high + (child_cut >= 0 and x_other > child_cut)
    _newton_steps(G, H, leaf, n_a * n_b, 4, lr, l2, step, work)
    return 1 if root < 0 else 2 + (cut_low >= 0) + (cut_high >= 0)


@njit(cache=True)
def fold_copies(copies, n_cells):
    """The histogram of the first n_cells cells: the copies summed into copy 0, in copy order (returns copy 0's)."""
    for j in range(1, COPIES):
        for c in range(n_cells):
            for k in range(copies.shape[2]):
                copies[0, c, k] += copies[j, c, k]
    return copies[0]


@njit(cache=True)
def _move_held_out(cells, step, F):
    """F[i] += step[row i's cell] (one score: contiguous columns, as in _pass)."""
    if F.shape[1] == 1:
        m, F_column, step_column = F.shape[0], F.reshape(F.shape[0]), step.reshape(step.shape[0])
        for i in range(m):
            F_column[i] += step_column[cells[i]]
        return
    for i in range(F.shape[0]):
        for k in range(F.shape[1]):
            F[i, k] += step[cells[i], k]


@njit(cache=True, nogil=True)
def cyclic_round(loss, terms, rows, held_out, tree, buffers):
    """One round of cyclic boosting over the terms, in order: term t's histogram of (g, h) at the current state,
    its tree, its table += the step, and every row's state moved by its cell's step before term t + 1's histogram
    is built (pass t applies term t - 1's step and builds term t's histogram: T + 1 passes over the rows).
    loss: SQUARED_ERROR, BINOMIAL or SOFTMAX; terms: (cells: (T, n) each row's cell of each term, shape: (T, 2)
    each term's bins (n_a, n_b; n_b = 0 for a main effect), cell_start, counts: the rows per cell); rows: (Y, w, S:
    the state); held_out: (cells, F) of the validation rows, F moved by every step; tree: (learning_rate, l2,
    max_leaves, min_samples_leaf, min_hessian); buffers: (tables, then G and H: (COPIES, cells, K), step and move:
    (cells, K), scratch of >= the largest term's cells)."""
    cells, shape, cell_start, counts = terms
    Y, w, S = rows
    cells_held_out, F_held_out = held_out
    lr, l2, max_leaves, min_leaf, min_hessian = tree
    tables, G_copies, H_copies, step, move = buffers
    K = Y.shape[1]
    n_terms = cells.shape[0]
    leaf, work = np.empty(step.shape[0], np.int64), np.zeros((max(8, 2 * max_leaves), K))  # the trees' scratch
    move[:] = 0.0 if loss == SQUARED_ERROR else 1.0  # the first pass moves no state (x + 0 and x * 1 are exact)
    for t in range(n_terms):
        start = cell_start[t]
        n_cells = cell_start[t + 1] - start
        G_copies[:, :n_cells] = 0.0
        H_copies[:, :n_cells] = 0.0
        _pass(loss, cells[max(t - 1, 0)], cells[t], Y, w, S, G_copies, H_copies, move)
        G, H = fold_copies(G_copies, n_cells), fold_copies(H_copies, n_cells)
        C = counts[start : start + n_cells]
        n_a, n_b = shape[t]
        if n_b == 0:
            fit_histogram_tree(G, H, C, n_cells, max_leaves, min_leaf, l2, min_hessian, lr, step, leaf, work)
        else:
            fit_pair_tree(G, H, C, n_a, n_b, min_leaf, l2, min_hessian, lr, step, leaf, work)
        for c in range(n_cells):
            for k in range(K):
                tables[start + c, k] += step[c, k]
                move[c, k] = step[c, k] if loss == SQUARED_ERROR else np.exp(step[c, k])
        _move_held_out(cells_held_out[t], step, F_held_out)
    if n_terms > 0:
        _last_pass(loss, cells[n_terms - 1], S, move)


@njit(cache=True)
def add_terms(codes, n_bins, term_a, term_b, cell_start, tables, out):
    """out[i] += sum over terms t of tables[cell_start[t] + row i's cell of t] (F from the term tables)."""
    K = out.shape[1]
    for i in range(codes.shape[0]):
        for t in range(term_a.shape[0]):
            c = cell_start[t] + _cell(codes, i, (term_a[t], term_b[t], n_bins[max(term_b[t], 0)]))
            for k in range(K):
                out[i, k] += tables[c, k]


@njit(cache=True, nogil=True)
def cell_counts(codes, n_bins, term_a, term_b, cell_start, w, out):
    """out[cell_start[t] + c] += w_i for every row i in cell c of term t (w = ones: the row counts)."""
    for i in range(codes.shape[0]):
        for t in range(term_a.shape[0]):
            out[cell_start[t] + _cell(codes, i, (term_a[t], term_b[t], n_bins[max(term_b[t], 0)]))] += w[i]


@njit(cache=True)
def pair_strengths(codes, n_bins, g, h, min_leaf, l2, min_hessian):
    """FAST's strength of every pair (a < b): the gain of its best quadrant cut fitted to the gradients g, h (n, K)
    of the rows, histograms on the codes (n, d) C-ordered. For each a, one pass over the rows fills the histograms
    of all pairs (a, b > a) at once, laid out [bin_a, b, bin_b] so that one row's updates stay close in memory; a
    second pass clears the cells it filled (on a wide file of few rows, clearing the whole layout per feature cost
    more than everything else). Returns (d, d), strengths above the diagonal, 0 elsewhere."""
    n, d = codes.shape
    K = g.shape[1]
    width = 0
    for j in range(d):
        width = max(width, n_bins[j])
    strength = np.zeros((d, d))
    cells = np.zeros((width, d, width, 2 * K + 1))  # per cell: G of K scores, H of K scores, the row count
    prefix, quadrants = np.zeros((width, width, 2 * K + 1)), np.zeros((4, 2 * K + 1))
    for a in range(d - 1):
        for i in range(n):
            ca = codes[i, a]
            for b in range(a + 1, d):
                cell = cells[ca, b, codes[i, b]]
                for k in range(K):
                    cell[k] += g[i, k]
                    cell[K + k] += h[i, k]
                cell[2 * K] += 1.0
        n_a = n_bins[a]
        for b in range(a + 1, d):
            n_b = n_bins[b]
            prefix[:n_a, :n_b] = cells[:n_a, b, :n_b]
            strength[a, b] = _quadrant_cut_of_cells(prefix, n_a, n_b, K, min_leaf, l2, min_hessian, quadrants)[0]
        for i in range(n):
            ca = codes[i, a]
            for b in range(a + 1, d):
                cells[ca, b, codes[i, b]] = 0.0
    return strength


@njit(cache=True)
def bin_ends(counts: np.ndarray, max_bins: int) -> np.ndarray:
    """The distinct values (by index, in order) that end a bin: at most max_bins - 1 of them. A heavy value (counts
    >= n / max_bins) ends its own bin and the one before it; the light values fill bins of about equal rows, the target
    recomputed after each bin from the light rows and bins left, so a short run between two heavy values does not
    starve the rest."""
    n = counts.sum()
    heavy = counts >= n / max_bins
    light_bins = max_bins - heavy.sum()
    light_rows = n - counts[heavy].sum()
    ends = np.empty(max_bins - 1, np.int64)
    k, in_bin = 0, 0
    for i in range(counts.size - 1):
        in_bin += counts[i]
        if not heavy[i]:
            light_rows -= counts[i]
        if heavy[i] or heavy[i + 1] or in_bin * max(light_bins, 1) >= in_bin + light_rows:
            ends[k] = i
            k += 1
            if k == max_bins - 1:
                break
            if not heavy[i]:
                light_bins -= 1
            in_bin = 0
    return ends[:k]
