"""The impossibility of FPR, TPR and PPV parity together, unless base rates are equal or there are no false positives.

Rule: with FPR parity f_i = FPR * n_i and TPR parity t_i = TPR * p_i (n_i negatives, p_i positives in group i),
PPV_i = t_i / (t_i + f_i) = 1 / (1 + (FPR / TPR) * n_i / p_i), so equal PPVs need
f_1 = f_2 = 0 (no false positives: the notes' "perfect" classifier) or p_1/n_1 = p_2/n_2 (equal base rates);
TPR = 0 is the degenerate third way (every PPV is 0).
Notes: seed 004, D4:2086-2108, eqs. (40)-(44), with ERRATUM E4 in eq. (41) (t_1/p_1 = t_2/p_2, not t_1/n_1);
catalogue section 5.2.

Sections cited: Ghent ML notes (seed 004): 11.3 FAIRNESS: Criteria, Mitigation & “Fairness by Awareness” (2086)"""

from __future__ import annotations

import numpy as np

from ..base import UNIT, check_rows, checked_arguments, safe_divide


def _check_counts(values, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1 or arr.size < 2 or not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError(f"{name} must be finite non-negative counts, one per group (at least 2), got {arr.tolist()}")
    return arr


@checked_arguments(tpr=UNIT, fpr=UNIT)
def impossibility_check(n_neg, n_pos, tpr: float, fpr: float, rtol: float = 1e-9) -> dict:
    """Can PPV parity hold when every group has the same TPR and the same FPR (equalized odds)?

    n_neg, n_pos: negatives n_i and positives p_i of each group (the notes' n_i, p_i; counts or expected counts).
    tpr, fpr: the common rates; the implied counts are t_i = tpr * p_i and f_i = fpr * n_i (eqs. 40-41).
    rtol: relative tolerance for "equal" base rates and PPVs.

    Returns a dict:
      base_rate: p_i / (n_i + p_i) per group (p/n equal  <=>  this equal);
      tp, fp: the implied t_i, f_i;  ppv: t_i / (t_i + f_i) (nan when a group has no predicted positives);
      equal_base_rates, no_false_positives (fpr == 0), no_true_positives (tpr == 0);
      compatible: the theory's verdict (eq. 44): equal base rates or no false positives (or tpr == 0);
      ppv_parity: the numerical check that all PPVs are defined and equal within rtol
        (it agrees with `compatible` whenever every group has at least one predicted positive);
      reason: one sentence saying which case applies.
    """
    n_neg = _check_counts(n_neg, "n_neg")
    n_pos = _check_counts(n_pos, "n_pos")
    check_rows(n_neg=n_neg, n_pos=n_pos)
    if ((n_neg + n_pos) == 0).any():
        raise ValueError("every group needs at least one sample (n_neg + n_pos > 0)")
    tpr, fpr = float(tpr), float(fpr)
    if tpr == 0 and fpr == 0:
        raise ValueError("tpr = fpr = 0: the classifier predicts no positives, so PPV is undefined in every group")

    tp, fp = tpr * n_pos, fpr * n_neg  # eqs. (41) and (40)
    ppv = safe_divide(tp, tp + fp)  # eq. (42)
    base_rate = n_pos / (n_neg + n_pos)
    equal_base_rates = bool(np.allclose(base_rate, base_rate[0], rtol=rtol, atol=0.0))
    no_false_positives, no_true_positives = fpr == 0, tpr == 0
    compatible = equal_base_rates or no_false_positives or no_true_positives  # eq. (44)
    ppv_parity = bool(np.isfinite(ppv).all() and np.allclose(ppv, ppv[0], rtol=rtol, atol=0.0))

    if no_false_positives:
        reason = "fpr = 0: no false positives in any group, so every group with a predicted positive has PPV = 1"
    elif no_true_positives:
        reason = "tpr = 0: no true positives, so every PPV is 0 (degenerate parity)"
    elif equal_base_rates:
        reason = "equal base rates p_i/(n_i + p_i): equal TPR and FPR imply equal PPV"
    else:
        reason = (
            "base rates differ and fpr > 0: equal TPR and FPR force unequal PPV "
            "(eq. 44: only a classifier without false positives or equal base rates allows all three)"
        )
    return {
        "base_rate": base_rate,
        "tp": tp,
        "fp": fp,
        "ppv": ppv,
        "equal_base_rates": equal_base_rates,
        "no_false_positives": no_false_positives,
        "no_true_positives": no_true_positives,
        "compatible": compatible,
        "ppv_parity": ppv_parity,
        "reason": reason,
    }
