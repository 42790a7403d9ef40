"""Explainable boosting machines: generalized additive models with pairwise interactions (GA2M), fitted by bagged
cyclic gradient boosting of shallow trees per feature.

F(x) = intercept + sum_j f_j(x_j) + sum_{(a, b) in pairs} f_ab(x_a, x_b), each f a table over its feature's bins
(a pair's: over a grid of coarser bins), F the log-odds (binary), the class logits (softmax, K > 2) or the
prediction (squared error). The main effects are boosted first, cyclically (cyclic.py); FAST then ranks every pair
on what they left (interactions.py), and the strongest pairs are boosted the same way on top of them. Each of
outer_bags bags boosts on its own training part and stops on its own validation part; the model is the mean of the
bags' tables and keeps their standard deviation per bin (the bagging band). Every term is centred, its weighted
mean over the training rows 0, the intercept absorbing the means (so the intercept is the mean prediction); for
K > 2 each bin's values also sum to 0 over the classes (the softmax is unchanged by a shift shared by all classes).
The model is intelligible because each term can be plotted (shape_functions) and each prediction is the sum of its
terms' values (term_contributions); each term is also a small tree (tree_ensemble), so TreeSHAP explains it exactly.

References: Lou, Caruana & Gehrke, Intelligible models for classification and regression (KDD 2012); Lou, Caruana,
Gehrke & Hooker, Accurate intelligible models with pairwise interactions (KDD 2013); Caruana et al., Intelligible
models for healthcare (KDD 2015); Nori, Jenkins, Koch & Caruana, InterpretML (2019). The notes' additive model
f(x) = sum_i g_i(x_i) as ante-hoc interpretability: seed 000, lines 4342-4356; gradient boosting: seed 000, lines
3008-3028; seed 002, lines 1523-1549.

Sections cited:
- ML 1 lecture notes (seed 000): Approaches to interpretability (4342)
- ML 1 lecture notes (seed 000): Gradient Tree Boosting - conceptually (3008)
- Machine Learning lecture notes (seed 002): Gradient Boosting (1523)"""

from __future__ import annotations

import os
import warnings
from dataclasses import astuple

import numpy as np

from ..base import (
    BaseEstimator,
    ClassifierMixin,
    ConvergenceWarning,
    RegressorMixin,
    check_fitted_X,
    check_is_fitted,
    check_random_state,
    check_sample_weight,
    check_X_y,
)
from ..base.constraints import (
    NON_NEGATIVE,
    OPTIONAL,
    POSITIVE,
    RANDOM_STATE,
    Interval,
    check_hyperparameters,
    positive_int,
)
from ..gradient_boosting.binning import binned_blocks
from ..gradient_boosting.losses import BinomialLogLoss, HalfSquaredError, MultinomialLogLoss
from ..model_selection import early_stopping_split
from .bins import Bins, coarse_bins, main_bins
from .cyclic import BagRows, Boosting, Terms, boost_bags
from .interactions import rank_pairs
from .term_trees import fill_unreached, main_tree, pair_tree


