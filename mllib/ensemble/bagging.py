"""Bagging (bootstrap aggregating) of any mllib estimator (seed 000, lines 2843-2901, catalogue I5; seed 002,
lines 1396-1418, catalogue P8; seed-001-003-004 catalogue 7.9).

Draw M samples D_m of size max_samples with replacement (bootstrap) or without, fit a clone of the base estimator on
each and average: f(x) = (1/M) sum_m f_m(x) (classifiers average class probabilities; members without
predict_proba vote with their labels). Reduces variance, not bias; works best with unstable learners such as deep
trees. The spread of {f_m(x)} assesses a regression (predict(X, return_std=True)). Rows a member did not draw are
its out-of-bag rows; oob_score_ is the accuracy (classifier) or R^2 (regressor) of predicting each row from the
members that did not draw it.

A member is fitted on its sample's rows, each repeated as often as drawn (the textbook bootstrap, right for any
learner); with sample_weight every copy carries its row's weight, so row i weighs w_i x (times drawn). A
classifier's sample holding a single class is redrawn (mllib classifiers need two classes).

Sections cited:
- ML 1 lecture notes (seed 000): → Decision Tree regularization via model averaging (ensembles) (2843)
- Machine Learning lecture notes (seed 002): Bootstrap & Bagging (1396)"""

from __future__ import annotations

import inspect

import numpy as np

from .. import registry
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
    lookup,
)
from ..base.constraints import (
    BOOLEAN,
    OPTIONAL,
    RANDOM_STATE,
    InstanceOf,
    check_hyperparameters,
    positive_int,
)
from .resampling import (
    MAX_SAMPLES,
    bootstrap_counts,
    in_bag_counts,
    oob_classification,
    oob_regression,
    resolve_max_samples,
)

_MAX_REDRAWS = 100


class _BaseBagging(BaseEstimator):
    """What the bagging classifier and regressor share: the base estimator, the samples, the members' fits and OOB
    sums; subclasses say how a member's output is read (_member_output) and scored out of bag (_set_oob)."""

    _constraints = {
        # a registry name (of the bagger's own kind: at fit) or an unfitted estimator
        "estimator": InstanceOf((str, BaseEstimator), "a registry name or an unfitted mllib estimator"),
        "estimator_params": [OPTIONAL, InstanceOf((dict,), "a dict of the estimator's hyperparameters")],
        "n_estimators": positive_int(),
        "max_samples": MAX_SAMPLES,
        "bootstrap": BOOLEAN,
        "oob_score": BOOLEAN,
        "random_state": RANDOM_STATE,
    }

    def __init__(self, estimator, estimator_params, n_estimators, max_samples, bootstrap, oob_score, random_state):
        self.estimator = estimator
        self.estimator_params = estimator_params
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.random_state = random_state

    def _base_estimator(self) -> BaseEstimator:
        family = registry.CLASSIFIERS if self._estimator_type == "classifier" else registry.REGRESSORS
        if isinstance(self.estimator, str):
            base = lookup(family, self.estimator, f"{self._estimator_type} estimator")()
        elif getattr(self.estimator, "_estimator_type", None) == self._estimator_type:
            base = clone(self.estimator)
        else:
            raise ValueError(
                f"estimator must be a registry name or an unfitted mllib {self._estimator_type}, got {self.estimator!r}"
            )
        if self.estimator_params is not None:
            base.set_params(**self.estimator_params)
        return base

    def _fit_members(self, X, target, sample_weight, n_outputs: int):
        check_hyperparameters(self)
        n_estimators = self.n_estimators
        n = X.shape[0]
        n_draws = resolve_max_samples(self.max_samples, n)
        if self.oob_score and not self.bootstrap and n_draws == n:
            raise ValueError("oob_score=True needs out-of-bag rows: use bootstrap=True or max_samples < n")
        base = self._base_estimator()
        fit_kwargs = {}
        if sample_weight is not None:
            if "sample_weight" not in inspect.signature(base.fit).parameters:
                raise ValueError(
                    f"estimator {type(base).__name__} does not take sample_weight: fit without "
                    "sample_weight, or bag an estimator whose fit takes it"
                )
            w = check_sample_weight(sample_weight, n)
        self.n_features_in_ = X.shape[1]
        seeds = check_random_state(self.random_state).integers(2**63, size=(n_estimators, 2))
        self.estimators_, sample_seeds = [], []
        oob_total, oob_members = np.zeros((n, n_outputs)), np.zeros(n)
        for draw_seed, member_seed in seeds:
            seed, counts = self._draw(int(draw_seed), target, n, n_draws)
            rows = np.repeat(np.arange(n), counts.astype(np.int64))
            if sample_weight is not None:
                fit_kwargs["sample_weight"] = w[rows]
            member = clone(base)
            if "random_state" in member.get_params(deep=False):
                member.set_params(random_state=int(member_seed))
            member.fit(X[rows], target[rows], **fit_kwargs)
            self.estimators_.append(member)
            sample_seeds.append(seed)
            oob = np.flatnonzero(counts == 0)
            if self.oob_score and oob.size:
                oob_total[oob] += self._member_output(member, X[oob])
                oob_members[oob] += 1
        self.sample_seeds_ = np.asarray(sample_seeds, dtype=np.int64)
        if self.oob_score:
            self._set_oob(oob_total, oob_members, target)
        return self

    def _draw(self, seed: int, target, n: int, n_draws: int):
        """The member's sample seed and in-bag counts; a classifier's sample holding one class is redrawn with
        the next seed of a Generator started from this one."""
        redraw = np.random.default_rng(seed)
        for _ in range(_MAX_REDRAWS):
            counts = bootstrap_counts(seed, n, n_draws, self.bootstrap)
            if self._estimator_type == "regressor" or np.unique(target[counts > 0]).size > 1:
                return seed, counts
            seed = int(redraw.integers(2**63))
        raise ValueError(f"{_MAX_REDRAWS} samples in a row held a single class; increase max_samples")

    def in_bag_counts(self, n_samples: int) -> np.ndarray:
        """(n_estimators, n_samples): how often each training row entered each member (0 = out of bag)."""
        check_is_fitted(self)
        return in_bag_counts(self.sample_seeds_, n_samples, self.max_samples, self.bootstrap)


