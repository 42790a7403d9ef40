"""Multilayer perceptrons trained by mini-batch backpropagation: MLPClassifier and MLPRegressor.

Notes: seed 000, lectures 8-9, lines 2164-2565 (forward pass and backprop 2270-2365; He initialisation
2373-2395; SGD and momentum 2456-2470; hinge loss, weight decay, input noise, dropout 2491-2553);
seed 002, lines 1809-1976 (networks as function models) and 2557 (weight decay = Gaussian prior); seed 003/004
(D3:518-577, D4:1764-1918): softmax output + cross-entropy, ReLU-family activations, dropout, early
stopping; catalogue 001-003-004 section 8.3 (the spec followed here).

Training: each epoch shuffles the training rows with the estimator's Generator and takes one optimiser
step per mini-batch on E_B (network.py); Gaussian input noise (std `input_noise` = s; with squared loss and no
hidden layer it is, in expectation, weight decay alpha = batch_size s^2: Bishop 1995) and inverted dropout
(`dropout`, hidden layers only) perturb the batch during training and are off at prediction.
Stopping: after `max_iter` epochs, or when the monitored quantity has not improved by `tol` for
`n_iter_no_change` consecutive epochs: the training objective, or with `early_stopping` the loss on a
seeded held-out `validation_fraction` of the rows (a smooth criterion: accuracy can sit flat at the base
rate for many epochs on imbalanced data); early stopping then restores the best epoch's weights. The
classifier stops early by default (unlike scikit-learn's MLPClassifier): on tabular data of the default size a
(100,) network overfits within a few dozen epochs, so a fixed 200-epoch budget is a poor default.
Everything random (initialisation, validation split, shuffling, dropout masks, noise) comes from one
numpy Generator seeded by `random_state`, so a fit is reproducible byte for byte.

Sections cited:
- Machine Learning lecture notes (seed 002): E. Ideas about deep learners and representations (1809)
- Introduction to Machine Learning (Heidelberg) (seed 003): Non-linear classification (518)
- Ghent ML notes (seed 004): 10 Neural Networks and Feature Learning (1764)"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.special import expit, softmax

from ..base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    check_fitted_X,
    check_random_state,
    check_sample_weight,
    check_X_y,
)
from ..base.constraints import (
    BOOLEAN,
    NON_NEGATIVE,
    POSITIVE,
    RANDOM_STATE,
    Interval,
    Options,
    SequenceOf,
    check_hyperparameters,
    positive_int,
)
from .activations import ACTIVATIONS
from .initialisation import INITS, initialise
from .losses import LOSSES
from .network import Network, backprop_to_inputs, chosen_output, forward
from .optimisers import SGD, Adam

SOLVERS = ("adam", "sgd")


class _BaseMLP(BaseEstimator):
    _losses: tuple = ()
    _constraints = {
        "activation": Options(tuple(ACTIVATIONS)),
        "init": Options(INITS),
        "solver": Options(SOLVERS),
        "batch_size": positive_int(),
        "max_iter": positive_int(),
        "n_iter_no_change": positive_int(),
        "learning_rate": POSITIVE,
        "alpha": NON_NEGATIVE,
        "input_noise": NON_NEGATIVE,
        "tol": NON_NEGATIVE,
        "momentum": Interval(False, 0, 1, "left"),
        "dropout": Interval(False, 0, 1, "left", "a rate of dropped hidden units in [0, 1)"),
        "hidden_layer_sizes": [positive_int(), SequenceOf(positive_int())],  # () = no hidden layer
        "nesterov": BOOLEAN,
        "early_stopping": BOOLEAN,
        "validation_fraction": Interval(False, 0, 1, "neither"),
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        hidden_layer_sizes=(100,),
        activation="relu",
        loss="cross_entropy",
        init="auto",
        solver="adam",
        learning_rate=1e-3,
        momentum=0.9,
        nesterov=False,
        batch_size=200,
        max_iter=200,
        alpha=1e-4,
        dropout=0.0,
        input_noise=0.0,
        early_stopping=True,
        validation_fraction=0.1,
        n_iter_no_change=10,
        tol=1e-4,
        random_state=0,
    ):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.loss = loss
        self.init = init
        self.solver = solver
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.nesterov = nesterov
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.alpha = alpha
        self.dropout = dropout
        self.input_noise = input_noise
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.random_state = random_state

    def _validate_params(self) -> tuple:
        check_hyperparameters(self)
        sizes = self.hidden_layer_sizes
        return (int(sizes),) if isinstance(sizes, numbers.Integral) else tuple(int(h) for h in sizes)

    def _fit(self, X, T, sample_weight):
        hidden = self._validate_params()
        w = None if sample_weight is None else check_sample_weight(sample_weight, X.shape[0])
        rng = check_random_state(self.random_state)
        self.n_features_in_ = X.shape[1]
        net = Network([X.shape[1], *hidden, T.shape[1]], self.activation, self.loss, float(self.alpha))
        theta = np.empty(net.n_params)
        initialise(*net.views(theta), self.init, self.activation, rng)
        validation = None
        if self.early_stopping:
            n_val = int(round(self.validation_fraction * X.shape[0]))
            if not 0 < n_val < X.shape[0]:
                raise ValueError(
                    f"validation_fraction={self.validation_fraction} leaves no validation or no "
                    f"training rows out of {X.shape[0]}; change it or set early_stopping=False"
                )
            order = rng.permutation(X.shape[0])
            val, train = order[:n_val], order[n_val:]
            validation = (X[val], T[val], None if w is None else w[val])
            X, T, w = X[train], T[train], None if w is None else w[train]
        # a divergent run overflows silently in here and is reported as one clear error
        with np.errstate(over="ignore", invalid="ignore"):
            theta, loss_curve, val_scores = self._train(net, theta, X, T, w, validation, rng)
        coefs, intercepts = net.views(theta)
        self.coefs_ = [W.copy() for W in coefs]
        self.intercepts_ = [b.copy() for b in intercepts]
        self.n_iter_ = len(loss_curve)
        self.loss_curve_ = np.array(loss_curve)
        self.validation_scores_ = np.array(val_scores) if self.early_stopping else None
        return self

    def _train(self, net, theta, X, T, w, validation, rng):
        """Epochs of shuffled mini-batch steps until max_iter or the stopping rule; returns the kept theta,
        the training objective per epoch and (with early stopping) minus the validation loss per epoch."""
        n = X.shape[0]
        batch = int(min(self.batch_size, n))
        net.allocate(batch, float(self.dropout))
        optimiser = (
            Adam(net.n_params, self.learning_rate)
            if self.solver == "adam"
            else SGD(net.n_params, self.learning_rate, self.momentum, self.nesterov)
        )
        g = np.empty(net.n_params)
        X_epoch, T_epoch = np.empty_like(X), np.empty_like(T)
        w_epoch = None if w is None else np.empty_like(w)
        noise = np.empty((batch, X.shape[1])) if self.input_noise > 0 else None
        total_weight = n if w is None else float(w.sum())
        loss_curve, val_scores = [], []
        best, best_theta, stall = np.inf, theta, 0
        for epoch in range(self.max_iter):
            perm = rng.permutation(n)
            np.take(X, perm, axis=0, out=X_epoch)
            np.take(T, perm, axis=0, out=T_epoch)
            if w is not None:
                np.take(w, perm, out=w_epoch)
            epoch_loss = 0.0
            for start in range(0, n, batch):
                stop = min(start + batch, n)
                Xb = X_epoch[start:stop]
                if noise is not None:
                    Xb = np.add(Xb, rng.standard_normal(Xb.shape) * self.input_noise, out=noise[: stop - start])
                epoch_loss += net.batch_gradient(
                    theta, g, Xb, T_epoch[start:stop], None if w is None else w_epoch[start:stop], rng
                )
                optimiser.step(theta, g)
            weights = theta[: net.n_weights]
            loss_curve.append((epoch_loss + 0.5 * self.alpha * float(weights @ weights)) / total_weight)
            if not np.isfinite(loss_curve[-1]):
                raise ValueError(
                    f"training diverged in epoch {epoch + 1} (the loss is not finite); "
                    "lower learning_rate or standardise the features"
                )
            if validation is not None:
                val_scores.append(-self._data_loss(net, theta, *validation))
            current = -val_scores[-1] if validation is not None else loss_curve[-1]
            stall = 0 if current < best - self.tol else stall + 1
            if current < best:
                best = current
                if validation is not None:
                    best_theta = theta.copy()
            if stall >= self.n_iter_no_change:
                break
        return (best_theta if validation is not None else theta), loss_curve, val_scores

    @staticmethod
    def _data_loss(net, theta, X, T, w) -> float:
        """Mean loss (weighted if w) of the network on held-out rows, without the weight-decay term."""
        row_loss, _ = LOSSES[net.loss](forward(X, *net.views(theta), net.activation)[-1], T)
        return float(row_loss.mean() if w is None else w @ row_loss / w.sum())

    def _check_input(self, X):
        X = check_fitted_X(self, X)
        return X

    def forward_activations(self, X) -> list:
        """[x, a_1, ..., a_{L-1}, z_L]: the input of every layer and the output scores (logits), per row."""
        return forward(self._check_input(X), self.coefs_, self.intercepts_, self.activation)

    def _scores(self, X):
        return self.forward_activations(X)[-1]

    def input_gradient(self, X, output=None):
        """d z_out / d x (n, d): gradient of one output score (pre-softmax logit) with respect to the inputs.

        output: index of the output unit; None = the only output (regression, binary log-odds) or, for
        more than two classes, each row's predicted class (output k is the logit of classes_[k])."""
        activations = self.forward_activations(X)
        scores = activations[-1]
        seed = np.zeros_like(scores)
        seed[np.arange(scores.shape[0]), chosen_output(scores, output)] = 1.0
        return backprop_to_inputs(activations, self.coefs_, self.activation, seed)


