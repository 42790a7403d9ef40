"""Random forests: bagged CART trees that consider a random subset of max_features features at each split
(seed 000, lines 2902-2968, catalogue I6; seed 002, lines 1654-1667; seed 004 D4:1725-1749).

For b = 1..B: draw a bootstrap sample (size max_samples, with replacement), grow a tree on it to the minimum node
size without pruning, drawing m candidate features per split. Predict the average of the trees' leaf values
(class probabilities: soft vote; regression: mean). Rows a tree did not draw are its out-of-bag (OOB) rows
(fraction (1 - 1/N)^N -> e^-1 = 0.368); predicting each training row from its OOB trees only gives an estimate of
the generalisation error (oob_score_).

A bootstrap sample enters a tree as integer weights (how often each row was drawn), so min_samples_leaf counts
distinct rows, as in scikit-learn. Per-tree seeds are drawn up front from the Generator, so the forest is
byte-identical for any n_jobs. The trees are stored back to back in flat node arrays (tree t's nodes start at
tree_offsets_[t], child indices local to the tree): compact, saved by mllib.io as a handful of arrays.

Sections cited:
- ML 1 lecture notes (seed 000): Random Forests (2902)
- Machine Learning lecture notes (seed 002): Random Forests: Bagging & randomized splits (1654)
- Ghent ML notes (seed 004): 9.5 Random Forests (1725)"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .. import tree as K  # the tree family's traversal kernels
from ..base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    check_fitted_X,
    check_is_fitted,
    check_random_state,
    check_sample_weight,
    check_X_y,
)
from ..base.constraints import BOOLEAN, Options, positive_int
from ..tree.cart import (
    GROWTH_CONSTRAINTS,
    TrainingData,
    check_growth_params,
    grow_tree,
    impurity_importances,
    resolve_max_features,
    tree_dict,
)
from ..tree.criteria import CLASSIFICATION_CRITERIA, REGRESSION_CRITERIA
from .resampling import (
    MAX_SAMPLES,
    bootstrap_counts,
    in_bag_counts,
    oob_classification,
    oob_regression,
    resolve_max_samples,
)

# a forest grows its trees by the trees' hyperparameters (ccp_alpha apart) and draws their samples by these
FOREST_CONSTRAINTS = {
    **GROWTH_CONSTRAINTS,
    "n_estimators": positive_int(),
    "n_jobs": positive_int(),
    "bootstrap": BOOLEAN,
    "max_samples": MAX_SAMPLES,
    "oob_score": BOOLEAN,
}


class _BaseForest(BaseEstimator):
    def _fit_forest(self, X, code, y, w, n_classes: int):
        growth = check_growth_params(self)
        n_estimators, n_jobs = self.n_estimators, self.n_jobs
        if self.oob_score and not self.bootstrap:
            raise ValueError("oob_score=True needs bootstrap=True: without bootstrap no row is out of bag")
        n, d = X.shape
        self.n_features_in_ = d
        self.max_features_ = resolve_max_features(self.max_features, d)
        n_draws = resolve_max_samples(self.max_samples, n)
        # two seeds per tree (its sample, its feature draws), all drawn before any tree grows
        self.tree_seeds_ = check_random_state(self.random_state).integers(2**63, size=(n_estimators, 2))
        data = TrainingData(X, growth["hist"], growth["max_bins"])

        def one_tree(t):
            counts = bootstrap_counts(int(self.tree_seeds_[t, 0]), n, n_draws, self.bootstrap)
            tree = grow_tree(
                data, code, y, w * counts, n_classes, growth, self.max_features_, int(self.tree_seeds_[t, 1])
            )
            oob = None
            if self.oob_score:
                rows = np.flatnonzero(counts == 0)
                leaves = K.apply(X[rows], tree["feature"], tree["threshold"], tree["left"], tree["right"])
                oob = (rows, tree["value"][leaves])
            importance = impurity_importances(
                tree["feature"], tree["left"], tree["right"], tree["cover"], tree.pop("impurity"), d
            )
            del tree["n_node_samples"]  # only the arrays prediction and the tree protocol need are kept
            return tree, oob, importance

        # OOB sums and counts grow as the trees come in, in tree order (pool.map yields in order): a tree's OOB
        # predictions are dropped once added (memory O(n K), not O(B n K)) and the sums are identical for any n_jobs
        oob_total, oob_trees = np.zeros((n, max(n_classes, 1))), np.zeros(n)
        importances = np.zeros(d)
        trees = []
        with ThreadPoolExecutor(n_jobs) as pool:
            for tree, oob, importance in (pool.map if n_jobs > 1 else map)(one_tree, range(n_estimators)):
                trees.append(tree)
                importances += importance
                if oob is not None:
                    oob_total[oob[0]] += oob[1]
                    oob_trees[oob[0]] += 1
        self.feature_importances_ = importances / n_estimators
        if self.oob_score:
            self._set_oob(oob_total, oob_trees, y if n_classes == 0 else code)
        self.tree_offsets_ = np.concatenate([[0], np.cumsum([t["feature"].size for t in trees])]).astype(np.int64)
        # pop while concatenating: each field's per-tree arrays are freed once it is joined (lower peak memory)
        self.feature_ = np.concatenate([t.pop("feature") for t in trees])
        self.threshold_ = np.concatenate([t.pop("threshold") for t in trees])
        self.children_left_ = np.concatenate([t.pop("left") for t in trees])
        self.children_right_ = np.concatenate([t.pop("right") for t in trees])
        self.value_ = np.concatenate([t.pop("value") for t in trees])
        self.weighted_n_node_samples_ = np.concatenate([t.pop("cover") for t in trees])
        return self

    def _leaf_mean(self, X) -> np.ndarray:
        """(1/B) sum_b value_b[leaf_b(x)]."""
        return K.mean_leaf_values(
            check_fitted_X(self, X),
            self.feature_,
            self.threshold_,
            self.children_left_,
            self.children_right_,
            self.value_,
            self.tree_offsets_,
        )

    def in_bag_counts(self, n_samples: int) -> np.ndarray:
        """(n_estimators, n_samples): how often each training row entered each tree (0 = out of bag)."""
        check_is_fitted(self)
        return in_bag_counts(self.tree_seeds_[:, 0], n_samples, self.max_samples, self.bootstrap)

    def tree_ensemble(self) -> dict:
        """The shared tree protocol: every tree's node arrays, scale 1/B each, offset 0."""
        check_is_fitted(self)
        trees = [tree_dict(self, slice(a, b)) for a, b in zip(self.tree_offsets_[:-1], self.tree_offsets_[1:])]
        n_trees = len(trees)
        return dict(
            trees=trees,
            scale=np.full(n_trees, 1.0 / n_trees),
            offset=np.zeros(self.value_.shape[1]),
            output=self._ensemble_output,
        )

    def permutation_importance(self, X, y, scoring=None, n_repeats: int = 5, random_state=0) -> dict:
        """Permutation importance on held-out (X, y) (mllib.explain.permutation_importance); scoring: a scorer or
        a name from mllib.metrics (default: accuracy for classifiers, mean squared error for regressors)."""
        from ..explain import permutation_importance
        from ..metrics import get_scorer
        from ..model_selection import response_values

        if scoring is None:
            scoring = "accuracy" if self._estimator_type == "classifier" else "mean_squared_error"
        scorer = get_scorer(scoring)
        return permutation_importance(
            lambda Z: response_values(self, Z, scorer.response),
            X,
            y,
            scorer,
            n_repeats=n_repeats,
            random_state=random_state,
        )


