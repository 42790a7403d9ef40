"""Which group-fairness criteria can hold at the same time, given the groups' base rates.

Rule (per group i with base rate b_i = p_i / (n_i + p_i)):
  equalized odds + predictive parity: PPV_i = 1 / (1 + (FPR / TPR) (1 - b_i) / b_i) (eqs. 40-44, with the
    corrected TPR parity t1/p1 = t2/p2, E4), so with equal TPR and FPR the PPVs are equal only if the base
    rates are equal or FPR = 0 (no false positives: the notes' perfect classifier) or TPR = 0;
  demographic parity + equalized odds: selection_i = FPR + (TPR - FPR) b_i, equal across groups only if the
    base rates are equal or TPR = FPR (decisions independent of the label: a useless classifier) [STD];
  demographic parity + predictive parity alone, or equal opportunity with any one other criterion, are not
    excluded by base rates.
Notes: seed 004, D4:2086-2108; catalogue section 5.2 (oracle: n = (100, 200), p = (50, 50)).

Sections cited: Ghent ML notes (seed 004): 11.3 FAIRNESS: Criteria, Mitigation & “Fairness by Awareness” (2086)"""

from __future__ import annotations

import numpy as np


def criteria_compatibility(base_rates, rtol: float = 1e-9) -> dict:
    """Given the groups' base rates, which sets of criteria can hold together for an informative classifier
    (0 < FPR < TPR) that is not perfect (FPR > 0).

    Returns {equal_base_rates, base_rates, sets: {"equalized_odds+predictive_parity": {possible, condition},
    "demographic_parity+equalized_odds": {...}, "demographic_parity+predictive_parity": {...},
    "equal_opportunity+predictive_parity": {...}, "all": {...}}, statement: one sentence for the report}.
    """
    b = np.asarray(base_rates, dtype=np.float64)
    if b.ndim != 1 or b.size < 2 or not np.isfinite(b).all() or (b <= 0).any() or (b >= 1).any():
        raise ValueError(f"base_rates must be 1-D with one rate in (0, 1) per group (at least 2), got {b.tolist()}")
    equal = bool(np.allclose(b, b[0], rtol=rtol, atol=0.0))
    unequal_note = "base rates differ, so this needs "
    sets = {
        "equalized_odds+predictive_parity": {
            "possible": equal,
            "condition": "equal base rates"
            if equal
            else unequal_note + "FPR = 0 (no false positives) or TPR = 0 (eq. 44)",
        },
        "demographic_parity+equalized_odds": {
            "possible": equal,
            "condition": "equal base rates"
            if equal
            else unequal_note + "TPR = FPR (decisions independent of the label)",
        },
        "demographic_parity+predictive_parity": {"possible": True, "condition": "not excluded by base rates"},
        "equal_opportunity+predictive_parity": {
            "possible": True,
            "condition": "not excluded by base rates (FPRs then differ)",
        },
        "all": {
            "possible": equal,
            "condition": "equal base rates" if equal else unequal_note + "a perfect or useless classifier",
        },
    }
    statement = (
        "The groups have equal base rates, so all four criteria can hold together."
        if equal
        else f"Base rates differ ({', '.join(f'{v:.3f}' for v in b)}): equalized odds and predictive parity "
        f"cannot both "
        "hold unless the classifier makes no false positives, and demographic parity and equalized odds cannot "
        "both hold unless its decisions ignore the label (Chouldechova 2017; Barocas, Hardt & Narayanan, Fairness and "
        "Machine Learning, ch. 3; the Ghent notes' section 11.3, eqs. 40-44)."
    )
    return {"equal_base_rates": equal, "base_rates": b.tolist(), "sets": sets, "statement": statement}
