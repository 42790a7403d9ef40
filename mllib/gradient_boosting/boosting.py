"""Gradient tree boosting with histogram split finding (seed 000, lines 3008-3028; seed 002, lines 1523-1549).

F_0 = the loss's best constant (prior log-odds, centred log class shares, or the mean);
F_m = F_{m-1} + learning_rate * h_m, where h_m is a regression tree fitted to the gradient g and hessian h of the
loss at F_{m-1}: its leaves take the Newton step -sum g / (sum h + l2_regularization) (second-order boosting,
as XGBoost / LightGBM; for squared error this is the mean residual of the leaf, the lecture's residual fit).
Multinomial log-loss fits K trees per iteration, one per class score. Seed 002's erratum 2 (line 1534): the
expansion steps along the NEGATIVE gradient. Row subsampling (stochastic gradient boosting) and early stopping
on a held-out validation fraction are the recommended extras (seed 000 catalogue I7).

Features are binned once at fit (binning.py); trees are stored as raw-unit thresholds, so prediction needs no
bins: all trees are concatenated flat node arrays with per-tree offsets, `tree_offsets_`.

Sections cited:
- ML 1 lecture notes (seed 000): Gradient Tree Boosting - conceptually (3008)
- Machine Learning lecture notes (seed 002): Gradient Boosting (1523)"""

from __future__ import annotations

import warnings
from functools import partial

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
    BOOLEAN,
    NON_NEGATIVE,
    OPTIONAL,
    POSITIVE,
    RANDOM_STATE,
    Interval,
    check_hyperparameters,
    positive_int,
)
from ..model_selection import early_stopping_split
from ._kernels import add_leaf_values, predict_binned, predict_trees
from .binning import bin_features, binned_blocks, find_bin_thresholds
from .grower import TreeGrower
from .losses import BinomialLogLoss, HalfSquaredError, MultinomialLogLoss


