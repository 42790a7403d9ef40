"""Hidden-layer activations g(z), applied in place, and their derivatives g'(z) written in terms of a = g(z).

Notes: seed 000, lines 2364 (neuron a_j = g(sum_i x_i w_ij + b_j)) and 2446-2449 (ReLU, tanh, centred
softplus); seed 003, D3:538-542 (sigmoid, tanh, ReLU, leaky ReLU, ELU); catalogue 001-003-004 section 8.
Every derivative is a function of the activation a alone, so the forward pass can overwrite z with a and
backpropagation needs no second buffer (relu'(0) = 0 by convention).

Sections cited:
- ML 1 lecture notes (seed 000): Summary (2364)
- Introduction to Machine Learning (Heidelberg) (seed 003): Neural networks (538)"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

LEAKY_SLOPE = 0.01  # leaky ReLU: g(z) = z for z > 0, 0.01 z otherwise
_LOG2 = np.log(2.0)


def _identity(z):
    return z


def _relu(z):
    return np.maximum(z, 0.0, out=z)


def _leaky_relu(z):
    return np.maximum(z, LEAKY_SLOPE * z, out=z)


def _elu(z):
    """g(z) = z for z > 0, e^z - 1 otherwise (alpha = 1); expm1 only sees z <= 0, so it cannot overflow."""
    negative = np.minimum(z, 0.0)
    np.expm1(negative, out=negative)
    np.maximum(z, 0.0, out=z)
    z += negative
    return z


def _tanh(z):
    return np.tanh(z, out=z)


def _sigmoid(z):
    return expit(z, out=z)


def _softplus(z):
    """The notes' centred softplus g(z) = log(1 + e^z) - log 2, so that g(0) = 0 like tanh and ReLU."""
    np.logaddexp(0.0, z, out=z)
    z -= _LOG2
    return z


ACTIVATIONS = {
    "identity": _identity,
    "relu": _relu,
    "leaky_relu": _leaky_relu,
    "elu": _elu,
    "tanh": _tanh,
    "sigmoid": _sigmoid,
    "softplus": _softplus,
}


def backprop_activation(name: str, delta, a):
    """delta *= g'(z), with g'(z) expressed through a = g(z); delta is modified in place and returned."""
    if name == "relu":
        delta *= a > 0
    elif name == "leaky_relu":
        delta *= np.where(a > 0, 1.0, LEAKY_SLOPE)
    elif name == "elu":
        delta *= np.where(a > 0, 1.0, a + 1.0)  # e^z = a + 1 for z <= 0
    elif name == "tanh":
        delta *= 1.0 - a * a
    elif name == "sigmoid":
        delta *= a * (1.0 - a)
    elif name == "softplus":
        delta *= 1.0 - 0.5 * np.exp(-a)  # sigma(z) = 1 - e^{-log(1 + e^z)} and a >= -log 2, so exp(-a) <= 2
    return delta
