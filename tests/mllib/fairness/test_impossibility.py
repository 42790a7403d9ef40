"""impossibility_check: the catalogue 5.2 oracle, eq. (43), and the property 'PPV parity iff eq. (44)'."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mllib.fairness import group_confusion, impossibility_check


def test_catalogue_oracle():
    result = impossibility_check(n_neg=[100, 200], n_pos=[50, 50], tpr=0.8, fpr=0.1)
    np.testing.assert_allclose(result["fp"], [10, 20])
    np.testing.assert_allclose(result["tp"], [40, 40])
    np.testing.assert_allclose(result["ppv"], [0.8, 0.666667], atol=1e-6)
    np.testing.assert_allclose(result["base_rate"], [1 / 3, 1 / 5])
    assert not result["equal_base_rates"] and not result["compatible"] and not result["ppv_parity"]
    # eq. (43): t2 / (t2 + p2 n1 f2 / (p1 n2)) equals PPV_1
    t2, f2, n1, n2, p1, p2 = 40, 20, 100, 200, 50, 50
    assert t2 / (t2 + p2 * n1 * f2 / (p1 * n2)) == pytest.approx(result["ppv"][0])


def test_equal_base_rates_make_ppv_equal():
    result = impossibility_check(n_neg=[100, 200], n_pos=[50, 100], tpr=0.8, fpr=0.1)
    assert result["equal_base_rates"] and result["compatible"] and result["ppv_parity"]
    np.testing.assert_allclose(result["ppv"], [0.8, 0.8])


def test_no_false_positives_make_ppv_equal_whatever_the_base_rates():
    result = impossibility_check(n_neg=[100, 200, 10], n_pos=[50, 50, 70], tpr=0.7, fpr=0.0)
    assert result["no_false_positives"] and result["compatible"] and result["ppv_parity"]
    np.testing.assert_array_equal(result["ppv"], [1.0, 1.0, 1.0])


def test_agrees_with_group_confusion_on_real_labels():
    # build labels with exactly the oracle's counts and read PPV back from group_confusion
    y_true, y_pred, groups = [], [], []
    for g, (n, p, f, t) in {"g1": (100, 50, 10, 40), "g2": (200, 50, 20, 40)}.items():
        y_true += [1] * t + [1] * (p - t) + [0] * f + [0] * (n - f)
        y_pred += [1] * t + [0] * (p - t) + [1] * f + [0] * (n - f)
        groups += [g] * (n + p)
    per_group = group_confusion(y_true, y_pred, groups)
    rates = [per_group[g] for g in ("g1", "g2")]
    assert rates[0]["tpr"] == rates[1]["tpr"] == 0.8 and rates[0]["fpr"] == rates[1]["fpr"] == 0.1
    result = impossibility_check([r["n_neg"] for r in rates], [r["n_pos"] for r in rates], tpr=0.8, fpr=0.1)
    np.testing.assert_allclose(result["ppv"], [r["precision"] for r in rates], rtol=1e-12)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 500), st.integers(1, 500)), min_size=2, max_size=4),
    st.integers(0, 100),
    st.integers(0, 100),
)
def test_ppv_parity_iff_equal_base_rates_or_no_false_positives(groups, tpr_pct, fpr_pct):
    # catalogue (b) 49; every group has positives, so no PPV is undefined
    if tpr_pct == 0 and fpr_pct == 0:
        return
    n_neg = [g[0] for g in groups]
    n_pos = [g[1] for g in groups]
    result = impossibility_check(n_neg, n_pos, tpr=tpr_pct / 100, fpr=fpr_pct / 100)
    # exact rational comparison of p_i/(n_i + p_i) as the ground truth for "equal base rates"
    equal = all(p * (n_pos[0] + n_neg[0]) == n_pos[0] * (n + p) for n, p in zip(n_neg, n_pos))
    assert result["equal_base_rates"] == equal
    assert result["compatible"] == (equal or fpr_pct == 0 or tpr_pct == 0)
    if tpr_pct > 0 or all(n > 0 for n in n_neg):
        assert result["ppv_parity"] == result["compatible"]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_neg": [100], "n_pos": [50], "tpr": 0.8, "fpr": 0.1}, "at least 2"),
        ({"n_neg": [100, 200], "n_pos": [50, 50, 1], "tpr": 0.8, "fpr": 0.1}, "n_pos has 3 entries, expected 2"),
        ({"n_neg": [100, -1], "n_pos": [50, 50], "tpr": 0.8, "fpr": 0.1}, "non-negative"),
        ({"n_neg": [0, 10], "n_pos": [0, 5], "tpr": 0.8, "fpr": 0.1}, "at least one sample"),
        ({"n_neg": [100, 200], "n_pos": [50, 50], "tpr": 1.2, "fpr": 0.1}, "tpr"),
        ({"n_neg": [100, 200], "n_pos": [50, 50], "tpr": 0.8, "fpr": float("nan")}, "fpr"),
        ({"n_neg": [100, 200], "n_pos": [50, 50], "tpr": 0.0, "fpr": 0.0}, "undefined"),
    ],
)
def test_invalid_inputs_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        impossibility_check(**kwargs)
