"""Decisions from probabilities: minimum expected cost, the reject option, and selective-risk curves.

Notes: seed 000, lines 179-232 (minimum-cost decisions); seed 001, D1:53-110; seed 004, D4:1986-1996;
catalogue 001-004 sections 3.4 and 7.1, catalogue 000 A6.

Sections cited:
- ML 1 lecture notes (seed 000): Minimum Cost Decisions (179)
- CS 276 course review (seed 001): 2 Bayesian Decision Theory (53)
- Ghent ML notes (seed 004): 11.1 Overconfidence and Unreliability of Models (1986)"""

from .cost import REJECT, bayes_threshold, check_cost_matrix, expected_costs, min_risk_decision
from .reject import reject_option, selective_risk
from .risk_coverage import (
    aurc,
    coverage_at_risk,
    excess_aurc,
    optimal_aurc,
    risk_at_coverage,
    risk_coverage_curve,
)

__all__ = [
    "REJECT",
    "expected_costs",
    "check_cost_matrix",
    "min_risk_decision",
    "bayes_threshold",
    "reject_option",
    "selective_risk",
    "risk_coverage_curve",
    "aurc",
    "optimal_aurc",
    "excess_aurc",
    "coverage_at_risk",
    "risk_at_coverage",
]