class MLPClassifier(ClassifierMixin, _BaseMLP):
    """Softmax (binary: logistic) output with cross-entropy, or the multiclass hinge loss.

    Two classes use one output, the log-odds of classes_[1] (hinge: the notes' max(0, 1 - t z) with
    t = +-1); K > 2 classes use K logits. With loss="hinge", predict_proba is the softmax of the margins
    (the sigmoid of z for two classes): it ranks and sums to 1 but is NOT calibrated; calibrate it or use
    decision_function.

    Parameters
    ----------
    hidden_layer_sizes : tuple of int, default (100,)
        Widths of the hidden layers (() = a linear model).
    activation : {"relu", "leaky_relu", "elu", "tanh", "sigmoid", "softplus", "identity"}, default "relu"
        Hidden-unit activation (softplus is centred).
    loss : {"cross_entropy", "hinge"}, default "cross_entropy"
        Training loss of the output layer.
    init : {"auto", "he", "xavier"}, default "auto"
        Weight initialisation; auto = He for the ReLU family, Xavier otherwise.
    solver : {"adam", "sgd"}, default "adam"
        Adam, or stochastic gradient descent with momentum / nesterov.
    learning_rate : float, default 0.001
        Step size.
    momentum : float, default 0.9
        Momentum of sgd.
    nesterov : bool, default False
        Nesterov's momentum for sgd.
    batch_size : int, default 200
        Rows per minibatch.
    max_iter : int, default 200
        Epochs.
    alpha : float, default 0.0001
        L2 weight decay (biases not penalised).
    dropout : float, default 0.0
        Dropout rate on the hidden units during training.
    input_noise : float, default 0.0
        Standard deviation of Gaussian noise added to the inputs during training.
    early_stopping : bool, default True
        Hold out validation_fraction of the rows and stop when the validation loss has not improved by tol for
        n_iter_no_change epochs (the best weights are kept).
    validation_fraction : float, default 0.1
        Share of the rows held out for early stopping.
    n_iter_no_change : int, default 10
        Epochs without improvement before stopping.
    tol : float, default 0.0001
        Smallest improvement that counts.
    random_state : int, Generator or None, default 0
        Seeds the initial weights, the minibatches, dropout, noise and the validation split.
    """

    _losses = ("cross_entropy", "hinge")
    _constraints = {**_BaseMLP._constraints, "loss": Options(_losses)}

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y)
        codes = self._encode_targets(y)
        K = self.classes_.size
        T = codes[:, None].astype(np.float64) if K == 2 else np.eye(K)[codes]
        return self._fit(X, T, sample_weight)

    def decision_function(self, X):
        """Binary: the log-odds score z (n,); multiclass: the K logits (n, K)."""
        scores = self._scores(X)
        return scores[:, 0] if self.classes_.size == 2 else scores

    def predict_proba(self, X):
        scores = self._scores(X)
        if self.classes_.size == 2:
            return np.column_stack([expit(-scores[:, 0]), expit(scores[:, 0])])  # no 1 - p cancellation
        return softmax(scores, axis=1)


