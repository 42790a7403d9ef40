"""parity_gaps: differences, ratios and the groups attaining them; undefined groups excluded and listed."""

import math

import numpy as np
import pytest

from mllib.fairness import group_confusion, parity_gaps


def _labels(counts):
    """{group: (tp, fp, fn, tn)} -> y_true, y_pred, groups."""
    y_true, y_pred, groups = [], [], []
    for g, (tp, fp, fn, tn) in counts.items():
        y_true += [1] * tp + [0] * fp + [1] * fn + [0] * tn
        y_pred += [1] * tp + [1] * fp + [0] * fn + [0] * tn
        groups += [g] * (tp + fp + fn + tn)
    return np.array(y_true), np.array(y_pred), np.array(groups)


def test_gaps_on_the_impossibility_example():
    # catalogue 5.2: n = (100, 200) negatives, p = (50, 50) positives, FPR 0.1 and TPR 0.8 in both groups
    per_group = group_confusion(*_labels({1: (40, 10, 10, 90), 2: (40, 20, 10, 180)}))
    gaps = parity_gaps(per_group)
    assert list(gaps) == ["selection_rate", "tpr", "fpr", "precision"]
    assert gaps["tpr"]["difference"] == 0.0 and gaps["tpr"]["ratio"] == 1.0
    assert gaps["fpr"]["difference"] == pytest.approx(0.0, abs=1e-15)
    ppv = gaps["precision"]
    assert ppv["max_group"] == 1 and ppv["min_group"] == 2
    assert ppv["max"] == pytest.approx(0.8) and ppv["min"] == pytest.approx(2 / 3)
    assert ppv["difference"] == pytest.approx(0.8 - 2 / 3)
    assert ppv["ratio"] == pytest.approx((2 / 3) / 0.8)
    sel = gaps["selection_rate"]
    assert (sel["max"], sel["min"]) == (pytest.approx(50 / 150), pytest.approx(60 / 250))


def test_equal_tpr_means_equal_t_over_p_not_t_over_n():
    # E4: t1/p1 = 6/10 = t2/p2 = 3/5 but t1/n1 = 6/20 != t2/n2 = 3/40 -> the TPR gap is 0
    per_group = group_confusion(*_labels({"a": (6, 2, 4, 18), "b": (3, 4, 2, 36)}))
    assert parity_gaps(per_group, metrics=("tpr",))["tpr"]["difference"] == pytest.approx(0.0, abs=1e-15)


def test_undefined_groups_are_excluded_and_listed():
    # group "c" has no positives: its TPR is undefined and must not count as 0
    per_group = group_confusion(*_labels({"a": (8, 1, 2, 9), "b": (5, 1, 5, 9), "c": (0, 1, 0, 9)}))
    tpr = parity_gaps(per_group, metrics="tpr")["tpr"]
    assert tpr["undefined_groups"] == ["c"] and tpr["n_defined"] == 2
    assert tpr["min"] == pytest.approx(0.5) and tpr["min_group"] == "b"
    assert tpr["difference"] == pytest.approx(0.3)


def test_fewer_than_two_defined_groups_give_nan():
    per_group = group_confusion(*_labels({"a": (8, 1, 2, 9), "c": (0, 1, 0, 9)}))
    tpr = parity_gaps(per_group, metrics=["tpr"])["tpr"]
    assert math.isnan(tpr["difference"]) and math.isnan(tpr["ratio"])
    assert tpr["max_group"] == tpr["min_group"] == "a"
    single = parity_gaps({"only": {"tpr": 0.5}}, metrics=["tpr"])["tpr"]
    assert math.isnan(single["difference"])
    none = parity_gaps({"a": {"tpr": math.nan}, "b": {"tpr": math.nan}}, metrics=["tpr"])["tpr"]
    assert none["max_group"] is None and none["undefined_groups"] == ["a", "b"] and math.isnan(none["max"])


def test_ratio_is_nan_when_every_rate_is_zero_and_ties_go_to_the_first_group():
    gaps = parity_gaps({"a": {"fpr": 0.0}, "b": {"fpr": 0.0}}, metrics=["fpr"])["fpr"]
    assert gaps["difference"] == 0.0 and math.isnan(gaps["ratio"])
    assert gaps["max_group"] == "a" and gaps["min_group"] == "a"


@pytest.mark.parametrize("per_group, metrics", [({}, ("tpr",)), ([1, 2], ("tpr",)), ({"a": {"tpr": 0.5}}, ("fdr",))])
def test_invalid_inputs_raise(per_group, metrics):
    with pytest.raises(ValueError):
        parity_gaps(per_group, metrics=metrics)
