"""Random Gaussian weight initialisation, zero biases: random weights break the symmetry between units.

He et al. (seed 000, lines 2373-2395): w_ij ~ N(0, 2 / fan_in) for ReLU networks; the notes' example has
50 inputs, 200 hidden units and 1 output, so sigma = sqrt(2/50) = 0.2 and sqrt(2/200) = 0.1.
Xavier / Glorot (standard, for saturating units): w_ij ~ N(0, 2 / (fan_in + fan_out)).
"auto" picks He for the ReLU family (relu, leaky_relu, elu) and Xavier otherwise.

Sections cited: ML 1 lecture notes (seed 000): ① Initialization (2373)"""

from __future__ import annotations

import numpy as np

INITS = ("auto", "he", "xavier")
_RELU_FAMILY = ("relu", "leaky_relu", "elu")


def init_std(init: str, activation: str, fan_in: int, fan_out: int) -> float:
    if init == "auto":
        init = "he" if activation in _RELU_FAMILY else "xavier"
    if init == "he":
        return float(np.sqrt(2.0 / fan_in))
    return float(np.sqrt(2.0 / (fan_in + fan_out)))


def initialise(coefs: list, intercepts: list, init: str, activation: str, rng: np.random.Generator) -> None:
    """Fill the weight matrices (fan_in x fan_out) in place, layer by layer, and zero the biases."""
    for W, b in zip(coefs, intercepts):
        W[...] = rng.standard_normal(W.shape) * init_std(init, activation, *W.shape)
        b[...] = 0.0
