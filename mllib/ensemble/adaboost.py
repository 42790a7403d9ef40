"""The AdaBoost family with decision-tree weak learners: discrete AdaBoost (SAMME for K > 2 classes), Real AdaBoost
and LogitBoost (seed 000, lines 2984-3187, 3284-3343, catalogue J1-J4; seed-001-003-004 catalogue 6.1-6.4,
errata E24-E26; seed 002, lines 1446-1521).

Discrete (d_i^(1) = 1/N): fit h_t on weights d^(t); eps_t = sum_i d_i 1{h_t(x_i) != y_i};
  alpha_t = lr * (1/2) [log((1 - eps_t)/eps_t) + log(K - 1)]; d_i <- d_i exp(alpha_t (2 * 1{miss_i} - 1)) / Z_t
  (binary: d_i exp(-alpha_t y_i h_t(x_i)) / Z_t). Class scores s_k(x) = sum_t alpha_t c_tk(x) with c = 1 for the
  predicted class and -1/(K-1) otherwise; binary: F(x) = s_1 = sum_t alpha_t h_t(x), h in {-1, +1}.
Real: h_tk(x) = lr (K-1) (log p_k(x) - mean_j log p_j(x)) from the weighted class fractions p of x's leaf (binary:
  h = (1/2) ln(p/q), the minimiser of Z_t per bin, seed 001 D1:467); d_i <- d_i exp(-(1/K) sum_k y_ik h_tk(x_i)) / Z_t
  with y_ik = 1 for the true class and -1/(K-1) otherwise.
Both: P(y|x) = softmax(s(x) / (K - 1)), binary sigma(2F), the population minimiser F = (1/2) log(p/(1-p)) (E26).
LogitBoost (Friedman, Hastie and Tibshirani 2000): Newton steps on the logistic loss log(1 + exp(-2yF)): fit a
  regression tree to z = (y* - p)/(p(1 - p)) with weights p(1 - p), F <- F + lr f / 2 (binary, p = sigma(2F));
  K classes: one tree per class, F_k <- F_k + lr (K-1)/K (f_k - mean_j f_j), p = softmax(F). z is clipped to +-4
  for the split search only; a leaf's value is its unclipped weighted mean of z, sum (y* - p) / sum p(1 - p)
  (the Newton step), bounded by +-4: a clipped mean would stop short of the optimum (a constant p = 0.8 would never
  reach F* = (1/2) log 4: past p = 3/4 the negatives' z = -1/(1 - p) is clipped and F grows without bound).
Each weak learner's partition is grown greedily by the criterion its algorithm minimises: discrete, the weighted
error eps_t ("misclassification": with max_depth=1 the stump argmin_h eps_t(h) of the notes); Real, Z_t = sum_b
sum_i d_i exp(-y_i h_b) = 2 sum_b sqrt(p_b q_b) over the leaves b ("realboost_z", catalogue 6.3; K classes:
Z = K sum_b w_b (prod_k p_bk)^(1/K), the normaliser of the update above). Deeper trees are grown one split at a time,
so they minimise these greedily, not over all partitions. normalizers_ records Z_t per reweighting (the sum of the
updated weights before normalisation; a final perfect discrete learner reweights nothing); discrete boosting also
records reweighted_errors_, the chosen learner's weighted error under the new weights: 1/2 for two classes,
(K - 1)/K for SAMME (learning_rate 1), h_t is then no better than chance.

Sections cited:
- ML 1 lecture notes (seed 000): The Adaboost Algorithm (2984); → Margin Distributions (3284)
- CS 276 course review (seed 001): 4.2 RealBoost (467)
- Machine Learning lecture notes (seed 002): Boosting (1446)"""

from __future__ import annotations

from itertools import accumulate

import numpy as np
from scipy.special import expit, softmax

from .. import tree as K  # the tree family's traversal kernels
from ..base import (
    BaseEstimator,
    ClassifierMixin,
    check_fitted_X,
    check_is_fitted,
    check_random_state,
    check_sample_weight,
    check_X_y,
)
from ..base.constraints import RANDOM_STATE, Interval, Options, check_hyperparameters, positive_int
from ..tree import DecisionTreeClassifier, DecisionTreeRegressor
from ..tree.cart import tree_dict
from ..tree.criteria import CLASSIFICATION_CRITERIA