class _BaseGradientBoosting(BaseEstimator):
    """Shared fitting loop. Hyperparameters (names as in scikit-learn's HistGradientBoosting):

    learning_rate: shrinkage of every leaf value; max_iter: boosting iterations (K trees each for K > 2 classes);
    max_leaf_nodes / max_depth: tree size (None = unlimited); min_samples_leaf: rows per leaf;
    l2_regularization: lambda in the Newton step -G / (H + lambda); max_bins: bins per feature (2..255);
    subsample: fraction of training rows drawn without replacement for each iteration's trees;
    early_stopping: hold out validation_fraction of the rows (stratified for classifiers; whole groups when fit is given
    groups, so a group's rows never judge a model fitted on its other rows) and stop when the validation loss has not
    improved by more than tol on the loss of n_iter_no_change iterations before;
    random_state: seeds the subsamples and the validation split.
    """

    _constraints = {
        "max_iter": positive_int(),
        "max_leaf_nodes": [OPTIONAL, positive_int(2)],
        "max_depth": [OPTIONAL, positive_int()],
        "min_samples_leaf": positive_int(),
        "max_bins": positive_int(2, 255),  # bin codes are uint8
        "n_iter_no_change": positive_int(),
        "learning_rate": POSITIVE,
        "l2_regularization": NON_NEGATIVE,
        "early_stopping": BOOLEAN,
        "random_state": RANDOM_STATE,
        "subsample": Interval(False, 0, 1, "right"),
        "validation_fraction": Interval(False, 0, 1, "neither"),
        "tol": NON_NEGATIVE,
    }

    def __init__(
        self,
        learning_rate: float = 0.1,
        max_iter: int = 100,
        max_leaf_nodes: int | None = 31,
        max_depth: int | None = None,
        min_samples_leaf: int = 20,
        l2_regularization: float = 0.0,
        max_bins: int = 255,
        subsample: float = 1.0,
        early_stopping: bool = False,
        validation_fraction: float = 0.1,
        n_iter_no_change: int = 10,
        tol: float = 1e-7,
        random_state: int | None = 0,
    ):
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.max_bins = max_bins
        self.subsample = subsample
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.random_state = random_state

    def _fit(self, X, target, loss, stratify_by, w, groups=None):
        check_hyperparameters(self)
        self.n_features_in_ = X.shape[1]
        self.bin_thresholds_, self.bin_offsets_ = find_bin_thresholds(X.T, self.max_bins)
        binned = bin_features(X, self.bin_thresholds_, self.bin_offsets_)
        return self._boost(binned, target, w, loss, check_random_state(self.random_state), stratify_by, groups)

    def _fit_blocks(self, blocks, prepare_target, groups=None):
        """fit from rows held in blocks (mllib.base.RowBlocks, or a cluster's: a block is (X, y, sample_weight or
        None)): the blocks binned where they are by fit's rule and their codes gathered here (binning.binned_blocks),
        then fit's boosting loop on them: the same trees as fit on the rows put together (groups: each row's, in block
        order, as fit takes them)."""
        check_hyperparameters(self)
        thresholds, offsets, binned, y, w = binned_blocks(blocks, partial(find_bin_thresholds, max_bins=self.max_bins))
        self.bin_thresholds_, self.bin_offsets_, self.n_features_in_ = thresholds, offsets, binned.shape[1]
        target, loss, stratify_by = prepare_target(y)
        del y  # the boosting loop holds n x p bytes and a few n-vectors, not this copy as well
        return self._boost(binned, target, w, loss, check_random_state(self.random_state), stratify_by, groups)

    def _boost(self, binned, target, w, loss, rng, stratify_by=None, groups=None):
        """The boosting loop on the rows' bin codes (the bins are found on every row: they read no label). With
        early_stopping, validation_fraction of the rows (stratified by stratify_by, whole groups when given) is held
        out of the trees and scores each iteration's loss."""
        n_bins = np.diff(self.bin_offsets_) + 1
        stopping = self.early_stopping
        if stopping:
            train, valid = early_stopping_split(
                binned.shape[0],
                y=stratify_by,
                groups=groups,
                validation_fraction=self.validation_fraction,
                random_state=rng,
            )
            stopping = valid.size > 0  # a few groups may leave no hold-out: then every iteration is boosted (said)
            binned_val, target_val, w_val = binned[valid], target[valid], w[valid]
            binned, target, w = binned[train], target[train], w[train]
        n, K = binned.shape[0], loss.n_outputs
        self.baseline_ = loss.init_raw(target, w)
        raw = np.empty((n, K), order="F")  # column k contiguous: class k's trees update it in place
        raw[:] = self.baseline_
        train_scores = [-loss.mean_loss(target, raw, w)]
        if stopping:
            raw_val = np.empty((binned_val.shape[0], K), order="F")
            raw_val[:] = self.baseline_
            valid_scores = [-loss.mean_loss(target_val, raw_val, w_val)]
        grower = TreeGrower(
            binned,
            n_bins,
            self.max_leaf_nodes,
            self.max_depth,
            self.min_samples_leaf,
            float(self.l2_regularization),
            float(self.learning_rate),
        )
        n_sub = max(1, int(round(self.subsample * n)))
        trees = []
        for _ in range(self.max_iter):
            g, h = loss.gradient_hessian(target, raw, w)
            sample = np.sort(rng.choice(n, size=n_sub, replace=False)) if n_sub < n else None
            for k in range(K):
                rows = np.arange(n) if sample is None else sample.copy()
                tree, leaf_start, leaf_stop = grower.grow(
                    rows, np.ascontiguousarray(g[:, k]), np.ascontiguousarray(h[:, k])
                )
                leaves = tree.feature < 0
                if sample is None:
                    add_leaf_values(rows, leaf_start, leaf_stop, tree.value[leaves], raw[:, k])
                else:
                    predict_binned(binned, tree.feature, tree.split_bin, tree.left, tree.right, tree.value, raw[:, k])
                if stopping:
                    predict_binned(
                        binned_val, tree.feature, tree.split_bin, tree.left, tree.right, tree.value, raw_val[:, k]
                    )
                trees.append(tree)
            del g, h, rows  # not alive while the next iteration's are made: three n-vectors off the peak
            train_scores.append(-loss.mean_loss(target, raw, w))
            if stopping:
                valid_scores.append(-loss.mean_loss(target_val, raw_val, w_val))
                if self._should_stop(valid_scores):
                    break
        for name, array in self._flatten(trees).items():
            setattr(self, name, array)
        self.n_iter_ = len(trees) // K
        self.n_trees_per_iteration_ = K
        self.train_score_ = np.array(train_scores)
        self.validation_score_ = np.array(valid_scores) if stopping else np.empty(0)
        ran_out = self.n_iter_ == self.max_iter and not (stopping and self._should_stop(valid_scores))
        if self.early_stopping and ran_out:
            self._not_stopped(stopping, valid.size + train.size, groups)
        return self

    def _not_stopped(self, held_out: bool, n: int, groups) -> None:
        """Early stopping asked for, but boosting ran to max_iter: the validation loss was still improving, or no
        validation part could be held out (too few rows or groups)."""
        why = (
            "the validation loss was still improving"
            if held_out
            else f"the {n} rows" + ("" if groups is None else f" in {np.unique(groups).size} groups") + " leave no "
            f"validation part at validation_fraction={self.validation_fraction}"
        )
        warnings.warn(
            f"{type(self).__name__}: early stopping did not stop before max_iter={self.max_iter} ({why}); increase "
            "max_iter or learning_rate",
            ConvergenceWarning,
            stacklevel=4,
        )

    def _should_stop(self, scores):
        """Scores are -loss (higher is better): stop when none of the last n_iter_no_change scores beats the
        score just before them by more than tol."""
        if len(scores) <= self.n_iter_no_change:
            return False
        reference = scores[-self.n_iter_no_change - 1] + self.tol
        return not any(s > reference for s in scores[-self.n_iter_no_change :])

    def _flatten(self, trees) -> dict:
        """Trees as concatenated node arrays (tree-local child ids) with per-tree offsets, thresholds in raw units."""
        flat = {"tree_offsets_": np.concatenate([[0], np.cumsum([t.feature.size for t in trees])]).astype(np.int64)}
        for name in ("feature", "left", "right", "value", "cover"):
            flat[f"node_{name}_"] = np.concatenate([getattr(t, name) for t in trees])
        feature, split_bin = flat["node_feature_"], np.concatenate([t.split_bin for t in trees])
        internal = feature >= 0
        flat["node_threshold_"] = np.full(feature.size, np.nan)
        flat["node_threshold_"][internal] = self.bin_thresholds_[
            self.bin_offsets_[feature[internal]] + split_bin[internal]
        ]
        return flat

    def _raw_predict(self, X, staged=False):
        """The raw prediction F(X) of the whole ensemble, or (staged) a generator of F_m(X), m = 1..n_iter_."""
        X = check_fitted_X(self, X)
        raw = np.empty((X.shape[0], self.n_trees_per_iteration_))
        raw[:] = self.baseline_
        K = self.n_trees_per_iteration_
        arrays = (
            self.node_feature_,
            self.node_threshold_,
            self.node_left_,
            self.node_right_,
            self.node_value_,
            self.tree_offsets_,
        )
        if not staged:
            predict_trees(X, *arrays, 0, self.tree_offsets_.size - 1, raw)
            return raw
        return self._stages(X, arrays, raw, K)

    def _stages(self, X, arrays, raw, K):
        for m in range(self.n_iter_):
            predict_trees(X, *arrays, m * K, (m + 1) * K, raw)
            yield raw.copy()

    def tree_ensemble(self) -> dict:
        """The fitted trees in the shared tree protocol (for TreeSHAP): the raw prediction is
        offset + sum over trees of scale[t] * value[leaf(x), :]. Per tree: feature (-1 at leaves), threshold
        (go LEFT when x[feature] <= threshold; nan at leaves), left / right (tree-local node ids, -1 at leaves),
        value (n_nodes, n_outputs): leaf values already multiplied by the learning rate, internal nodes the
        cover-weighted mean of their leaves; a multiclass tree of class k fills column k and leaves zeros
        elsewhere; cover (n_nodes,): the NUMBER OF ROWS reaching the node when the tree was grown (training rows
        minus the early-stopping hold-out, of the iteration's subsample; not the hessian sum)."""
        check_is_fitted(self)
        K = self.n_trees_per_iteration_
        trees = []
        for t in range(self.tree_offsets_.size - 1):
            nodes = slice(self.tree_offsets_[t], self.tree_offsets_[t + 1])
            value = np.zeros((nodes.stop - nodes.start, K))
            value[:, t % K] = self.node_value_[nodes]
            trees.append(
                dict(
                    feature=self.node_feature_[nodes].copy(),
                    threshold=self.node_threshold_[nodes].copy(),
                    left=self.node_left_[nodes].copy(),
                    right=self.node_right_[nodes].copy(),
                    value=value,
                    cover=self.node_cover_[nodes].copy(),
                )
            )
        return dict(trees=trees, scale=np.ones(len(trees)), offset=self.baseline_.copy(), output=self._ensemble_output)


