"""CART decision trees: greedy recursive binary splitting on single features (seed 000, lines 2566-2705; seed 002,
lines 1551-1629; catalogue 000 I1-I2).

At each node, over candidate features j and thresholds s, R1 = {x_j <= s}, R2 = {x_j > s}; choose the split with
the largest impurity decrease i(t) - (w_1/w_t) i(R1) - (w_2/w_t) i(R2) (criteria in criteria.py). Thresholds lie at
midpoints between consecutive sorted distinct values (splitter="best") or at histogram bin edges
(splitter="hist"). A leaf predicts its class frequencies (classifier) or its mean (regressor).
Growth stops at max_depth, below min_samples_split rows, at pure nodes, when every split would leave fewer than
min_samples_leaf rows in a child, or when the best weighted decrease (w_t / w_total) * decrease is below
min_impurity_decrease. ccp_alpha > 0 then prunes by minimal cost complexity (pruning.py).

The fitted tree is a set of flat arrays indexed by node (pre-order, node 0 = root): feature_ (-1 at leaves),
threshold_ (a row goes LEFT when x[feature] <= threshold), children_left_ / children_right_ (-1 at leaves),
value_ (n_nodes, n_outputs): class probabilities or means; for internal nodes the cover-weighted mean of their
leaves), weighted_n_node_samples_ (the cover), n_node_samples_ and impurity_.

Sections cited:
- ML 1 lecture notes (seed 000): Lecture 10: Decision Trees and Random Forests (2566)
- Machine Learning lecture notes (seed 002): Decision Trees (1551); Growing the decision tree (1596)"""

from __future__ import annotations

import numpy as np

from ..base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    check_fitted_X,
    check_is_fitted,
    check_random_state,
    check_sample_weight,
    check_X_y,
    clone,
)
from ..base.constraints import (
    NON_NEGATIVE,
    OPTIONAL,
    RANDOM_STATE,
    Interval,
    Options,
    check_hyperparameters,
    positive_int,
)
from . import _kernels as K
from . import _split_search as S
from ._traversal import apply as apply_tree
from ._traversal import fill_internal_values
from .binning import bin_features
from .criteria import CLASSIFICATION_CRITERIA, REGRESSION_CRITERIA
from .pruning import prune, pruning_path

_CRITERION_CODES = {
    "gini": S.GINI,
    "entropy": S.ENTROPY,
    "squared_error": S.SQUARED_ERROR,
    "misclassification": S.MISCLASSIFICATION,
    "realboost_z": S.REALBOOST_Z,
}
SPLITTERS = ("best", "hist")
_NO_DEPTH_LIMIT = np.iinfo(np.int64).max


# what trees and forests may be given to grow by (checked by check_hyperparameters at fit)
MAX_FEATURES = [positive_int(), Interval(False, 0, 1, "right"), Options(("sqrt", "log2", None))]
GROWTH_CONSTRAINTS = {
    "splitter": Options(SPLITTERS),
    "max_depth": [positive_int(0), OPTIONAL],
    "min_samples_split": positive_int(2),
    "min_samples_leaf": positive_int(),
    "min_impurity_decrease": NON_NEGATIVE,
    "max_features": MAX_FEATURES,
    "max_bins": positive_int(2, 256),  # uint8 bins
    "random_state": RANDOM_STATE,
}


def resolve_max_features(max_features, n_features: int) -> int:
    """Number of candidate features per split from a checked max_features (MAX_FEATURES): a count, a fraction in
    (0, 1], "sqrt", "log2" or None (all)."""
    if max_features is None:
        return n_features
    if isinstance(max_features, str):
        return max(1, int(np.sqrt(n_features) if max_features == "sqrt" else np.log2(n_features)))
    if isinstance(max_features, (int, np.integer)):
        return int(min(max_features, n_features))
    return max(1, int(max_features * n_features))


def check_growth_params(est) -> dict:
    """The hyperparameters of a tree or forest checked against its constraints, the growth ones as the kernel
    expects them."""
    check_hyperparameters(est)
    return dict(
        criterion=_CRITERION_CODES[est.criterion],
        max_depth=_NO_DEPTH_LIMIT if est.max_depth is None else int(est.max_depth),
        min_samples_split=int(est.min_samples_split),
        min_samples_leaf=int(est.min_samples_leaf),
        min_impurity_decrease=float(est.min_impurity_decrease),
        hist=est.splitter == "hist",
        max_bins=int(est.max_bins),
    )


class TrainingData:
    """X prepared once for growing one or many trees (see binning.py and _kernels.build_tree): bin codes for
    features with at most max_bins distinct values (all features when hist), and the other columns of X in Fortran
    order with the argsort of each."""

    def __init__(self, X: np.ndarray, hist: bool, max_bins: int):
        self.Xb, self.cuts, self.n_bins, self.exact, binned = bin_features(X, max_bins, quantile_bins=hist)
        sorted_features = np.flatnonzero(~binned)
        self.slot = np.full(X.shape[1], -1, dtype=np.int64)
        self.slot[sorted_features] = np.arange(sorted_features.size)
        self.X = np.asfortranarray(X[:, sorted_features])
        self.presorted = np.ascontiguousarray(np.argsort(self.X, axis=0, kind="stable").T, dtype=np.int32)


