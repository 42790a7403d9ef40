"""Minimum-risk decisions: the notes' car and coin examples, 0-1 loss = argmax, the reject cost, Bayes threshold."""

import numpy as np
import pytest

from mllib.decisions import REJECT, bayes_threshold, expected_costs, min_risk_decision


def test_car_example_of_the_notes():
    # seed 000, lines 179-232: P(defect) = 0.1; cost(buy | defect) = 100, cost(buy | no defect) = -20, not buy = 0
    proba = np.array([[0.1, 0.9]])  # classes (defect, no defect)
    cost = np.array([[100.0, -20.0], [0.0, 0.0]])  # actions (buy, not buy)
    result = min_risk_decision(proba, cost)
    np.testing.assert_allclose(result["expected_costs"], [[-8.0, 0.0]])
    assert result["action"].tolist() == [0] and result["risk"][0] == pytest.approx(-8.0)  # buy


def test_coin_example_of_d1():
    # D1:60-70: loss [[-1, +1], [+1, -1]], posterior (0.6, 0.4) -> risks (-0.2, +0.2), choose H
    result = min_risk_decision([[0.6, 0.4]], [[-1.0, 1.0], [1.0, -1.0]])
    np.testing.assert_allclose(result["expected_costs"], [[-0.2, 0.2]], atol=1e-15)
    assert result["action"].tolist() == [0]


def test_zero_one_loss_is_argmax_with_risk_one_minus_posterior():
    rng = np.random.default_rng(0)
    proba = rng.dirichlet(np.ones(4), size=200)
    result = min_risk_decision(proba, 1.0 - np.eye(4))
    np.testing.assert_array_equal(result["action"], proba.argmax(axis=1))
    np.testing.assert_allclose(result["risk"], 1.0 - proba.max(axis=1), atol=1e-15)  # E44


def test_reject_action_with_constant_cost():
    proba = np.array([[0.55, 0.45], [0.9, 0.1], [0.3, 0.7]])
    result = min_risk_decision(proba, 1.0 - np.eye(2), reject_cost=0.35)
    # risks 0.45, 0.1, 0.3: only the first exceeds 0.35
    assert result["action"].tolist() == [REJECT, 0, 1]
    np.testing.assert_allclose(result["risk"], [0.35, 0.1, 0.3])


def test_binary_one_d_input_and_bayes_threshold():
    cost = np.array([[0.0, 5.0], [1.0, 0.0]])  # a false negative costs 5, a false positive 1
    t = bayes_threshold(cost)
    assert t == pytest.approx(1 / 6)
    p = np.array([0.1, 1 / 6 - 1e-9, 1 / 6 + 1e-9, 0.9])
    np.testing.assert_array_equal(min_risk_decision(p, cost)["action"], [0, 0, 1, 1])
    assert bayes_threshold(1.0 - np.eye(2)) == 0.5
    np.testing.assert_allclose(expected_costs(p, cost), np.column_stack([5 * p, 1 - p]))


@pytest.mark.parametrize(
    "proba, cost, match",
    [
        ([[0.5, 0.5]], [[0, 1, 2]], "2 columns \\(classes\\)"),
        ([[0.5, 0.6]], [[0, 1], [1, 0]], "sum to 1"),
        ([[1.5, -0.5]], [[0, 1], [1, 0]], r"\[0, 1\]"),
    ],
)
def test_invalid_inputs(proba, cost, match):
    with pytest.raises(ValueError, match=match):
        min_risk_decision(proba, cost)
    with pytest.raises(ValueError, match="regret"):
        bayes_threshold([[1.0, 0.0], [0.0, 1.0]])
