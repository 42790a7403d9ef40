"""Rosenblatt's perceptron and the averaged perceptron.

Seed 000, lines 939-982 and 2197-2257 (catalogue 000 C3, 001-004 7.2 with erratum E29): y = sign(w^T x + b),
t in {-1, +1}; visit the rows (reshuffled every epoch) and, when t_k (w^T x_k + b) <= 0 (sign(0) counts as a
mistake), set w <- w + eta t_k x_k, b <- b + eta t_k: stochastic gradient descent on the perceptron criterion
E = sum max(0, -t_k (w^T x_k + b)). Stops after an epoch without mistakes, which happens in finitely many steps iff
the data are linearly separable. The averaged variant returns the mean of the iterates over all row visits (the
voted perceptron's practical form), much less sensitive to the order of the last updates on non-separable data.
Multiclass: one-vs-rest. Starting from w = 0, eta only rescales (w, b), so predictions do not depend on it.
"""

from __future__ import annotations

from ..base import BaseEstimator, ClassifierMixin, check_random_state, check_sample_weight, check_X_y
from ..base.constraints import BOOLEAN, POSITIVE, RANDOM_STATE, check_hyperparameters, positive_int
from ._kernels import perceptron_epochs
from ._ovr import OneVsRestLinearMixin, fit_one_vs_rest


class Perceptron(OneVsRestLinearMixin, ClassifierMixin, BaseEstimator):
    """Perceptron classifier. predict_proba is an uncalibrated squashing of the margin (see OneVsRestLinearMixin).

    Parameters
    ----------
    lr : float, default 1.0
        Learning rate eta.
    max_iter : int, default 20
        Maximum number of epochs.
    shuffle : bool, default True
        Reshuffle the rows every epoch (seeded by random_state).
    averaged : bool, default True
        Predict with the average of the iterates (the averaged perceptron) rather than the last one.
    random_state : int, Generator or None, default 0
        Seeds the shuffles.
    """

    _constraints = {  # max_iter: epochs
        "lr": POSITIVE,
        "max_iter": positive_int(),
        "shuffle": BOOLEAN,
        "averaged": BOOLEAN,
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        lr: float = 1.0,
        max_iter: int = 20,
        shuffle: bool = True,
        averaged: bool = True,
        random_state: int | None = 0,
    ):
        self.lr = lr
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.averaged = averaged
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y)
        check_hyperparameters(self)
        s = check_sample_weight(sample_weight, X.shape[0])
        codes = self._encode_targets(y)
        self.n_features_in_ = X.shape[1]
        seed = int(check_random_state(self.random_state).integers(2**31 - 1))
        epochs = []

        def fit_binary(t):
            w, b, n = perceptron_epochs(
                X, t, s, float(self.lr), int(self.max_iter), bool(self.shuffle), bool(self.averaged), seed
            )
            epochs.append(int(n))
            return w, b

        self.coef_, self.intercept_ = fit_one_vs_rest(codes, self.classes_.size, fit_binary)
        self.n_iter_ = max(epochs)
        return self