class BaggingClassifier(ClassifierMixin, _BaseBagging):
    """Bagged classifiers, averaging the members' class probabilities.

    Parameters
    ----------
    estimator : str or estimator, default "decision_tree"
        A registered classifier's name (so params.yaml can choose it) or an unfitted mllib classifier.
    estimator_params : dict or None, default None
        Hyperparameters of the members (set on a clone when estimator is an instance).
    n_estimators : int, default 10
        Number of members M.
    max_samples : int, float or None, default None
        Rows per member: a count, a fraction of n, or None = n.
    bootstrap : bool, default True
        Draw each member's rows with replacement.
    oob_score : bool, default False
        Compute oob_score_ (accuracy) and oob_decision_function_ (NaN for rows every member drew).
    random_state : int, Generator or None, default 0
        Seeds the samples; members with a random_state get their own seed.
    """

    def __init__(
        self,
        estimator="decision_tree",
        estimator_params=None,
        n_estimators: int = 10,
        max_samples=None,
        bootstrap: bool = True,
        oob_score: bool = False,
        random_state=0,
    ):
        super().__init__(estimator, estimator_params, n_estimators, max_samples, bootstrap, oob_score, random_state)

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y)
        code = self._encode_targets(y)
        return self._fit_members(X, code, sample_weight, self.classes_.size)

    def _member_output(self, member, X):
        """Member probabilities in the columns of classes_ (a bootstrap sample may miss a class)."""
        out = np.zeros((X.shape[0], self.classes_.size))
        cols = np.asarray(member.classes_, dtype=np.int64)  # members are fitted on class codes
        if hasattr(member, "predict_proba"):
            out[:, cols] = member.predict_proba(X)
        else:
            out[np.arange(X.shape[0]), np.asarray(member.predict(X), dtype=np.int64)] = 1.0
        return out

    def _set_oob(self, total, n_members, code):
        self.oob_decision_function_, self.oob_score_ = oob_classification(total, n_members, code)

    def predict_proba(self, X):
        X = check_fitted_X(self, X)
        return sum(self._member_output(m, X) for m in self.estimators_) / len(self.estimators_)


class BaggingRegressor(RegressorMixin, _BaseBagging):
    """Bagged regressors, averaging the members' predictions; predict(X, return_std=True) adds their spread.

    Parameters
    ----------
    estimator : str or estimator, default "decision_tree_regressor"
        A registered regressor's name (so params.yaml can choose it) or an unfitted mllib regressor.
    estimator_params : dict or None, default None
        Hyperparameters of the members (set on a clone when estimator is an instance).
    n_estimators : int, default 10
        Number of members M.
    max_samples : int, float or None, default None
        Rows per member: a count, a fraction of n, or None = n.
    bootstrap : bool, default True
        Draw each member's rows with replacement.
    oob_score : bool, default False
        Compute oob_score_ (the out-of-bag R^2) and oob_prediction_.
    random_state : int, Generator or None, default 0
        Seeds the samples; members with a random_state get their own seed.
    """

    def __init__(
        self,
        estimator="decision_tree_regressor",
        estimator_params=None,
        n_estimators: int = 10,
        max_samples=None,
        bootstrap: bool = True,
        oob_score: bool = False,
        random_state=0,
    ):
        super().__init__(estimator, estimator_params, n_estimators, max_samples, bootstrap, oob_score, random_state)

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y, y_numeric=True)
        return self._fit_members(X, y, sample_weight, 1)

    @staticmethod
    def _member_output(member, X):
        return np.asarray(member.predict(X), dtype=np.float64)[:, None]

    def _set_oob(self, total, n_members, y):
        self.oob_prediction_, self.oob_score_ = oob_regression(total, n_members, y)

    def predict(self, X, return_std: bool = False):
        """f(x) = (1/M) sum_m f_m(x); with return_std also the members' spread sqrt((1/M) sum_m (f_m(x) - f(x))^2)."""
        X = check_fitted_X(self, X)
        F = np.column_stack([m.predict(X) for m in self.estimators_])
        mean = F.mean(axis=1)
        return (mean, F.std(axis=1)) if return_std else mean
