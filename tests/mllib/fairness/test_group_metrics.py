"""group_confusion: hand-computed per-group confusion counts and rates, nan for undefined rates, group handling."""

import math

import numpy as np
import pytest

from mllib.fairness import group_confusion


def _rows(group, tp, fp, fn, tn):
    """Labels for one group with the given confusion counts, as (y_true, y_pred, groups) lists."""
    y_true = [1] * tp + [0] * fp + [1] * fn + [0] * tn
    y_pred = [1] * tp + [1] * fp + [0] * fn + [0] * tn
    return y_true, y_pred, [group] * (tp + fp + fn + tn)


def _concat(*parts):
    return tuple(np.concatenate([np.asarray(p[i], dtype=object if i == 2 else None) for p in parts]) for i in range(3))


def test_hand_computed_groups():
    y_true, y_pred, groups = _concat(_rows("b", tp=3, fp=1, fn=2, tn=4), _rows("a", tp=40, fp=10, fn=20, tn=30))
    result = group_confusion(y_true, y_pred, groups.astype(str))
    assert list(result) == ["a", "b"]  # sorted group order
    a = result["a"]
    assert {k: a[k] for k in ("n", "n_pos", "n_neg", "tp", "fp", "fn", "tn")} == {
        "n": 100,
        "n_pos": 60,
        "n_neg": 40,
        "tp": 40,
        "fp": 10,
        "fn": 20,
        "tn": 30,
    }
    # catalogue (b) 1 confusion: TP=40, FP=10, FN=20, TN=30
    expected_a = {
        "base_rate": 0.6,
        "selection_rate": 0.5,
        "tpr": 40 / 60,
        "fpr": 0.25,
        "fnr": 20 / 60,
        "tnr": 0.75,
        "precision": 0.8,
        "npv": 0.6,
        "accuracy": 0.7,
    }
    for key, value in expected_a.items():
        assert a[key] == pytest.approx(value, abs=1e-15), key
    b = result["b"]
    expected_b = {
        "n": 10,
        "n_pos": 5,
        "n_neg": 5,
        "base_rate": 0.5,
        "selection_rate": 0.4,
        "tpr": 0.6,
        "fpr": 0.2,
        "fnr": 0.4,
        "tnr": 0.8,
        "precision": 0.75,
        "npv": 4 / 6,
        "accuracy": 0.7,
    }
    for key, value in expected_b.items():
        assert b[key] == pytest.approx(value, abs=1e-15), key


def test_tpr_divides_by_positives_not_negatives():
    # ERRATUM E4 regression guard: t/p, not t/n (D4:2092 wrote t_1/n_1)
    result = group_confusion(*_rows(0, tp=8, fp=1, fn=2, tn=29))
    assert result[0]["tpr"] == pytest.approx(8 / 10)
    assert result[0]["tpr"] != pytest.approx(8 / 30)


def test_undefined_rates_are_nan_not_zero():
    # group "only_neg" has no positives and no positive predictions
    y_true, y_pred, groups = _concat(_rows("only_neg", 0, 0, 0, 5), _rows("mixed", 1, 0, 1, 1))
    result = group_confusion(y_true, y_pred, groups)
    g = result["only_neg"]
    assert g["n_pos"] == 0 and g["tp"] == 0
    for key in ("tpr", "fnr", "precision"):
        assert math.isnan(g[key]), key
    assert g["fpr"] == 0.0 and g["tnr"] == 1.0 and g["npv"] == 1.0 and g["base_rate"] == 0.0
    assert math.isnan(result["mixed"]["fpr"]) is False


def test_identities_and_sklearn_agreement():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 2, 500)
    y_pred = rng.integers(0, 2, 500)
    groups = rng.choice([3, 1, 2], size=500)
    result = group_confusion(y_true, y_pred, groups)
    assert list(result) == [1, 2, 3] and all(type(g) is int for g in result)
    for g, r in result.items():
        mask = groups == g
        tn, fp, fn, tp = metrics.confusion_matrix(y_true[mask], y_pred[mask], labels=[0, 1]).ravel()
        assert (r["tp"], r["fp"], r["fn"], r["tn"]) == (tp, fp, fn, tn)
        assert r["tpr"] == pytest.approx(metrics.recall_score(y_true[mask], y_pred[mask]))
        assert r["precision"] == pytest.approx(metrics.precision_score(y_true[mask], y_pred[mask]))
        assert r["tpr"] + r["fnr"] == pytest.approx(1.0)
        assert r["fpr"] + r["tnr"] == pytest.approx(1.0)
        assert r["n"] == mask.sum() == r["n_pos"] + r["n_neg"]
    assert sum(r["n"] for r in result.values()) == 500


def test_bool_labels_object_groups_and_float_labels():
    groups = np.array(["y", "x", "x"], dtype=object)
    result = group_confusion(np.array([True, False, True]), np.array([1.0, 1.0, 0.0]), groups)
    assert list(result) == ["x", "y"]
    assert (result["x"]["fp"], result["x"]["fn"], result["y"]["tp"]) == (1, 1, 1)
    assert all(type(g) is str for g in group_confusion([0, 1], [0, 1], np.array(["b", "a"])))


@pytest.mark.parametrize(
    "y_true, y_pred, groups, match",
    [
        ([0, 1], [0, 1, 1], [0, 0], "expected 2"),
        ([0, 1], [0, 1], [0], "expected 2"),
        ([0, 2], [0, 1], [0, 0], "binary"),
        (["0", "1"], [0, 1], [0, 0], "binary"),
        ([0, 1], [0, 1], [None, "a"], "missing"),
        ([0, 1], [0, 1], [np.nan, 1.0], "missing"),
        ([0, 1], [0, 1], np.array([1, "a"], dtype=object), "sorted"),
        ([], [], [], "empty"),
        ([[0, 1]], [[0, 1]], [[0, 0]], "1-D"),
    ],
)
def test_invalid_inputs_raise(y_true, y_pred, groups, match):
    with pytest.raises(ValueError, match=match):
        group_confusion(y_true, y_pred, groups)
