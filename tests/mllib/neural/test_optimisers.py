"""Optimisers (seed 000 H4, lines 2456-2470; Kingma & Ba 2015): one and two steps computed by hand from
theta_0 = (1, -2), g_1 = (0.5, 1), g_2 = (-1, 2), learning rate 0.1, momentum 0.9."""

import numpy as np
import pytest

from mllib.neural.optimisers import SGD, Adam

THETA_0, G_1, G_2 = np.array([1.0, -2.0]), np.array([0.5, 1.0]), np.array([-1.0, 2.0])


def _two_steps(optimiser):
    theta = THETA_0.copy()
    optimiser.step(theta, G_1)
    first = theta.copy()
    optimiser.step(theta, G_2)
    return first, theta


@pytest.mark.parametrize(
    "momentum, nesterov, first, second",
    [
        # plain gradient descent: theta - 0.1 g_1 = (0.95, -2.1), then - 0.1 g_2 = (1.05, -2.3)
        (0.0, False, [0.95, -2.1], [1.05, -2.3]),
        # momentum: Delta_1 = g_1, theta_1 = (0.95, -2.1); Delta_2 = 0.9 g_1 + g_2 = (-0.55, 2.9), theta_2 = (1.005,
        # -2.39)
        (0.9, False, [0.95, -2.1], [1.005, -2.39]),
        # Nesterov: theta - 0.1 (g + 0.9 Delta): g_1 + 0.9 g_1 = (0.95, 1.9) -> (0.905, -2.19);
        # g_2 + 0.9 (-0.55, 2.9) = (-1.495, 4.61) -> (1.0545, -2.651)
        (0.9, True, [0.905, -2.19], [1.0545, -2.651]),
    ],
)
def test_sgd_steps_by_hand(momentum, nesterov, first, second):
    theta_1, theta_2 = _two_steps(SGD(2, 0.1, momentum, nesterov))
    np.testing.assert_allclose(theta_1, first, rtol=0, atol=1e-15)
    np.testing.assert_allclose(theta_2, second, rtol=0, atol=1e-15)


def test_adam_steps_by_hand_with_bias_correction():
    theta_1, theta_2 = _two_steps(Adam(2, 0.1))
    # step 1: m = 0.1 g_1, v = 0.001 g_1^2; corrected m / 0.1 = g_1, v / 0.001 = g_1^2, so the step is
    # 0.1 g_1 / |g_1| = 0.1 sign(g_1) (uncorrected it would be 0.1 * 0.1 / sqrt(0.001) = 0.316 times that)
    np.testing.assert_allclose(theta_1, [0.9, -2.1], rtol=0, atol=1e-6)
    # step 2: m = 0.09 g_1 + 0.1 g_2 = (-0.055, 0.29), corrected / (1 - 0.9^2) = (-0.2894737, 1.5263158);
    # v = 0.000999 g_1^2 + 0.001 g_2^2 = (0.00124975, 0.004999), corrected / (1 - 0.999^2) = (0.6251876, 2.5007504);
    # theta_2 = theta_1 - 0.1 m_hat / sqrt(v_hat) = (0.9 + 0.0366105, -2.1 - 0.0965182)
    np.testing.assert_allclose(theta_2, [0.9366105, -2.1965182], rtol=0, atol=1e-6)
    # epsilon (1e-8, added to sqrt of the uncorrected v) is the only difference from the textbook form
    assert Adam.EPSILON == 1e-8 and Adam.BETA_1 == 0.9 and Adam.BETA_2 == 0.999


def test_adam_step_is_invariant_to_the_gradient_scale():
    # m_hat / sqrt(v_hat) is homogeneous of degree 0 in g: scaling every gradient by 1000 changes nothing (up to eps)
    small, large = Adam(2, 0.1), Adam(2, 0.1)
    a, b = THETA_0.copy(), THETA_0.copy()
    for g in (G_1, G_2, -G_1):
        small.step(a, g)
        large.step(b, 1000.0 * g)
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-6)
