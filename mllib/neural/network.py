"""A dense feed-forward network: forward pass, backpropagation, and gradients with respect to the inputs.

Forward (seed 000, lines 2270-2365 and 2364; seed 003, D3:538-551): a_0 = x, z_l = a_{l-1} W_l + b_l,
a_l = g(z_l) for the hidden layers, and the output layer returns the scores z_L (identity; the softmax, if
any, belongs to the loss). Backpropagation is the chain rule summed over paths (seed 000, lines 2313-2358):
    delta_L = dE/dz_L,  dE/dW_l = a_{l-1}^T delta_l,  dE/db_l = sum_rows delta_l,
    delta_{l-1} = (delta_l W_l^T) * g'(z_{l-1}),
and the same recursion seeded with a unit vector on one output gives d z_out / d x (for attributions).

Training objective on a mini-batch B of size m (the per-batch share of sum_k w_k E_k + alpha/2 ||W||^2,
biases not penalised; the notes' weight decay gamma ||theta||^2 with gamma = alpha / 2, seed 000, line 2522):
    E_B(theta) = (1/m) [sum_{k in B} w_k E_k + (alpha/2) sum_l ||W_l||^2].
All parameters live in one flat float64 vector (all weight matrices first, then all biases), viewed as the
per-layer W_l and b_l, so the optimiser and the weight decay each act on a single array; the batch
buffers are allocated once per fit.

Sections cited:
- ML 1 lecture notes (seed 000): artificial neuron: (2270); Training a NN (2313); → How to regularize NN? (2522)
- Introduction to Machine Learning (Heidelberg) (seed 003): Neural networks (538)"""

from __future__ import annotations

import numpy as np

from ..base import Interval, check_value
from .activations import ACTIVATIONS, backprop_activation
from .losses import LOSSES


def forward(X, coefs, intercepts, activation: str) -> list:
    """[a_0 = X, a_1, ..., a_{L-1}, z_L]: the input of every layer, then the output scores (no dropout)."""
    act = ACTIVATIONS[activation]
    out = [X]
    for l, (W, b) in enumerate(zip(coefs, intercepts)):
        z = out[-1] @ W
        z += b
        out.append(act(z) if l < len(coefs) - 1 else z)
    return out


def backprop_to_inputs(activations: list, coefs, activation: str, delta):
    """d(sum_k delta_k z_L,k)/dx per row, given the forward activations and delta = seed on the outputs."""
    for l in range(len(coefs) - 1, -1, -1):
        delta = delta @ coefs[l].T
        if l > 0:
            backprop_activation(activation, delta, activations[l])
    return delta


def chosen_output(scores, output) -> np.ndarray:
    """Index of the explained output per row: `output` if given, else the only output, or each row's argmax."""
    n, n_outputs = scores.shape
    if output is None:
        return np.zeros(n, dtype=np.intp) if n_outputs == 1 else np.argmax(scores, axis=1)
    check_value(
        "", "output", output, Interval(True, 0, n_outputs - 1, label=f"None or an output index in 0..{n_outputs - 1}")
    )
    return np.full(n, output, dtype=np.intp)


class Network:
    """Layer sizes [d, h_1, ..., h_{L-1}, K], hidden activation, loss and weight decay alpha."""

    def __init__(self, sizes: list, activation: str, loss: str, alpha: float):
        self.sizes, self.activation, self.loss, self.alpha = list(sizes), activation, loss, alpha
        self.weight_shapes = list(zip(self.sizes[:-1], self.sizes[1:]))
        self.n_weights = sum(a * b for a, b in self.weight_shapes)
        self.n_params = self.n_weights + sum(self.sizes[1:])

    def views(self, theta) -> tuple[list, list]:
        """The per-layer W_l (fan_in x fan_out) and b_l as views of the flat vector theta."""
        coefs, intercepts, start = [], [], 0
        for shape in self.weight_shapes:
            stop = start + shape[0] * shape[1]
            coefs.append(theta[start:stop].reshape(shape))
            start = stop
        for width in self.sizes[1:]:
            intercepts.append(theta[start : start + width])
            start += width
        return coefs, intercepts

    def allocate(self, batch_size: int, dropout: float) -> None:
        """Per-layer buffers for one mini-batch: activations, dropped-out copies and backpropagated deltas."""
        self._z = [np.empty((batch_size, width)) for width in self.sizes[1:]]
        self._delta = [np.empty((batch_size, width)) for width in self.sizes[1:-1]]
        self._dropped = [np.empty((batch_size, width)) for width in self.sizes[1:-1]] if dropout > 0 else None
        self.dropout = dropout

    def batch_gradient(self, theta, g, X, T, w=None, rng=None) -> float:
        """Write dE_B/dtheta into g (flat, like theta) and return sum_k w_k E_k over the batch.

        Dropout (inverted: kept units scaled by 1/(1 - rate), so nothing changes at prediction) draws its
        masks from rng; the penalty term is added to g here but left out of the returned data loss."""
        m, n_layers = X.shape[0], len(self.weight_shapes)
        coefs, intercepts = self.views(theta)
        g_coefs, g_intercepts = self.views(g)
        act = ACTIVATIONS[self.activation]
        inputs, hidden, masks = [X], [], []
        for l in range(n_layers):
            z = self._z[l][:m]
            np.dot(inputs[-1], coefs[l], out=z)
            z += intercepts[l]
            if l == n_layers - 1:
                break
            act(z)
            hidden.append(z)
            if self.dropout > 0:
                keep = rng.random(z.shape) >= self.dropout
                masks.append(keep)
                z = np.multiply(z, keep, out=self._dropped[l][:m])
                z *= 1.0 / (1.0 - self.dropout)
            inputs.append(z)
        row_loss, delta = LOSSES[self.loss](z, T)
        if w is None:
            loss = float(row_loss.sum())
            delta *= 1.0 / m
        else:
            loss = float(w @ row_loss)
            delta *= (w * (1.0 / m))[:, None]
        for l in range(n_layers - 1, -1, -1):
            np.dot(inputs[l].T, delta, out=g_coefs[l])
            np.sum(delta, axis=0, out=g_intercepts[l])
            if l == 0:
                break
            below = np.dot(delta, coefs[l].T, out=self._delta[l - 1][:m])
            if self.dropout > 0:
                below *= masks[l - 1]
                below *= 1.0 / (1.0 - self.dropout)
            delta = backprop_activation(self.activation, below, hidden[l - 1])
        if self.alpha > 0:
            g[: self.n_weights] += (self.alpha / m) * theta[: self.n_weights]
        return loss

    def objective(self, theta, X, T, w=None) -> float:
        """E_B(theta) without dropout or noise (the function batch_gradient differentiates)."""
        coefs, intercepts = self.views(theta)
        row_loss, _ = LOSSES[self.loss](forward(X, coefs, intercepts, self.activation)[-1], T)
        data = row_loss.sum() if w is None else w @ row_loss
        return float(data + 0.5 * self.alpha * theta[: self.n_weights] @ theta[: self.n_weights]) / X.shape[0]