class GradientBoostingClassifier(ClassifierMixin, _BaseGradientBoosting):
    """Log-loss gradient boosting: binary (one tree per iteration on the log-odds) or multinomial (K trees per
    iteration on the class scores, softmax). train_score_ / validation_score_: -mean log-loss after each
    iteration (entry 0 = F_0); validation_score_ is empty without early stopping.

    Parameters
    ----------
    learning_rate : float, default 0.1
        Shrinkage of every leaf value.
    max_iter : int, default 100
        Boosting iterations (K trees each for K > 2 classes).
    max_leaf_nodes : int or None, default 31
        Leaves per tree (None: unlimited).
    max_depth : int or None, default None
        Depth per tree (None: unlimited).
    min_samples_leaf : int, default 20
        Rows per leaf.
    l2_regularization : float, default 0.0
        lambda in the leaf's Newton step -G / (H + lambda).
    max_bins : int, default 255
        Bins per feature (2..255).
    subsample : float, default 1.0
        Fraction of the training rows drawn without replacement for each iteration's trees (stochastic gradient
        boosting).
    early_stopping : bool, default False
        Hold out validation_fraction of the rows (stratified for classifiers) and stop when the validation loss has not
        improved by more than tol on the loss of n_iter_no_change iterations before.
    validation_fraction : float, default 0.1
        Share of the rows held out for early stopping.
    n_iter_no_change : int, default 10
        Iterations without improvement before early stopping.
    tol : float, default 1e-07
        Smallest improvement of the validation loss that counts.
    random_state : int, Generator or None, default 0
        Seeds the subsamples and the validation split.
    """

    def fit(self, X, y, sample_weight=None, groups=None):
        """groups: each row's group (optional): the early-stopping hold-out takes whole groups."""
        X, y = check_X_y(X, y)
        w = check_sample_weight(sample_weight, X.shape[0])
        return self._fit(X, *self._target_and_loss(y), w=w, groups=groups)

    def fit_blocks(self, blocks, groups=None):
        """fit from rows held in blocks (a block is (X, y, sample_weight or None)); groups: each row's, in block
        order (the early-stopping hold-out takes whole groups)."""
        return self._fit_blocks(blocks, self._target_and_loss, groups)

    def _target_and_loss(self, y):
        """(the loss's target: 0/1 or class codes, the loss, the codes to stratify by)."""
        codes = self._encode_targets(y)
        if self.classes_.size == 2:
            return codes.astype(np.float64), BinomialLogLoss(), codes
        return codes, MultinomialLogLoss(self.classes_.size), codes

    @property
    def _ensemble_output(self):
        return "log_odds" if self.classes_.size == 2 else "logits"

    def _proba(self, raw):
        return (BinomialLogLoss if self.classes_.size == 2 else MultinomialLogLoss).proba(raw)

    def decision_function(self, X):
        """Binary: the log-odds F(x) (n,); multiclass: the class scores (n, K)."""
        raw = self._raw_predict(X)
        return raw[:, 0] if self.classes_.size == 2 else raw

    def predict_proba(self, X):
        return self._proba(self._raw_predict(X))

    def staged_predict_proba(self, X):
        for raw in self._raw_predict(X, staged=True):
            yield self._proba(raw)

    def staged_predict(self, X):
        for proba in self.staged_predict_proba(X):
            yield self.classes_[np.argmax(proba, axis=1)]