def grow_tree(data: TrainingData, code, y, w, n_classes: int, growth: dict, max_features: int, seed: int) -> dict:
    """Grow one tree and return its node arrays (value: class probabilities if n_classes > 0, else means)."""
    n_stats = n_classes if n_classes > 0 else 2
    feature, threshold, left, right, stats, cover, n_node, impurity = K.build_tree(
        data.X,
        data.presorted,
        data.slot,
        data.Xb,
        data.cuts,
        data.n_bins,
        data.exact,
        code,
        y,
        w,
        n_stats,
        growth["criterion"],
        growth["max_depth"],
        growth["min_samples_split"],
        growth["min_samples_leaf"],
        growth["min_impurity_decrease"],
        max_features,
        seed,
    )
    if n_classes > 0:
        value = stats / stats.sum(axis=1, keepdims=True)
    else:
        value = stats[:, :1] / cover[:, None]
    fill_internal_values(value, left, right, cover)
    return dict(
        feature=feature,
        threshold=threshold,
        left=left,
        right=right,
        value=value,
        cover=cover,
        n_node_samples=n_node,
        impurity=impurity,
    )


def tree_dict(est, nodes=slice(None)) -> dict:
    """The shared tree protocol's node arrays of a fitted tree, or of one tree (its node slice) of a forest."""
    return dict(
        feature=est.feature_[nodes],
        threshold=est.threshold_[nodes],
        left=est.children_left_[nodes],
        right=est.children_right_[nodes],
        value=est.value_[nodes],
        cover=est.weighted_n_node_samples_[nodes],
    )


def impurity_importances(feature, left, right, cover, impurity, n_features: int) -> np.ndarray:
    """Total weighted impurity decrease w_t i(t) - w_L i(L) - w_R i(R) per feature, normalised to sum 1."""
    internal = np.flatnonzero(left >= 0)
    l, r = left[internal], right[internal]
    gain = cover[internal] * impurity[internal] - cover[l] * impurity[l] - cover[r] * impurity[r]
    out = np.bincount(feature[internal], weights=gain, minlength=n_features)
    total = out.sum()
    return out / total if total > 0 else out


class _BaseDecisionTree(BaseEstimator):
    def _grow(self, X, code, y, w, n_classes: int):
        growth = check_growth_params(self)
        self.n_features_in_ = X.shape[1]
        self.max_features_ = resolve_max_features(self.max_features, X.shape[1])
        seed = int(check_random_state(self.random_state).integers(2**63))
        tree = grow_tree(
            TrainingData(X, growth["hist"], growth["max_bins"]), code, y, w, n_classes, growth, self.max_features_, seed
        )
        if self.ccp_alpha > 0:
            tree = prune(tree, self.ccp_alpha)
        self._set_tree(tree)
        return self

    def _set_tree(self, tree: dict) -> None:
        self.feature_ = tree["feature"]
        self.threshold_ = tree["threshold"]
        self.children_left_ = tree["left"]
        self.children_right_ = tree["right"]
        self.value_ = tree["value"]
        self.weighted_n_node_samples_ = tree["cover"]
        self.n_node_samples_ = tree["n_node_samples"]
        self.impurity_ = tree["impurity"]
        self.feature_importances_ = impurity_importances(
            self.feature_,
            self.children_left_,
            self.children_right_,
            self.weighted_n_node_samples_,
            self.impurity_,
            self.n_features_in_,
        )

    def apply(self, X) -> np.ndarray:
        """Index of the leaf each row of X lands in."""
        return apply_tree(
            check_fitted_X(self, X), self.feature_, self.threshold_, self.children_left_, self.children_right_
        )

    def get_depth(self) -> int:
        check_is_fitted(self)
        depth = np.zeros(self.feature_.size, dtype=np.int64)
        for node in range(self.feature_.size):  # pre-order: a parent's depth is known before its children's
            for child in (self.children_left_[node], self.children_right_[node]):
                if child >= 0:
                    depth[child] = depth[node] + 1
        return int(depth.max())

    def get_n_leaves(self) -> int:
        check_is_fitted(self)
        return int(np.sum(self.children_left_ < 0))

    def cost_complexity_pruning_path(self, X, y, sample_weight=None) -> dict:
        """Effective alphas of the weakest-link pruning sequence of the fully grown tree (this estimator's growth
        settings, ccp_alpha ignored) and the total leaf impurity of each subtree: {"ccp_alphas", "impurities"}."""
        full = clone(self).set_params(ccp_alpha=0.0).fit(X, y, sample_weight=sample_weight)
        return pruning_path(dict(tree_dict(full), impurity=full.impurity_))

    def tree_ensemble(self) -> dict:
        """The shared tree protocol (TreeSHAP, gradient boosting): one tree, scale 1, offset 0."""
        check_is_fitted(self)
        return dict(
            trees=[tree_dict(self)],
            scale=np.ones(1),
            offset=np.zeros(self.value_.shape[1]),
            output=self._ensemble_output,
        )