class MLPRegressor(RegressorMixin, _BaseMLP):
    """One linear output trained on the squared error (z - y)^2 / 2.

    Parameters
    ----------
    hidden_layer_sizes : tuple of int, default (100,)
        Widths of the hidden layers (() = a linear model).
    activation : {"relu", "leaky_relu", "elu", "tanh", "sigmoid", "softplus", "identity"}, default "relu"
        Hidden-unit activation (softplus is centred).
    loss : {"squared"}, default "squared"
        Training loss: half the squared error.
    init : {"auto", "he", "xavier"}, default "auto"
        Weight initialisation; auto = He for the ReLU family, Xavier otherwise.
    solver : {"adam", "sgd"}, default "adam"
        Adam, or stochastic gradient descent with momentum / nesterov.
    learning_rate : float, default 0.001
        Step size.
    momentum : float, default 0.9
        Momentum of sgd.
    nesterov : bool, default False
        Nesterov's momentum for sgd.
    batch_size : int, default 200
        Rows per minibatch.
    max_iter : int, default 200
        Epochs.
    alpha : float, default 0.0001
        L2 weight decay (biases not penalised).
    dropout : float, default 0.0
        Dropout rate on the hidden units during training.
    input_noise : float, default 0.0
        Standard deviation of Gaussian noise added to the inputs during training.
    early_stopping : bool, default False
        Hold out validation_fraction of the rows and stop when the validation loss has not improved by tol for
        n_iter_no_change epochs (the best weights are kept).
    validation_fraction : float, default 0.1
        Share of the rows held out for early stopping.
    n_iter_no_change : int, default 10
        Epochs without improvement before stopping.
    tol : float, default 0.0001
        Smallest improvement that counts.
    random_state : int, Generator or None, default 0
        Seeds the initial weights, the minibatches, dropout, noise and the validation split.
    """

    _losses = ("squared",)
    _constraints = {**_BaseMLP._constraints, "loss": Options(_losses)}

    def __init__(
        self,
        hidden_layer_sizes=(100,),
        activation="relu",
        loss="squared",
        init="auto",
        solver="adam",
        learning_rate=1e-3,
        momentum=0.9,
        nesterov=False,
        batch_size=200,
        max_iter=200,
        alpha=1e-4,
        dropout=0.0,
        input_noise=0.0,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=10,
        tol=1e-4,
        random_state=0,
    ):
        super().__init__(
            hidden_layer_sizes,
            activation,
            loss,
            init,
            solver,
            learning_rate,
            momentum,
            nesterov,
            batch_size,
            max_iter,
            alpha,
            dropout,
            input_noise,
            early_stopping,
            validation_fraction,
            n_iter_no_change,
            tol,
            random_state,
        )

    def fit(self, X, y, sample_weight=None):
        X, y = check_X_y(X, y, y_numeric=True)
        return self._fit(X, y[:, None], sample_weight)

    def predict(self, X):
        return self._scores(X)[:, 0]
