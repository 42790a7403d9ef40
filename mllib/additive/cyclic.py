"""Cyclic gradient boosting of additive terms, one bag at a time (Lou, Caruana & Gehrke 2012: for each feature in
turn a shallow tree is fitted to the current gradient and added to that feature's shape function).

Objective: the loss's weighted mean over rows, L(F) with F(x) = intercept + sum_t f_t(x_t) and each f_t a table over
its term's bins (pairs: cells). A round visits the terms in order; term t's step is a tree of at most max_leaves
leaves (a pair's: a depth-2 tree, interactions.py) fitted on the term's histogram of gradients g and hessians h at
the current F, each leaf taking the Newton step -learning_rate G / (H + l2) (the NEGATIVE gradient direction, seed
002's erratum 2), and F moves before the next term's histogram is built (coordinate-wise boosting, not one gradient
for all terms). The rounds stop when the loss on the bag's validation rows has not fallen by more than tol
(relative) for early_stopping_rounds rounds; the tables of the best round are kept.

References: Lou, Caruana & Gehrke, Intelligible models for classification and regression (KDD 2012); Lou et al.,
Accurate intelligible models with pairwise interactions (KDD 2013); gradient boosting: seed 000, lines 3008-3028;
seed 002, lines 1523-1549.

Sections cited:
- ML 1 lecture notes (seed 000): Gradient Tree Boosting - conceptually (3008)
- Machine Learning lecture notes (seed 002): Gradient Boosting (1523)"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..gradient_boosting.losses import BinomialLogLoss, HalfSquaredError, MultinomialLogLoss
from ._kernels import BINOMIAL, COPIES, SOFTMAX, SQUARED_ERROR, add_terms, cell_counts, cyclic_round

# a leaf must carry at least this much hessian per score, as in mllib's gradient boosting: a near-zero hessian sum
# (rows the model already fits almost perfectly) would make the Newton step -G/H explode when l2 = 0
MIN_HESSIAN = 1e-3

LOSS_CODES = {HalfSquaredError: SQUARED_ERROR, BinomialLogLoss: BINOMIAL, MultinomialLogLoss: SOFTMAX}


@dataclass(frozen=True)
class Terms:
    """Terms on the columns of one code matrix: term t reads feature a[t] (b[t] = -1) or the pair (a[t], b[t]); its
    table is rows cell_start[t] .. cell_start[t + 1] - 1 of the stacked tables."""

    a: np.ndarray
    b: np.ndarray
    n_bins: np.ndarray  # bins of every feature of the code matrix
    cell_start: np.ndarray

    @classmethod
    def of(cls, features: list[tuple[int, ...]], n_bins: np.ndarray) -> Terms:
        a = np.array([f[0] for f in features], dtype=np.int64)
        b = np.array([f[1] if len(f) == 2 else -1 for f in features], dtype=np.int64)
        cells = [int(np.prod(n_bins[list(f)])) for f in features]
        return cls(a, b, np.asarray(n_bins, np.int64), np.concatenate([[0], np.cumsum(cells)]).astype(np.int64))

    @property
    def n_cells(self) -> int:
        return int(self.cell_start[-1])

    @property
    def shape(self) -> np.ndarray:
        """(T, 2): each term's bins (n_a, n_b), n_b = 0 for a main effect."""
        return np.column_stack([self.n_bins[self.a], np.where(self.b < 0, 0, self.n_bins[np.maximum(self.b, 0)])])

    def cells(self, codes: np.ndarray) -> np.ndarray:
        """(T, n): each row's cell of each term, a term's cells one contiguous row (what a pass reads); uint8 when
        every term has at most 256 cells (main effects: the codes themselves), else uint16 (pairs: at most 64 x 64
        cells, max_interaction_bins)."""
        widest = int(np.max(np.diff(self.cell_start), initial=0))
        out = np.empty((self.a.size, codes.shape[0]), np.uint8 if widest <= 256 else np.uint16)
        for t, (a, b) in enumerate(zip(self.a, self.b)):
            out[t] = codes[:, a] if b < 0 else codes[:, a] * self.n_bins[b] + codes[:, b]
        return out

    def add_to(self, codes: np.ndarray, tables: np.ndarray, out: np.ndarray) -> np.ndarray:
        """out += each row's sum over terms of its cell's table entry (F minus the intercept); returns out."""
        add_terms(codes, self.n_bins, self.a, self.b, self.cell_start, tables, out)
        return out

    def cell_weights(self, codes: np.ndarray, w: np.ndarray) -> np.ndarray:
        """The weight of the rows in each cell (w = ones: the row counts)."""
        out = np.zeros(self.n_cells)
        cell_counts(codes, self.n_bins, self.a, self.b, self.cell_start, w, out)
        return out


@dataclass(frozen=True)
class Boosting:
    """The settings of one stage of cyclic boosting."""

    learning_rate: float
    max_rounds: int
    early_stopping_rounds: int
    tol: float
    max_leaves: int
    min_samples_leaf: int
    l2: float