ALGORITHMS = ("discrete", "real", "logit")
_CRITERIA = {"discrete": "misclassification", "real": "realboost_z"}  # what each algorithm's learner minimises
_P_FLOOR = 1e-6  # Real AdaBoost smoothing: a pure leaf would give h = +-inf
_Z_MAX = 4.0  # LogitBoost working-response bound (FHT 2000)
_EPS_FLOOR = 1e-10  # a perfect discrete learner: alpha from eps = 1e-10, then stop


def _leaves(tree, X):
    """The leaf of each row of X (already checked) in a fitted tree."""
    return K.apply(X, tree.feature_, tree.threshold_, tree.children_left_, tree.children_right_)


def _set_newton_leaves(tree, X, gradient, hessian):
    """Leaf value = sum gradient / sum hessian over the leaf's rows (within +-_Z_MAX); inner nodes follow (cover-
    weighted means of their leaves, the tree protocol's convention). Every leaf holds rows of positive weight.
    Returns the rows' leaves."""
    leaves = _leaves(tree, X)
    n_nodes = tree.value_.shape[0]
    is_leaf = tree.children_left_ < 0
    step = np.bincount(leaves, gradient, n_nodes)[is_leaf] / np.bincount(leaves, hessian, n_nodes)[is_leaf]
    tree.value_[is_leaf, 0] = np.clip(step, -_Z_MAX, _Z_MAX)
    K.fill_internal_values(tree.value_, tree.children_left_, tree.children_right_, tree.weighted_n_node_samples_)
    return leaves