class RandomForestClassifier(ClassifierMixin, _BaseForest):
    """Random forest of CART classification trees, averaging the trees' class probabilities.

    Parameters
    ----------
    n_estimators : int, default 100
        Number of trees.
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
    min_samples_leaf : int, default 1
        A split must leave at least this many rows in each child (1: fully grown trees, as Breiman's forests).
    min_impurity_decrease : float, default 0.0
        A split must decrease the weighted impurity (w_t / w_total) * decrease by at least this much.
    max_features : int, float, "sqrt", "log2" or None, default "sqrt"
        Candidate features per split (default "sqrt", Breiman's m = sqrt(p)); as DecisionTreeClassifier.
    max_bins : int, default 255
        Bins per feature with splitter="hist" (2..256); "hist" bins every feature once for all trees, faster on large
        data.
    bootstrap : bool, default True
        Draw each tree's rows with replacement (False: every tree sees every row).
    max_samples : int, float or None, default None
        Rows drawn per tree: a count, a fraction of n, or None = n.
    oob_score : bool, default False
        Compute oob_score_ (accuracy) and oob_decision_function_ from the rows each tree did not draw.
    n_jobs : int, default 1
        Threads growing trees; the result does not depend on it.
    random_state : int, Generator or None, default 0
        Seeds the bootstrap samples and the features drawn per split.
    """

    _constraints = {**FOREST_CONSTRAINTS, "criterion": Options(CLASSIFICATION_CRITERIA)}
    _ensemble_output = "probability"

    def __init__(
        self,
        n_estimators: int = 100,
        criterion: str = "gini",
        splitter: str = "best",
        max_depth=None,
        min_samples_split: int = 2,
        min_samples_leaf: int = 1,
        min_impurity_decrease: float = 0.0,
        max_features="sqrt",
        max_bins: int = 255,
        bootstrap: bool = True,
        max_samples=None,
        oob_score: bool = False,
        n_jobs: int = 1,
        random_state=0,
    ):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.max_bins = max_bins
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y)
        w = check_sample_weight(sample_weight, X.shape[0])
        code = self._encode_targets(y).astype(np.int64)
        return self._fit_forest(X, code, np.zeros(X.shape[0]), w, self.classes_.size)

    def _set_oob(self, total, n_trees, code):
        self.oob_decision_function_, self.oob_score_ = oob_classification(total, n_trees, code)

    def predict_proba(self, X) -> np.ndarray:
        return np.minimum(self._leaf_mean(X), 1.0)  # the mean of probabilities may round one ulp above 1