class GradientBoostingRegressor(RegressorMixin, _BaseGradientBoosting):
    """Squared-error gradient boosting (each tree fits the residuals y - F, seed 000 lines 3008-3028).
    train_score_ / validation_score_: -mean half squared error after each iteration (entry 0 = F_0 = mean y).

    Parameters
    ----------
    learning_rate : float, default 0.1
        Shrinkage of every leaf value.
    max_iter : int, default 100
        Boosting iterations (K trees each for K > 2 classes).
    max_leaf_nodes : int or None, default 31
        Leaves per tree (None: unlimited).
    max_depth : int or None, default None
        Depth per tree (None: unlimited).
    min_samples_leaf : int, default 20
        Rows per leaf.
    l2_regularization : float, default 0.0
        lambda in the leaf's Newton step -G / (H + lambda).
    max_bins : int, default 255
        Bins per feature (2..255).
    subsample : float, default 1.0
        Fraction of the training rows drawn without replacement for each iteration's trees (stochastic gradient
        boosting).
    early_stopping : bool, default False
        Hold out validation_fraction of the rows (stratified for classifiers) and stop when the validation loss has not
        improved by more than tol on the loss of n_iter_no_change iterations before.
    validation_fraction : float, default 0.1
        Share of the rows held out for early stopping.
    n_iter_no_change : int, default 10
        Iterations without improvement before early stopping.
    tol : float, default 1e-07
        Smallest improvement of the validation loss that counts.
    random_state : int, Generator or None, default 0
        Seeds the subsamples and the validation split.
    """

    _ensemble_output = "raw"

    def fit(self, X, y, sample_weight=None, groups=None):
        """groups: each row's group (optional): the early-stopping hold-out takes whole groups."""
        X, y = check_X_y(X, y, y_numeric=True)
        w = check_sample_weight(sample_weight, X.shape[0])
        return self._fit(X, *self._target_and_loss(y), w=w, groups=groups)

    def fit_blocks(self, blocks, groups=None):
        """fit from rows held in blocks (a block is (X, y, sample_weight or None)); groups: each row's, in block
        order (the early-stopping hold-out takes whole groups)."""
        return self._fit_blocks(blocks, self._target_and_loss, groups)

    @staticmethod
    def _target_and_loss(y):
        return np.asarray(y, dtype=np.float64), HalfSquaredError(), None

    def predict(self, X):
        return self._raw_predict(X)[:, 0]

    def staged_predict(self, X):
        for raw in self._raw_predict(X, staged=True):
            yield raw[:, 0]
