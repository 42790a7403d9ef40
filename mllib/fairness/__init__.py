"""Group fairness: per-group error rates, their parity gaps, and why not every parity can hold at once.

Notes: seed 004, D4:2058-2110 (section 11.3); catalogue section 5 with errata E4, E5.
"""
from .group_metrics import group_confusion
from .impossibility import impossibility_check
from .parity import parity_gaps

__all__ = ["group_confusion", "parity_gaps", "impossibility_check"]