class _BaseExplainableBoosting(BaseEstimator):
    _constraints = {
        "learning_rate": POSITIVE,
        "max_rounds": positive_int(),
        "early_stopping_rounds": positive_int(),
        "tol": NON_NEGATIVE,
        "max_leaves": positive_int(2),
        "min_samples_leaf": positive_int(),
        "l2_regularization": NON_NEGATIVE,
        "max_bins": positive_int(2, 255),  # bin codes are uint8
        "max_interaction_bins": positive_int(2, 64),  # FAST holds d x 64 x 64 cells per feature pass
        "interactions": Interval(True, 0, None),
        "max_interaction_features": positive_int(2),
        "outer_bags": positive_int(),
        "validation_fraction": Interval(False, 0, 1, "left"),
        "random_state": RANDOM_STATE,
        "n_jobs": [OPTIONAL, positive_int()],
    }

    def __init__(
        self,
        learning_rate: float = 0.15,
        max_rounds: int = 1000,
        early_stopping_rounds: int = 5,
        tol: float = 1e-5,
        max_leaves: int = 3,
        min_samples_leaf: int = 10,
        l2_regularization: float = 0.0,
        max_bins: int = 255,
        max_interaction_bins: int = 32,
        interactions: int = 30,
        max_interaction_features: int = 100,
        outer_bags: int = 4,
        validation_fraction: float = 0.15,
        random_state: int | None = 0,
        n_jobs: int | None = 1,
    ):
        self.learning_rate = learning_rate
        self.max_rounds = max_rounds
        self.early_stopping_rounds = early_stopping_rounds
        self.tol = tol
        self.max_leaves = max_leaves
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.max_bins = max_bins
        self.max_interaction_bins = max_interaction_bins
        self.interactions = interactions
        self.max_interaction_features = max_interaction_features
        self.outer_bags = outer_bags
        self.validation_fraction = validation_fraction
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ---- fit -------------------------------------------------------------------------------------------------

    def fit_blocks(self, blocks, groups=None):
        """The same model from rows held in blocks (mllib.base.RowBlocks, or a cluster's: a block is (X, y,
        sample_weight or None)): each feature's bins from its column gathered alone, the blocks binned where they are
        and their codes gathered here (n x p bytes; mllib.gradient_boosting.binning.binned_blocks), then fit's
        boosting on them: the same tables as fit on the rows put together. groups: each row's, in block order (the
        bags' early-stopping hold-outs take whole groups, as fit's)."""
        check_hyperparameters(self)
        thresholds, offsets, codes, y, w = binned_blocks(
            blocks, lambda columns: astuple(main_bins(columns, self.max_bins))
        )
        return self._fit_codes(Bins(thresholds, offsets), codes, y, w, groups)

    def _fit(self, X, y, w, groups=None):
        check_hyperparameters(self)
        bins = main_bins(X.T, self.max_bins)
        return self._fit_codes(bins, bins.codes(X), y, w, groups)

    def _fit_codes(self, bins, codes, y, w, groups=None):
        """The model from the rows' main bin codes (bins: their thresholds): everything fit does after binning."""
        target, Y, loss, stratify_by = self._target_and_loss(y)
        n, d = codes.shape
        self.n_features_in_ = d
        rng = check_random_state(self.random_state)
        settings = Boosting(
            float(self.learning_rate), int(self.max_rounds), int(self.early_stopping_rounds), float(self.tol),
            int(self.max_leaves), int(self.min_samples_leaf), float(self.l2_regularization),
        )  # fmt: skip
        bags = [self._bag_rows(n, stratify_by, rng, groups) for _ in range(self.outer_bags)]
        intercepts = np.array([loss.init_raw(target[bag.train], w[bag.train]) for bag in bags])

        threads = len(os.sched_getaffinity(0)) if self.n_jobs is None else int(self.n_jobs)

        def stage(terms, codes, bases):
            return boost_bags(terms, codes, Y, target, w, bases, bags, loss, settings, threads)

        # 1. the main effects, every bag from its own intercept
        mains = Terms.of([(j,) for j in range(d)], bins.n_bins)
        stages = [stage(mains, codes, (np.tile(intercept, (n, 1)) for intercept in intercepts))]

        def main_effects(intercept, tables):  # the raw scores (n, K) of an intercept and main effects' tables
            return mains.add_to(codes, tables, np.tile(intercept, (n, 1)))

        # 2. FAST ranks the pairs on the bags' mean main effects; the strongest are boosted on top of each bag's
        coarse, pairs, strengths = Bins.of_features([]), [], np.empty(0)
        n_pairs = min(int(self.interactions), d * (d - 1) // 2)
        if n_pairs:
            coarse, coarse_codes = coarse_bins(bins, codes, self.max_interaction_bins)
            mean_tables = stages[0].tables.mean(axis=0)
            raw = main_effects(intercepts.mean(axis=0), mean_tables)
            # FAST costs O(cells) per pair: beyond max_interaction_features columns only the pairs among the ones of
            # largest main effects are ranked (on 2,308 columns all 2.7 million pairs took minutes per fit)
            candidates = np.arange(d)
            if d > self.max_interaction_features:
                importance = [
                    np.average(np.abs(mean_tables[mains.cell_start[j] + codes[:, j]]).sum(axis=1), weights=w)
                    for j in range(d)
                ]
                candidates = np.sort(np.argsort(importance, kind="stable")[::-1][: self.max_interaction_features])
            pairs, strengths = rank_pairs(
                np.ascontiguousarray(coarse_codes[:, candidates]), coarse.n_bins[candidates], loss, target, raw, w,
                n_pairs, settings.min_samples_leaf, settings.l2,
            )  # fmt: skip
            pairs = [(int(candidates[a]), int(candidates[b])) for a, b in pairs]
        if pairs:
            bases = (main_effects(b0, tables) for b0, tables in zip(intercepts, stages[0].tables))
            stages.append(stage(Terms.of(pairs, coarse.n_bins), coarse_codes, bases))
        self._warn_if_capped([s.capped for s in stages])

        self.bin_edges_, self.bin_offsets_ = bins.thresholds, bins.offsets
        self.interaction_bin_edges_, self.interaction_bin_offsets_ = coarse.thresholds, coarse.offsets
        self.term_features_ = [(j,) for j in range(d)] + pairs
        self.interaction_strengths_ = strengths
        self.n_rounds_ = np.array([s.rounds for s in stages] + [[0] * len(bags)] * (2 - len(stages))).T
        self.term_weights_ = np.concatenate([s.weights for s in stages])
        cells = np.concatenate([np.diff(s.terms.cell_start) for s in stages])
        self.term_offsets_ = np.concatenate([[0], np.cumsum(cells)]).astype(np.int64)
        self._set_terms(np.concatenate([s.tables for s in stages], axis=1), intercepts)
        return self

    def _bag_rows(self, n, stratify_by, rng, groups=None) -> BagRows:
        """A bag's fitting and early-stopping rows: validation_fraction of them held out, stratified for classes,
        whole groups when fit is given groups (a group's rows never judge a model fitted on its other rows; too few
        groups may hold none out, and the bag then boosts to max_rounds, which the fit's warning says)."""
        if self.validation_fraction == 0:
            return BagRows(np.arange(n), np.empty(0, dtype=np.int64))
        train, valid = early_stopping_split(
            n, y=stratify_by, groups=groups, validation_fraction=self.validation_fraction, random_state=rng
        )
        return BagRows(train, valid)

    def _warn_if_capped(self, capped):
        stages = [f"{c} of {self.outer_bags} bags ({name})" for c, name in zip(capped, ("main effects", "pairs")) if c]
        if stages:
            warnings.warn(
                f"{type(self).__name__}(learning_rate={self.learning_rate}) stopped at max_rounds={self.max_rounds} "
                f"before early stopping in {' and '.join(stages)}; increase max_rounds or learning_rate",
                ConvergenceWarning,
                stacklevel=4,
            )

    def _set_terms(self, tables, intercepts):
        """The bags' tables (bags, cells, K) and intercepts (bags, K) as the fitted terms: unreached cells filled, each
        term centred in every bag, then the mean and the standard deviation over the bags."""
        tables, intercepts = tables.copy(), intercepts.copy()
        for t in range(len(self.term_features_)):
            cells = slice(self.term_offsets_[t], self.term_offsets_[t + 1])
            weights = self.term_weights_[cells]
            tables[:, cells] = self._fill(t, tables[:, cells], weights)
            means = np.einsum("c,bck->bk", weights, tables[:, cells]) / weights.sum()
            tables[:, cells] -= means[:, None, :]
            intercepts += means
        K = intercepts.shape[1]
        if K > 1:
            tables -= tables.mean(axis=2, keepdims=True)
            intercepts -= intercepts.mean(axis=1, keepdims=True)
        scores, stds = tables.mean(axis=0), tables.std(axis=0)
        self.term_scores_, self.term_stds_ = (scores[:, 0], stds[:, 0]) if K == 1 else (scores, stds)
        self.intercept_ = float(intercepts.mean(axis=0)[0]) if K == 1 else intercepts.mean(axis=0)
        # mean |value| over the training rows (and classes): every term's cells hold all of the rows' weight
        weighted = np.abs(scores).mean(axis=1) * self.term_weights_
        total = self.term_weights_[: self.term_offsets_[1]].sum()
        self.term_importances_ = np.add.reduceat(weighted, self.term_offsets_[:-1]) / total

    def _fill(self, t, tables, weights):
        """A term's tables (bags, cells, K) with every cell no training row reaches given a neighbour's value."""
        features = self.term_features_[t]
        if len(features) == 1:
            return fill_unreached(tables, weights)
        n_a, n_b = self._shape(features)
        grid, grid_weights = tables.reshape(-1, n_a, n_b, tables.shape[2]), weights.reshape(n_a, n_b)
        for a in np.flatnonzero(grid_weights.sum(axis=1) > 0):
            grid[:, a] = fill_unreached(grid[:, a], grid_weights[a])
        grid = fill_unreached(grid.reshape(-1, n_a, n_b * tables.shape[2]), grid_weights.sum(axis=1))
        return grid.reshape(tables.shape)

    # ---- the fitted terms ------------------------------------------------------------------------------------

    def _bins(self, pair: bool) -> Bins:
        if pair:
            return Bins(self.interaction_bin_edges_, self.interaction_bin_offsets_)
        return Bins(self.bin_edges_, self.bin_offsets_)

    def _shape(self, features) -> tuple[int, ...]:
        n_bins = self._bins(len(features) == 2).n_bins
        return tuple(int(n_bins[j]) for j in features)

    def _contributions(self, X, table=None) -> np.ndarray:
        """(n, n_terms, K): each row's value of each term, read from `table` (default term_scores_; term_stds_ for
        the bagging bands)."""
        X = check_fitted_X(self, X)
        codes = {False: self._bins(False).codes(X)}
        if len(self.term_features_) > self.n_features_in_:
            codes[True] = self._bins(True).codes(X)
        table = self.term_scores_ if table is None else table
        scores = table.reshape(table.shape[0], -1)
        out = np.empty((X.shape[0], len(self.term_features_), scores.shape[1]))
        for t, features in enumerate(self.term_features_):
            own = codes[len(features) == 2]
            cells = own[:, features[0]].astype(np.int64)
            if len(features) == 2:
                cells = cells * self._shape(features)[1] + own[:, features[1]]
            out[:, t] = scores[self.term_offsets_[t] + cells]
        return out

    def _raw_predict(self, X) -> np.ndarray:
        """(n, K) raw scores: the intercept plus the sum of the terms (exactly what term_contributions adds up)."""
        contributions = self._contributions(X)  # first: it checks that the model is fitted
        return np.atleast_1d(self.intercept_) + contributions.sum(axis=1)

    def term_contributions(self, X) -> np.ndarray:
        """Each row's value of each term, (n, n_terms) ((n, n_terms, K) for K > 2 classes): intercept_ plus their sum
        over terms is exactly decision_function (classifier) or predict (regressor)."""
        out = self._contributions(X)
        return out[:, :, 0] if out.shape[2] == 1 else out

    def term_bands(self, X) -> np.ndarray:
        """Each row's bagging band of each term: the standard deviation over the outer bags of the term's value in the
        row's bin (shaped as term_contributions)."""
        out = self._contributions(X, self.term_stds_)
        return out[:, :, 0] if out.shape[2] == 1 else out

    def shape_functions(self) -> list[dict]:
        """Per term, in term_features_ order, plain arrays to plot: "features" (the column(s) of X), "edges" (per
        feature, its bin thresholds in the units of X: bin k holds edges[k - 1] < x <= edges[k]), "values" (the
        term's value per bin; (n_bins,) for a main effect, (n_a, n_b) for a pair, a trailing K axis for K > 2
        classes), "std" (the bagging band: the values' standard deviation over the outer bags, same shape) and
        "weight" (the training rows' weight per bin, same shape without K)."""
        check_is_fitted(self)
        out = []
        for t, features in enumerate(self.term_features_):
            cells = slice(self.term_offsets_[t], self.term_offsets_[t + 1])
            shape = self._shape(features)
            bins = self._bins(len(features) == 2)
            out.append(
                dict(
                    features=tuple(features),
                    edges=tuple(bins.of(j).copy() for j in features),
                    values=self.term_scores_[cells].reshape(shape + self.term_scores_.shape[1:]),
                    std=self.term_stds_[cells].reshape(shape + self.term_stds_.shape[1:]),
                    weight=self.term_weights_[cells].reshape(shape),
                )
            )
        return out

    def tree_ensemble(self) -> dict:
        """The model in the shared tree protocol (for TreeSHAP): one tree per term, its leaves the term's values
        (n_nodes, K), thresholds in the units of X (go LEFT when x[feature] <= threshold), cover the training rows'
        weight reaching each node (the row count without sample weights); offset = intercept_, scale 1. Read
        naively it gives decision_function (classifier) or predict (regressor)."""
        check_is_fitted(self)
        trees = []
        for shape in self.shape_functions():
            values = shape["values"].reshape(shape["weight"].shape + (-1,))
            if len(shape["features"]) == 1:
                trees.append(main_tree(shape["features"][0], shape["edges"][0], values, shape["weight"]))
            else:
                trees.append(pair_tree(shape["features"], shape["edges"], values, shape["weight"]))
        return dict(
            trees=trees, scale=np.ones(len(trees)), offset=np.atleast_1d(self.intercept_).copy(),
            output=self._ensemble_output,
        )  # fmt: skip


class ExplainableBoostingClassifier(ClassifierMixin, _BaseExplainableBoosting):
    """Explainable boosting machine for classes: log-loss on the log-odds (binary) or the softmax of K class scores
    (K > 2), each term a table of per-class values for K > 2.

    Parameters
    ----------
    learning_rate : float, default 0.15
        Shrinkage of every Newton step.
    max_rounds : int, default 1000
        Cap on the cyclic rounds (each a step for every term) per bag and stage; reaching it before early stopping
        warns (ConvergenceWarning).
    early_stopping_rounds : int, default 5
        Rounds without an improvement of the validation loss before a bag's stage stops (the best round is kept).
    tol : float, default 1e-05
        Smallest relative fall of the validation loss that counts as an improvement.
    max_leaves : int, default 3
        Leaves of each main effect's step tree.
    min_samples_leaf : int, default 10
        Training rows per leaf of every step's tree (and per quadrant of FAST's pair ranking).
    l2_regularization : float, default 0.0
        lambda in the Newton step -G / (H + lambda).
    max_bins : int, default 255
        Bins per feature of the main effects (2..255).
    max_interaction_bins : int, default 32
        Bins per feature of the pairs (2..64).
    interactions : int, default 30
        Pairs ranked by FAST and boosted after the main effects (0: none). 30 rather than 10: on the default data's
        grouped folds the cross-validated AUC rose by 0.0029 (standard error 0.0006) for 7% more CPU, on the
        corpus's churn and hotel files by 0.005 and 0.022 (benchmarks/results/additive_corpus.md, "Pairs").
    max_interaction_features : int, default 100
        FAST ranks every pair of at most this many features; of more, the pairs among this many of the largest main
        effects (mean |value| over the training rows), since ranking d (d - 1) / 2 pairs costs O(d^2) histograms.
    outer_bags : int, default 4
        Bags, each with its own training / validation split; the model is their mean.
    validation_fraction : float, default 0.15
        Share of a bag's rows held out to stop it (stratified by class for a classifier); 0: no early stopping, every
        bag boosts all rows for max_rounds rounds (the bags are then identical).
    random_state : int, Generator or None, default 0
        Seeds the bags' splits.
    n_jobs : int or None, default 1
        Threads boosting the bags side by side (at most outer_bags are used; None: the cores this process may run
        on). The fitted model is the same for any n_jobs.

    Attributes
    ----------
    intercept_ : float or ndarray of shape (K,)
        A float; (K,) for K > 2.
    term_features_ : list of tuple
        Each term's column indices: the d main effects then the pairs.
    term_scores_ : ndarray of shape (n_cells,) or (n_cells, K)
        Every term's values per bin, concatenated: term t's are rows term_offsets_[t]:term_offsets_[t + 1], flattened
        row-major for a pair.
    term_stds_ : ndarray of shape (n_cells,) or (n_cells, K)
        Every term's bagging band per bin, laid out as term_scores_.
    term_weights_ : ndarray
        The training rows' weight per bin.
    term_importances_ : ndarray
        The mean |value| over the training rows per term.
    bin_edges_ : ndarray
        The main bins' thresholds in the units of X, every feature's concatenated.
    bin_offsets_ : ndarray
        Feature j's thresholds are bin_edges_[bin_offsets_[j]:bin_offsets_[j + 1]].
    interaction_bin_edges_ : ndarray
        The pairs' coarser bins' thresholds, as bin_edges_.
    interaction_bin_offsets_ : ndarray
        Their offsets, as bin_offsets_.
    interaction_strengths_ : ndarray
        FAST's gain of each chosen pair.
    n_rounds_ : ndarray of shape (outer_bags, 2)
        The rounds each bag kept, main effects and pairs.
    """

    _ensemble_output = property(lambda self: "log_odds" if self.classes_.size == 2 else "logits")

    def fit(self, X, y, sample_weight=None, groups=None):
        """groups: each row's group (optional): the bags' early-stopping hold-outs take whole groups."""
        X, y = check_X_y(X, y)
        return self._fit(X, y, check_sample_weight(sample_weight, X.shape[0]), groups)

    def _target_and_loss(self, y):
        """(the loss's target, (n, K) targets of the scores, the loss, the codes to stratify by)."""
        codes = self._encode_targets(y)
        K = self.classes_.size
        if K == 2:
            target = codes.astype(np.float64)
            return target, target[:, None], BinomialLogLoss(), codes
        return codes, np.eye(K)[codes], MultinomialLogLoss(K), codes

    def decision_function(self, X):
        """The log-odds (n,) (binary) or the class scores (n, K)."""
        raw = self._raw_predict(X)
        return raw[:, 0] if self.classes_.size == 2 else raw

    def predict_proba(self, X):
        raw = self._raw_predict(X)
        return (BinomialLogLoss if self.classes_.size == 2 else MultinomialLogLoss).proba(raw)


class ExplainableBoostingRegressor(RegressorMixin, _BaseExplainableBoosting):
    """Explainable boosting machine for a real target: squared error, each term a table of additions to the
    prediction. Its fitted attributes are ExplainableBoostingClassifier's (the Attributes section there), with
    intercept_ a float and term_scores_ / term_stds_ of shape (n_cells,).

    Parameters
    ----------
    learning_rate : float, default 0.15
        Shrinkage of every Newton step.
    max_rounds : int, default 1000
        Cap on the cyclic rounds (each a step for every term) per bag and stage; reaching it before early stopping
        warns (ConvergenceWarning).
    early_stopping_rounds : int, default 5
        Rounds without an improvement of the validation loss before a bag's stage stops (the best round is kept).
    tol : float, default 1e-05
        Smallest relative fall of the validation loss that counts as an improvement.
    max_leaves : int, default 3
        Leaves of each main effect's step tree.
    min_samples_leaf : int, default 10
        Training rows per leaf of every step's tree (and per quadrant of FAST's pair ranking).
    l2_regularization : float, default 0.0
        lambda in the Newton step -G / (H + lambda).
    max_bins : int, default 255
        Bins per feature of the main effects (2..255).
    max_interaction_bins : int, default 32
        Bins per feature of the pairs (2..64).
    interactions : int, default 30
        Pairs ranked by FAST and boosted after the main effects (0: none). 30 rather than 10: on the default data's
        grouped folds the cross-validated AUC rose by 0.0029 (standard error 0.0006) for 7% more CPU, on the
        corpus's churn and hotel files by 0.005 and 0.022 (benchmarks/results/additive_corpus.md, "Pairs").
    max_interaction_features : int, default 100
        FAST ranks every pair of at most this many features; of more, the pairs among this many of the largest main
        effects (mean |value| over the training rows), since ranking d (d - 1) / 2 pairs costs O(d^2) histograms.
    outer_bags : int, default 4
        Bags, each with its own training / validation split; the model is their mean.
    validation_fraction : float, default 0.15
        Share of a bag's rows held out to stop it (stratified by class for a classifier); 0: no early stopping, every
        bag boosts all rows for max_rounds rounds (the bags are then identical).
    random_state : int, Generator or None, default 0
        Seeds the bags' splits.
    n_jobs : int or None, default 1
        Threads boosting the bags side by side (at most outer_bags are used; None: the cores this process may run
        on). The fitted model is the same for any n_jobs.
    """

    _ensemble_output = "raw"

    def fit(self, X, y, sample_weight=None, groups=None):
        """groups: each row's group (optional): the bags' early-stopping hold-outs take whole groups."""
        X, y = check_X_y(X, y, y_numeric=True)
        return self._fit(X, y, check_sample_weight(sample_weight, X.shape[0]), groups)

    @staticmethod
    def _target_and_loss(y):
        target = np.asarray(y, dtype=np.float64)
        return target, target[:, None], HalfSquaredError(), None

    def predict(self, X):
        return self._raw_predict(X)[:, 0]
