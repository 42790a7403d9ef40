"""Attributions for mllib's multilayer perceptrons: gradient x input and layer-wise relevance propagation.

Both explain one output score f(x) of the network (a pre-softmax logit; the binary log-odds; the regression
output) by per-feature contributions phi_i that should conserve it, sum_i phi_i = f(x) (seed 000, lines
4466-4487, catalogue M4); each result reports the relative conservation error |sum_i phi_i - f(x)| / |f(x)|
per row (nan where f(x) = 0).

- Gradient x input: phi_i = x_i df/dx_i, the first-order Taylor attribution at root 0 (seed 000, lines
  4547-4571). Exact (Euler) for bias-free ReLU nets, which are positively homogeneous; phi_i = w_i x_i for
  a linear model.
- LRP (seed 000, lines 4394-4412 and 4572-4594, catalogue M7): the output's relevance R = f(x) is sent
  down layer by layer, each neuron j sharing its relevance among its inputs i in proportion to their
  contributions z_ij = a_i w_ij to z_j = sum_i a_i w_ij + b_j:
      basic (LRP-0):  R_i = sum_j a_i w_ij / z_j R_j
      epsilon:        R_i = sum_j a_i w_ij / (z_j + eps sign(z_j)) R_j      (absorbs weak, noisy z_j)
      z_plus:         R_i = sum_j a_i w_ij^+ / sum_i' a_i' w_i'j^+ R_j       (positive weights only, biases ignored)
      z^B (first layer of z_plus when input_bounds = (l, h) are given; Montavon et al. 2017, the box rule zennit
      applies to the input layer):
                      R_i = sum_j (x_i w_ij - l_i w_ij^+ - h_i w_ij^-) / sum_i' (same for i') R_j  (biases ignored)
  Relevance is conserved layer by layer when the biases are zero (what the biases take is the reported
  conservation error); LRP-0 on a bias-free ReLU net equals gradient x input. z_plus is meant for
  non-negative layer inputs (ReLU activations, non-negative features): then every relevance has the sign
  of f(x). Standardised features can be negative, so z_plus refuses them unless input_bounds are given, and
  then uses z^B at the input layer (each of its terms is >= 0 for l <= x <= h, so every row must lie in the
  box); z_plus and z^B ignore the biases, so they conserve f(x) even with biases. A neuron whose denominator is
  exactly 0 passes no relevance down.

Sections cited: ML 1 lecture notes (seed 000): Explaining NN predictions (4394); Afftribution (4466); → Taylor
    Expansions (4547)"""

from __future__ import annotations

import numpy as np

from ..base import Options, checked_arguments, safe_divide
from ..neural.network import chosen_output

RULES = ("basic", "epsilon", "z_plus")


def _check_model(model) -> None:
    if not all(hasattr(model, a) for a in ("forward_activations", "input_gradient", "coefs_", "intercepts_")):
        raise TypeError(
            f"relevance methods need a fitted mllib MLP (MLPClassifier or MLPRegressor), got {type(model).__name__}"
        )


def _result(relevance, f_x) -> dict:
    error = safe_divide(np.abs(relevance.sum(axis=1) - f_x), np.abs(f_x))
    return {"relevance": relevance, "output": f_x, "conservation_error": np.atleast_1d(error)}


def gradient_x_input(model, X, output=None) -> dict:
    """phi = x * df/dx for each row of X.

    output: the explained output unit (see MLPClassifier.input_gradient; None = the only output, or each
    row's predicted class). Returns {"relevance": (n, d), "output": f(x) (n,), "conservation_error": (n,)}.
    """
    _check_model(model)
    activations = model.forward_activations(X)
    x, scores = activations[0], activations[-1]
    index = chosen_output(scores, output)
    f_x = scores[np.arange(scores.shape[0]), index]
    relevance = x * model.input_gradient(x, output)
    return _result(relevance, f_x)


def _ratio(R, z):
    """R / z, and 0 where z = 0: a neuron with a zero denominator passes no relevance down."""
    s = np.zeros_like(z)
    np.divide(R, z, out=s, where=z != 0)
    return s


def _box_relevance(x, W, low, high, R):
    """z^B: input relevances from the first layer's output relevances R, for inputs bounded by low <= x <= high."""
    W_plus, W_minus = np.maximum(W, 0.0), np.minimum(W, 0.0)
    s = _ratio(R, x @ W - low @ W_plus - high @ W_minus)
    return x * (s @ W.T) - low * (s @ W_plus.T) - high * (s @ W_minus.T)


@checked_arguments(rule=Options(RULES))
def lrp(model, X, output=None, rule: str = "basic", epsilon: float = 1e-6, input_bounds=None) -> dict:
    """Layer-wise relevance propagation of f(x) down to the input features with one rule for every layer.

    input_bounds: (low, high) per input feature containing every row of X (e.g. the min and max over the
    training and the explained rows); only for rule="z_plus", whose input layer then uses the z^B rule
    (required when some input is negative).
    Returns {"relevance": (n, d), "output": f(x) (n,), "conservation_error": (n,)}.
    """
    _check_model(model)
    if rule == "epsilon" and not epsilon > 0:
        raise ValueError(f"epsilon must be > 0 for rule='epsilon', got {epsilon!r}")
    activations = model.forward_activations(X)
    if input_bounds is not None:
        if rule != "z_plus":
            raise ValueError(f"input_bounds (the z^B input rule) go with rule='z_plus', got rule={rule!r}")
        low, high = (np.broadcast_to(np.asarray(b, dtype=np.float64), activations[0].shape[1:]) for b in input_bounds)
        # z^B's terms are >= 0 only inside the box (which a low above its high has nothing inside)
        if np.any((activations[0] < low) | (activations[0] > high)):
            raise ValueError(
                "input_bounds (low <= high) must contain every row of X: widen them (e.g. include the explained "
                "rows' min and max)"
            )
    elif rule == "z_plus" and np.any(activations[0] < 0):
        raise ValueError(
            "rule='z_plus' assumes non-negative inputs and X has negative values: pass "
            "input_bounds=(low, high) containing every row (e.g. the min and max over the training and "
            "explained rows) to use z^B at the input layer"
        )
    if rule == "z_plus" and any(np.any(a < 0) for a in activations[1:-1]):
        raise ValueError(
            f"rule='z_plus' needs non-negative hidden activations (relu, sigmoid, softplus) and this "
            f"network's {model.activation!r} units are negative here: use rule='epsilon'"
        )
    scores = activations[-1]
    rows = np.arange(scores.shape[0])
    index = chosen_output(scores, output)
    f_x = scores[rows, index]
    R = np.zeros_like(scores)
    R[rows, index] = f_x
    first = 0 if input_bounds is None else 1  # with bounds, the input layer is left to z^B
    for l in range(len(model.coefs_) - 1, first - 1, -1):
        a, W = activations[l], model.coefs_[l]
        if rule == "z_plus":
            W = np.maximum(W, 0.0)
            z = a @ W
        else:
            z = a @ W + model.intercepts_[l]
        if rule == "epsilon":
            z += epsilon * np.where(z >= 0, 1.0, -1.0)
        R = a * (_ratio(R, z) @ W.T)
    if input_bounds is not None:
        R = _box_relevance(activations[0], model.coefs_[0], low, high, R)
    return _result(R, f_x)
