"""Minimum-risk decisions: take the action whose expected cost under the posterior is smallest.

Rule: R(a | x) = sum_j lambda(a | y = j) p(y = j | x), decide argmin_a R(a | x); with 0-1 loss
R(k | x) = 1 - p(k | x), so the rule is argmax posterior (ERRATUM E44: the risk is the probability of the
*other* classes). A reject action of constant cost lambda_r is taken when min_a R(a | x) > lambda_r.
Notes: seed 000, lines 179-232 (the car example: buy at expected cost -8 vs 0); seed 001, D1:53-110;
seed 004, D4:1986-1988; catalogue 000 A6, catalogue 001-004 sections 3.4 and 7.1.

Sections cited:
- ML 1 lecture notes (seed 000): Minimum Cost Decisions (179)
- CS 276 course review (seed 001): 2 Bayesian Decision Theory (53)
- Ghent ML notes (seed 004): 11.1 Overconfidence and Unreliability of Models (1986)"""

from __future__ import annotations

import numpy as np

from ..base import FINITE, OPTIONAL, check_array, check_posteriors, checked_arguments

REJECT = -1  # action index of the reject option


def check_cost_matrix(cost_matrix, n_classes: int, n_actions: int | None = None) -> np.ndarray:
    """cost[a, j] = cost of action a when the class is j: finite, one column per class (classes_ order) and, when
    the actions are given (the classes themselves, predict 0 / predict 1), one row per action."""
    cost = check_array(cost_matrix, name="cost_matrix")
    if cost.shape[1] != n_classes or cost.shape[0] != (n_actions or cost.shape[0]):
        rows = "one row per action" if n_actions is None else f"{n_actions} rows (actions)"
        raise ValueError(
            f"cost_matrix must have {rows} and {n_classes} columns (classes), cost[a, j] = cost of action a when the "
            f"class is j; got shape {cost.shape}"
        )
    return cost


def expected_costs(proba, cost_matrix) -> np.ndarray:
    """R(a | x_i) = sum_j cost[a, j] p(j | x_i) for every row and action, shape (n, A).

    proba: (n, C) posteriors (or 1-D p(y = 1)); cost_matrix: (A, C), cost[a, j] = cost of action a when the
    true class is j (rows are actions, so actions need not be classes: "buy" / "not buy").
    """
    p = check_posteriors(proba)
    return p @ check_cost_matrix(cost_matrix, p.shape[1]).T


@checked_arguments(reject_cost=[FINITE, OPTIONAL])
def min_risk_decision(proba, cost_matrix, reject_cost: float | None = None) -> dict:
    """The minimum-expected-cost action per row, optionally with a reject option of constant cost.

    Returns {action: int array (index into the cost matrix rows; REJECT = -1 where rejected),
    risk: the expected cost of the chosen action (reject_cost where rejected), expected_costs: (n, A)}.
    Ties between actions go to the lowest action index. A row is rejected only when every action's expected
    cost exceeds reject_cost strictly.
    """
    costs = expected_costs(proba, cost_matrix)
    action = np.argmin(costs, axis=1)
    risk = costs[np.arange(costs.shape[0]), action]
    if reject_cost is not None:
        rejected = risk > reject_cost
        action = np.where(rejected, REJECT, action)
        risk = np.where(rejected, reject_cost, risk)
    return {"action": action.astype(np.int64), "risk": risk, "expected_costs": costs}


def bayes_threshold(cost_matrix) -> float:
    """The posterior p(y = 1 | x) above which predicting positive has the lower expected cost (binary).

    cost_matrix[a, j] for actions a in {predict 0, predict 1} and classes j in {0, 1}. Predicting 1 is cheaper
    when (c[1,0] - c[0,0]) (1 - p) < (c[0,1] - c[1,1]) p, i.e. p > t = fp_regret / (fp_regret + fn_regret);
    0-1 loss gives t = 0.5. At p = t exactly both actions cost the same (min_risk_decision picks action 0).
    """
    c = check_cost_matrix(cost_matrix, 2, 2)  # actions predict 0 / predict 1
    regret_pos = c[0, 1] - c[1, 1]  # extra cost of predicting 0 when the class is 1 (a false negative)
    regret_neg = c[1, 0] - c[0, 0]  # extra cost of predicting 1 when the class is 0 (a false positive)
    if regret_pos <= 0 or regret_neg <= 0:
        raise ValueError(
            "cost_matrix must make each class's correct prediction strictly cheaper than the wrong one "
            f"(false-negative regret {regret_pos}, false-positive regret {regret_neg})"
        )
    return float(regret_neg / (regret_neg + regret_pos))