class DecisionTreeClassifier(ClassifierMixin, _BaseDecisionTree):
    """CART classification tree.

    Parameters
    ----------
    criterion : {"gini", "entropy", "misclassification", "realboost_z"}, default "gini"
        Impurity: Gini, entropy (information gain, bits), misclassification (1 - max_k p_k; a depth-1 tree is then the
        stump with the smallest weighted error, discrete AdaBoost's weak learner) or realboost_z (2 sqrt(p q): the
        partition minimising Real AdaBoost's Z = 2 sum_b sqrt(p_b q_b)).
    splitter : {"best", "hist"}, default "best"
        "best": every midpoint between sorted distinct values; "hist": max_bins quantile bins (for large data).
    max_depth : int or None, default None
        Maximum depth (None: grow until the other limits stop it).
    min_samples_split : int, default 2
        A node with fewer rows is not split.
    min_samples_leaf : int, default 5
        A split must leave at least this many rows in each child; the default 5 is the notes' minimum region size (seed
        002, line 1596): a fully grown tree (1, scikit-learn's default) memorises noisy tabular data.
    min_impurity_decrease : float, default 0.0
        A split must decrease the weighted impurity (w_t / w_total) * decrease by at least this much.
    max_features : int, float, "sqrt", "log2" or None, default None
        Candidate features drawn at random per split: a count, a fraction of the features, sqrt(p), log2(p), or None =
        all.
    max_bins : int, default 255
        Bins per feature with splitter="hist" (2..256).
    ccp_alpha : float, default 0.0
        Cost-complexity pruning strength (0 = no pruning); choose it with mllib.tree.pruning.choose_ccp_alpha.
    random_state : int, Generator or None, default 0
        Seeds the features drawn per split.
    """

    _constraints = {**GROWTH_CONSTRAINTS, "criterion": Options(CLASSIFICATION_CRITERIA), "ccp_alpha": NON_NEGATIVE}
    _ensemble_output = "probability"

    def __init__(
        self,
        criterion: str = "gini",
        splitter: str = "best",
        max_depth=None,
        min_samples_split: int = 2,
        min_samples_leaf: int = 5,
        min_impurity_decrease: float = 0.0,
        max_features=None,
        max_bins: int = 255,
        ccp_alpha: float = 0.0,
        random_state=0,
    ):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.max_bins = max_bins
        self.ccp_alpha = ccp_alpha
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y)
        w = check_sample_weight(sample_weight, X.shape[0])
        code = self._encode_targets(y).astype(np.int64)
        return self._grow(X, code, np.zeros(X.shape[0]), w, self.classes_.size)

    def predict_proba(self, X) -> np.ndarray:
        leaves = self.apply(X)
        return self.value_[leaves]


class DecisionTreeRegressor(RegressorMixin, _BaseDecisionTree):
    """CART regression tree: squared-error (variance-reduction) splits, leaf = weighted mean of its targets.

    Parameters
    ----------
    criterion : {"squared_error"}, default "squared_error"
        Impurity: the weighted variance of the targets (variance-reduction splits).
    splitter : {"best", "hist"}, default "best"
        "best": every midpoint between sorted distinct values; "hist": max_bins quantile bins (for large data).
    max_depth : int or None, default None
        Maximum depth (None: grow until the other limits stop it).
    min_samples_split : int, default 2
        A node with fewer rows is not split.
    min_samples_leaf : int, default 5
        A split must leave at least this many rows in each child; the default 5 is the notes' minimum region size (seed
        002, line 1596): a fully grown tree (1, scikit-learn's default) memorises noisy tabular data.
    min_impurity_decrease : float, default 0.0
        A split must decrease the weighted impurity (w_t / w_total) * decrease by at least this much.
    max_features : int, float, "sqrt", "log2" or None, default None
        Candidate features drawn at random per split: a count, a fraction of the features, sqrt(p), log2(p), or None =
        all.
    max_bins : int, default 255
        Bins per feature with splitter="hist" (2..256).
    ccp_alpha : float, default 0.0
        Cost-complexity pruning strength (0 = no pruning); choose it with mllib.tree.pruning.choose_ccp_alpha.
    random_state : int, Generator or None, default 0
        Seeds the features drawn per split.
    """

    _constraints = {**GROWTH_CONSTRAINTS, "criterion": Options(REGRESSION_CRITERIA), "ccp_alpha": NON_NEGATIVE}
    _ensemble_output = "raw"

    def __init__(
        self,
        criterion: str = "squared_error",
        splitter: str = "best",
        max_depth=None,
        min_samples_split: int = 2,
        min_samples_leaf: int = 5,
        min_impurity_decrease: float = 0.0,
        max_features=None,
        max_bins: int = 255,
        ccp_alpha: float = 0.0,
        random_state=0,
    ):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.max_bins = max_bins
        self.ccp_alpha = ccp_alpha
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y, y_numeric=True)
        w = check_sample_weight(sample_weight, X.shape[0])
        return self._grow(X, np.zeros(X.shape[0], dtype=np.int64), y, w, 0)

    def predict(self, X) -> np.ndarray:
        leaves = self.apply(X)
        return self.value_[leaves, 0]
