"""Bagging (bootstrap aggregating) of any mllib classifier (seed 000, lines 2843-2901, catalogue I5; seed 002,
lines 1396-1418; seed 004 D4:1544-1556).

Draw B bootstrap samples of size max_samples with replacement (or subsamples without replacement), fit a clone of
the base estimator on each, and average the members' class probabilities (members without predict_proba vote with
their predicted labels). Reduces variance, not bias; works best with unstable learners such as deep trees.
Rows a member did not draw are its out-of-bag rows; oob_score_ is the accuracy of the OOB-averaged votes.
A sample holding a single class is redrawn (mllib classifiers need two classes).
"""
from __future__ import annotations

import numpy as np

from ..base import BaseEstimator, ClassifierMixin, check_array, check_is_fitted, check_n_features, check_random_state, clone
from ..base import check_X_y
from ..tree import DecisionTreeClassifier
from .forest import resolve_max_samples


class BaggingClassifier(ClassifierMixin, BaseEstimator):
    """estimator: an unfitted mllib classifier (None = DecisionTreeClassifier()); n_estimators: B;
    max_samples: rows per member (None = n, int, or fraction); bootstrap: draw with replacement;
    oob_score: compute oob_score_ and oob_decision_function_. Members with a random_state get their own seed."""

    def __init__(self, estimator=None, n_estimators: int = 10, max_samples=None, bootstrap: bool = True,
                 oob_score: bool = False, random_state=0):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.random_state = random_state

    def fit(self, X, y):
        X, y = check_X_y(X, y)
        if isinstance(self.n_estimators, bool) or not isinstance(self.n_estimators, (int, np.integer)) or self.n_estimators < 1:
            raise ValueError(f"n_estimators must be a positive integer, got {self.n_estimators!r}")
        if self.oob_score and not self.bootstrap and resolve_max_samples(self.max_samples, X.shape[0]) == X.shape[0]:
            raise ValueError("oob_score=True needs out-of-bag rows: use bootstrap=True or max_samples < n")
        base = DecisionTreeClassifier() if self.estimator is None else self.estimator
        if getattr(base, "_estimator_type", None) != "classifier":
            raise ValueError(f"estimator must be an mllib classifier, got {type(base).__name__}")
        code = self._encode_targets(y)
        n = X.shape[0]
        self.n_features_in_ = X.shape[1]
        n_draws = resolve_max_samples(self.max_samples, n)
        rng = check_random_state(self.random_state)
        seeds = rng.integers(2**63, size=(self.n_estimators, 2))
        self.estimators_ = []
        votes = np.zeros((n, self.classes_.size))
        n_oob = np.zeros(n)
        for sample_seed, member_seed in seeds:
            draw = np.random.default_rng(sample_seed)
            for _ in range(100):  # a classifier needs two classes: redraw a sample that holds only one
                idx = draw.integers(0, n, n_draws) if self.bootstrap else draw.choice(n, n_draws, replace=False)
                if np.unique(code[idx]).size > 1:
                    break
            else:
                raise ValueError("100 samples in a row held a single class; increase max_samples")
            member = clone(base)
            if "random_state" in member.get_params(deep=False):
                member.set_params(random_state=int(member_seed))
            member.fit(X[idx], code[idx])
            self.estimators_.append(member)
            if self.oob_score:
                oob = np.setdiff1d(np.arange(n), idx)
                votes[oob] += self._member_proba(member, X[oob])
                n_oob[oob] += 1
        if self.oob_score:
            seen = n_oob > 0
            self.oob_decision_function_ = np.full(votes.shape, np.nan)
            self.oob_decision_function_[seen] = votes[seen] / n_oob[seen, None]
            self.oob_score_ = float(np.mean(np.argmax(votes[seen], axis=1) == code[seen]))
        return self

    def _member_proba(self, member, X):
        """Member probabilities in the columns of classes_ (a bootstrap sample may miss a class)."""
        out = np.zeros((X.shape[0], self.classes_.size))
        cols = np.asarray(member.classes_, dtype=np.int64)  # members are fitted on class codes
        if hasattr(member, "predict_proba"):
            out[:, cols] = member.predict_proba(X)
        else:
            out[np.arange(X.shape[0]), np.asarray(member.predict(X), dtype=np.int64)] = 1.0
        return out

    def predict_proba(self, X):
        check_is_fitted(self)
        X = check_array(X)
        check_n_features(self, X)
        return sum(self._member_proba(m, X) for m in self.estimators_) / len(self.estimators_)