class RandomForestRegressor(RegressorMixin, _BaseForest):
    """Random forest of CART regression trees, averaging their predictions.

    Parameters
    ----------
    n_estimators : int, default 100
        Number of trees.
    criterion : {"squared_error"}, default "squared_error"
        Impurity: the weighted variance of the targets (variance-reduction splits).
    splitter : {"best", "hist"}, default "best"
        "best": every midpoint between sorted distinct values; "hist": max_bins quantile bins (for large data).
    max_depth : int or None, default None
        Maximum depth (None: grow until the other limits stop it).
    min_samples_split : int, default 2
        A node with fewer rows is not split.
    min_samples_leaf : int, default 1
        A split must leave at least this many rows in each child (1: fully grown trees, as Breiman's forests).
    min_impurity_decrease : float, default 0.0
        A split must decrease the weighted impurity (w_t / w_total) * decrease by at least this much.
    max_features : int, float, "sqrt", "log2" or None, default 1.0
        Candidate features per split (default 1.0: all features, i.e. bagged trees, scikit-learn's default for
        regression).
    max_bins : int, default 255
        Bins per feature with splitter="hist" (2..256); "hist" bins every feature once for all trees, faster on large
        data.
    bootstrap : bool, default True
        Draw each tree's rows with replacement (False: every tree sees every row).
    max_samples : int, float or None, default None
        Rows drawn per tree: a count, a fraction of n, or None = n.
    oob_score : bool, default False
        Compute oob_score_ (the out-of-bag R^2) and oob_prediction_.
    n_jobs : int, default 1
        Threads growing trees; the result does not depend on it.
    random_state : int, Generator or None, default 0
        Seeds the bootstrap samples and the features drawn per split.
    """

    _constraints = {**FOREST_CONSTRAINTS, "criterion": Options(REGRESSION_CRITERIA)}
    _ensemble_output = "raw"

    def __init__(
        self,
        n_estimators: int = 100,
        criterion: str = "squared_error",
        splitter: str = "best",
        max_depth=None,
        min_samples_split: int = 2,
        min_samples_leaf: int = 1,
        min_impurity_decrease: float = 0.0,
        max_features=1.0,
        max_bins: int = 255,
        bootstrap: bool = True,
        max_samples=None,
        oob_score: bool = False,
        n_jobs: int = 1,
        random_state=0,
    ):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.max_bins = max_bins
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y, y_numeric=True)
        w = check_sample_weight(sample_weight, X.shape[0])
        return self._fit_forest(X, np.zeros(X.shape[0], dtype=np.int64), y, w, 0)

    def _set_oob(self, total, n_trees, y):
        self.oob_prediction_, self.oob_score_ = oob_regression(total, n_trees, y)

    def predict(self, X) -> np.ndarray:
        return self._leaf_mean(X)[:, 0]