@dataclass(frozen=True)
class Stage:
    """One set of terms boosted in every bag: tables (bags, cells, K), the rounds each bag kept, how many bags reached
    max_rounds before early stopping, and the weight of all the rows (not only a bag's) in each cell."""

    terms: Terms
    tables: np.ndarray
    rounds: list
    capped: int
    weights: np.ndarray


@dataclass
class BagRows:
    """A bag's rows: the training part the trees are fitted on and the validation part that stops them (empty: no
    early stopping)."""

    train: np.ndarray
    valid: np.ndarray


def boost_bags(terms, codes, Y, target, w, bases, bags, loss, settings, threads: int = 1) -> Stage:
    """`terms` boosted in each bag from its raw scores (bases: one (n, K) array per bag, made when its bag is
    reached; with threads > 1, bags run side by side in that many threads and their bases are made up front)."""
    rows_per_cell = terms.cell_weights(codes, np.ones(codes.shape[0]))  # a bag's: these minus its validation rows'

    def one_bag(base_and_bag):
        return boost_terms(terms, codes, Y, target, w, *base_and_bag, loss, settings, rows_per_cell)

    if threads > 1:
        # the bags are independent and boost inside the kernels without the GIL: each bag's arithmetic is the same
        # as one by one, and the results are taken in bag order, so the tables do not depend on the threads
        with ThreadPoolExecutor(min(threads, len(bags))) as pool:
            fits = list(pool.map(one_bag, zip(bases, bags)))
    else:
        fits = [one_bag(pair) for pair in zip(bases, bags)]
    tables, rounds, capped = zip(*fits)
    return Stage(terms, np.stack(tables), list(rounds), sum(capped), terms.cell_weights(codes, w))


def boost_terms(
    terms, codes, Y, target, w, base, bag, loss, settings, rows_per_cell=None
) -> tuple[np.ndarray, int, bool]:
    """One bag's tables (n_cells, K) of `terms` boosted from the raw scores `base` (n, K) of the rows of `codes`:
    (the tables, the rounds they took, whether max_rounds ended the boosting before early stopping did).
    Y: the target as (n, K) scores' targets (one-hot classes, 0/1, or y); target: the loss's own form of it;
    rows_per_cell: every row's count per cell (terms.cell_weights of ones), when known."""
    train, valid = bag.train, bag.valid
    codes_train, codes_valid = codes[train], codes[valid]
    K = Y.shape[1]
    # the training rows per cell (min_samples_leaf): all rows' counts less the validation rows' (the bag's two parts
    # split the rows; whole counts, so the difference is exact), one pass over the fewer rows
    if rows_per_cell is None:
        counts = terms.cell_weights(codes_train, np.ones(train.size))
    else:
        counts = rows_per_cell - terms.cell_weights(codes_valid, np.ones(valid.size))
    tables = np.zeros((terms.n_cells, K))
    widest = int(np.max(np.diff(terms.cell_start)))
    code = LOSS_CODES[type(loss)]
    layout = (terms.cells(codes_train), terms.shape, terms.cell_start, counts)
    rows = (Y[train], w[train], _state(loss, base[train]))
    held_out = (terms.cells(codes_valid), base[valid])  # F of the validation rows, moved by every step
    tree = (settings.learning_rate, settings.l2, settings.max_leaves, float(settings.min_samples_leaf), MIN_HESSIAN)
    buffers = (tables, *(np.zeros((COPIES, widest, K)) for _ in range(2)), np.zeros((widest, K)), np.zeros((widest, K)))

    def one_round():
        cyclic_round(code, layout, rows, held_out, tree, buffers)

    if valid.size == 0:
        for _ in range(settings.max_rounds):
            one_round()
        return tables, settings.max_rounds, False
    target_valid, w_valid = target[valid], w[valid]
    return _until_stopped(one_round, lambda: loss.mean_loss(target_valid, held_out[1], w_valid), tables, settings)


def _until_stopped(one_round, validation_loss, tables, settings) -> tuple[np.ndarray, int, bool]:
    """Rounds until the validation loss has not fallen by more than tol (relative) below its best for
    early_stopping_rounds rounds, or max_rounds: (the best round's tables, that round, whether max_rounds ended it)."""
    best, best_round, best_tables = validation_loss(), 0, tables.copy()
    for r in range(1, settings.max_rounds + 1):
        one_round()
        current = validation_loss()
        if current < best - settings.tol * abs(best):
            best, best_round = current, r
            best_tables[:] = tables
        elif r - best_round >= settings.early_stopping_rounds:
            return best_tables, best_round, False
    return best_tables, best_round, True


def _state(loss, raw: np.ndarray) -> np.ndarray:
    """The kernels' per-row state of raw scores F: F itself (squared error) or e^F (log-losses; the softmax's shifted
    by each row's largest score, which leaves p unchanged)."""
    code = LOSS_CODES[type(loss)]
    if code == SQUARED_ERROR:
        return np.array(raw, dtype=np.float64)
    if code == SOFTMAX:
        raw = raw - raw.max(axis=1, keepdims=True)
    return np.exp(raw)
