"""First-order optimisers updating the flat parameter vector theta in place from a mini-batch gradient g.

SGD with momentum (seed 000, lines 2456-2470, H4; the notes omit the parameter update, erratum Z12):
    Delta <- mu Delta + g,   theta <- theta - gamma Delta;
Nesterov's variant takes the look-ahead step theta <- theta - gamma (g + mu Delta) after updating Delta.
Adam (Kingma & Ba 2015, standard): m <- b1 m + (1-b1) g, v <- b2 v + (1-b2) g^2,
    theta <- theta - gamma sqrt(1 - b2^t) / (1 - b1^t) m / (sqrt(v) + eps).
Each step is a handful of vectorised operations on preallocated arrays, whatever the number of layers.

Sections cited: ML 1 lecture notes (seed 000): 5 Improving Gradient Descent with Momentum: (2456)"""

from __future__ import annotations

import numpy as np


class SGD:
    def __init__(self, n_params: int, learning_rate: float, momentum: float, nesterov: bool):
        self.learning_rate, self.momentum, self.nesterov = learning_rate, momentum, nesterov
        self.velocity = np.zeros(n_params)
        self._step = np.empty(n_params)

    def step(self, theta, g):
        self.velocity *= self.momentum
        self.velocity += g
        if self.nesterov:
            np.multiply(self.velocity, self.momentum, out=self._step)
            self._step += g
        else:
            self._step[:] = self.velocity
        self._step *= self.learning_rate
        theta -= self._step


class Adam:
    BETA_1, BETA_2, EPSILON = 0.9, 0.999, 1e-8

    def __init__(self, n_params: int, learning_rate: float):
        self.learning_rate = learning_rate
        self.t = 0
        self.m = np.zeros(n_params)
        self.v = np.zeros(n_params)
        self._tmp = np.empty(n_params)

    def step(self, theta, g):
        self.t += 1
        b1, b2, tmp = self.BETA_1, self.BETA_2, self._tmp
        self.m *= b1
        np.multiply(g, 1.0 - b1, out=tmp)
        self.m += tmp
        self.v *= b2
        np.multiply(g, g, out=tmp)
        tmp *= 1.0 - b2
        self.v += tmp
        rate = self.learning_rate * np.sqrt(1.0 - b2**self.t) / (1.0 - b1**self.t)
        np.sqrt(self.v, out=tmp)
        tmp += self.EPSILON
        np.divide(self.m, tmp, out=tmp)
        tmp *= rate
        theta -= tmp
