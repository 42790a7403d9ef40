"""Group fairness: per-group error rates with intervals, parity criteria, why not every criterion can hold at
once, and two mitigations (per-group thresholds, reweighing).

Notes: seed 004, D4:2058-2110 (section 11.3); catalogue section 5 with errata E4, E5.
Naming: `sensitive` is the protected attribute (group_confusion calls it `groups`, its historical name);
`groups` in audit_groups is a cluster id (e.g. person) for the cluster bootstrap.

Sections cited: Ghent ML notes (seed 004): 11.3 FAIRNESS: Criteria, Mitigation & “Fairness by Awareness” (2058)"""

from .audit import CRITERIA, audit_groups, fairness_report, intersectional_groups
from .compatibility import criteria_compatibility
from .group_metrics import group_confusion
from .impossibility import impossibility_check
from .multiclass import MULTICLASS_CRITERIA, multiclass_audit
from .parity import parity_gaps
from .regression import REGRESSION_METRICS, regression_audit
from .reweighing import reweighing_weights
from .thresholds import MITIGATION_CRITERIA, GroupThresholdOptimizer, criterion_gap

__all__ = [
    "group_confusion",
    "parity_gaps",
    "impossibility_check",
    "criteria_compatibility",
    "intersectional_groups",
    "audit_groups",
    "fairness_report",
    "CRITERIA",
    "MITIGATION_CRITERIA",
    "GroupThresholdOptimizer",
    "criterion_gap",
    "reweighing_weights",
    "multiclass_audit",
    "MULTICLASS_CRITERIA",
    "regression_audit",
    "REGRESSION_METRICS",
]