class AdaBoostClassifier(ClassifierMixin, BaseEstimator):
    """Boosted decision trees. LogitBoost fits squared-error regression trees. Discrete boosting stops early when a
    learner is perfect (eps = 0) or no better than chance (eps >= 1 - 1/K).

    Parameters
    ----------
    n_estimators : int, default 50
        Boosting rounds T.
    learning_rate : float, default 1.0
        Shrinkage of each round's contribution (1 = the textbook algorithm).
    algorithm : {"discrete", "real", "logit"}, default "discrete"
        Discrete AdaBoost / SAMME, Real AdaBoost / SAMME.R, or LogitBoost.
    max_depth : int, default 1
        Depth of the weak learners (1 = stumps).
    criterion : str or None, default None
        Split criterion of discrete / real boosting's trees (None: the one the algorithm minimises, "misclassification"
        / "realboost_z"; any DecisionTreeClassifier criterion otherwise).
    random_state : int, Generator or None, default 0
        Seeds the weak learners.
    """

    _constraints = {
        "algorithm": Options(ALGORITHMS),
        "n_estimators": positive_int(),
        "learning_rate": Interval(False, 0, None, "neither", "> 0"),
        "max_depth": positive_int(),
        "criterion": Options((None, *CLASSIFICATION_CRITERIA)),  # None: the one the algorithm minimises
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        n_estimators: int = 50,
        learning_rate: float = 1.0,
        algorithm: str = "discrete",
        max_depth: int = 1,
        criterion=None,
        random_state=0,
    ):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.algorithm = algorithm
        self.max_depth = max_depth
        self.criterion = criterion
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y)
        check_hyperparameters(self)
        n_estimators = self.n_estimators
        code = self._encode_targets(y)
        w = check_sample_weight(sample_weight, X.shape[0])
        self.n_features_in_ = X.shape[1]
        seeds = check_random_state(self.random_state).integers(2**63, size=n_estimators)
        fit = {"discrete": self._fit_discrete, "real": self._fit_real, "logit": self._fit_logit}[self.algorithm]
        fit(X, code, w / w.sum(), seeds)
        return self

    def _tree(self, seed):
        criterion = self.criterion or _CRITERIA[self.algorithm]
        return DecisionTreeClassifier(
            criterion=criterion, max_depth=self.max_depth, min_samples_leaf=1, random_state=int(seed)
        )

    def _fit_discrete(self, X, code, d, seeds):
        n_classes = self.classes_.size
        self.estimators_, alphas, errors, normalizers, reweighted = [], [], [], [], []
        for seed in seeds:
            tree = self._tree(seed).fit(X, code, sample_weight=d)
            miss = tree.predict(X) != code
            eps = float(np.dot(d, miss) / d.sum())
            if eps >= 1.0 - 1.0 / n_classes:
                if not self.estimators_:
                    raise ValueError(
                        "the first weak learner is no better than chance (weighted error "
                        f"{eps:.3f} >= 1 - 1/K); use deeper trees (max_depth)"
                    )
                break
            alpha = (
                self.learning_rate
                * 0.5
                * (np.log((1 - max(eps, _EPS_FLOOR)) / max(eps, _EPS_FLOOR)) + np.log(n_classes - 1))
            )
            self.estimators_.append(tree)
            alphas.append(alpha)
            errors.append(eps)
            if eps <= 0:
                break
            d = d * np.exp(alpha * (2.0 * miss - 1.0))
            normalizers.append(d.sum())
            d /= normalizers[-1]
            reweighted.append(float(np.dot(d, miss)))
        self.estimator_weights_ = np.asarray(alphas)
        self.estimator_errors_ = np.asarray(errors)
        self.normalizers_ = np.asarray(normalizers)
        self.reweighted_errors_ = np.asarray(reweighted)

    def _fit_real(self, X, code, d, seeds):
        n_classes = self.classes_.size
        Y = np.where(np.eye(n_classes, dtype=bool)[code], 1.0, -1.0 / (n_classes - 1))
        self.estimators_, errors, normalizers = [], [], []
        for seed in seeds:
            tree = self._tree(seed).fit(X, code, sample_weight=d)
            h = self._real_scores(tree.predict_proba(X))
            errors.append(float(np.dot(d, np.argmax(h, axis=1) != code)))
            self.estimators_.append(tree)
            d = d * np.exp(-np.sum(Y * h, axis=1) / n_classes)
            normalizers.append(d.sum())
            d /= normalizers[-1]
        self.estimator_weights_ = np.full(len(self.estimators_), float(self.learning_rate))
        self.estimator_errors_ = np.asarray(errors)
        self.normalizers_ = np.asarray(normalizers)

    def _real_scores(self, proba):
        log_p = np.log(np.clip(proba, _P_FLOOR, 1.0))
        return self.learning_rate * (self.classes_.size - 1) * (log_p - log_p.mean(axis=1, keepdims=True))

    def _fit_logit(self, X, code, sw, seeds):
        n, n_classes = X.shape[0], self.classes_.size
        binary = n_classes == 2
        F = np.zeros((n, 1 if binary else n_classes))
        Y = np.eye(n_classes)[code][:, 1:] if binary else np.eye(n_classes)[code]
        self.estimators_, losses = [], []
        proba = self._to_proba(F)
        for seed in seeds:
            P = proba[:, 1:] if binary else proba
            W = np.clip(P * (1 - P), 1e-12, None)  # the clip keeps z finite once p is 0 or 1 in floating point
            Z = np.clip((Y - P) / W, -_Z_MAX, _Z_MAX)
            f = np.empty_like(F)
            for k in range(F.shape[1]):
                tree = DecisionTreeRegressor(max_depth=self.max_depth, min_samples_leaf=1, random_state=int(seed))
                tree.fit(X, Z[:, k], sample_weight=sw * W[:, k])
                leaves = _set_newton_leaves(tree, X, sw * (Y[:, k] - P[:, k]), sw * W[:, k])
                self.estimators_.append(tree)
                f[:, k] = tree.value_[leaves, 0]
            F += self._logit_step(f)
            proba = self._to_proba(F)
            losses.append(float(-np.dot(sw, np.log(np.clip(proba[np.arange(n), code], 1e-300, None)))))
        self.estimator_weights_ = np.full(len(seeds), float(self.learning_rate))
        self.train_loss_ = np.asarray(losses)

    def _logit_step(self, f):
        if f.shape[1] == 1:
            return self.learning_rate * 0.5 * f
        K_ = f.shape[1]
        return self.learning_rate * (K_ - 1) / K_ * (f - f.mean(axis=1, keepdims=True))

    # ------------------------------------------------------------ predictions

    def _round_scores(self, X):
        """Per boosting round, its contribution to the class scores (n, K), or to F (n, 1) for binary logit."""
        n_classes = self.classes_.size
        if self.algorithm == "discrete":
            for tree, alpha in zip(self.estimators_, self.estimator_weights_):
                C = np.full((X.shape[0], n_classes), -alpha / (n_classes - 1))
                C[np.arange(X.shape[0]), np.argmax(tree.value_[_leaves(tree, X)], axis=1)] = alpha
                yield C
        elif self.algorithm == "real":
            for tree in self.estimators_:
                yield self._real_scores(tree.value_[_leaves(tree, X)])
        else:
            k = 1 if n_classes == 2 else n_classes
            for t in range(0, len(self.estimators_), k):
                yield self._logit_step(
                    np.column_stack([tree.value_[_leaves(tree, X), 0] for tree in self.estimators_[t : t + k]])
                )

    def _to_decision(self, S):
        """Binary: F(x) (n,); multiclass: the class scores (n, K)."""
        if self.classes_.size > 2:
            return S
        return S[:, 0] if S.shape[1] == 1 else S[:, 1]

    def _to_proba(self, S):
        if self.algorithm == "logit":
            return np.column_stack([expit(-2 * S[:, 0]), expit(2 * S[:, 0])]) if S.shape[1] == 1 else softmax(S, axis=1)
        return softmax(S / (self.classes_.size - 1), axis=1)

    def _staged_scores(self, X):
        """The class scores (or F) after each boosting round."""
        return accumulate(self._round_scores(check_fitted_X(self, X)))

    def staged_decision_function(self, X):
        """decision_function after each boosting round."""
        return map(self._to_decision, self._staged_scores(X))

    def staged_predict_proba(self, X):
        return map(self._to_proba, self._staged_scores(X))

    def staged_predict(self, X):
        for P in self.staged_predict_proba(X):
            yield self.classes_[np.argmax(P, axis=1)]

    def _scores(self, X):
        return sum(self._round_scores(check_fitted_X(self, X)))

    def decision_function(self, X):
        """Binary: F(x) = sum_t alpha_t h_t(x) (> 0 predicts classes_[1]); multiclass: the class scores (n, K)."""
        return self._to_decision(self._scores(X))

    def predict_proba(self, X):
        return self._to_proba(self._scores(X))

    def margins(self, X, y) -> np.ndarray:
        """Ensemble margins rho_i = (s_y(x_i) - max_{k != y} s_k(x_i)) * (K - 1) / K, binary y_i F(x_i) (y = +-1);
        for discrete AdaBoost divided by sum_t alpha_t, so in [-1, 1] (seed 000, lines 3284-3343)."""
        S = self._scores(X)
        if S.shape[1] == 1:
            S = np.column_stack([-S[:, 0], S[:, 0]])
        idx = np.searchsorted(self.classes_, np.asarray(y))
        if not np.array_equal(self.classes_[np.clip(idx, 0, self.classes_.size - 1)], np.asarray(y)):
            raise ValueError("y contains labels not seen in fit")
        rows = np.arange(S.shape[0])
        true = S[rows, idx]
        S_other = S.copy()
        S_other[rows, idx] = -np.inf
        n_classes = self.classes_.size
        rho = (true - S_other.max(axis=1)) * (n_classes - 1) / n_classes
        if self.algorithm == "discrete":
            rho = rho / self.estimator_weights_.sum()
        return rho

    def tree_ensemble(self) -> dict:
        """The shared tree protocol with output "raw": decision_function(X) = sum_t scale_t value_t[leaf_t(x)]
        (binary: one output F; multiclass: K class scores). Leaf values are each round's contribution."""
        check_is_fitted(self)
        n_classes = self.classes_.size
        n_out = 1 if n_classes == 2 else n_classes
        trees, scale = [], []
        for i, tree in enumerate(self.estimators_):
            if self.algorithm == "discrete":
                alpha = self.estimator_weights_[i]
                C = np.full((tree.value_.shape[0], n_classes), -1.0 / (n_classes - 1))
                C[np.arange(C.shape[0]), np.argmax(tree.value_, axis=1)] = 1.0
                value, s = C, alpha
            elif self.algorithm == "real":
                value, s = self._real_scores(tree.value_), 1.0
            else:
                f = tree.value_[:, :1]
                if n_classes == 2:
                    value, s = f, 0.5 * self.learning_rate
                else:
                    k = i % n_classes
                    c = (n_classes - 1) / n_classes * (np.eye(n_classes)[k] - 1.0 / n_classes)
                    value, s = f * c, self.learning_rate
            if n_classes == 2 and value.shape[1] == 2:
                value = value[:, 1:]
            value = np.ascontiguousarray(value, dtype=np.float64)
            K.fill_internal_values(value, tree.children_left_, tree.children_right_, tree.weighted_n_node_samples_)
            trees.append(dict(tree_dict(tree), value=value))
            scale.append(s)
        return dict(trees=trees, scale=np.asarray(scale, dtype=np.float64), offset=np.zeros(n_out), output="raw")
