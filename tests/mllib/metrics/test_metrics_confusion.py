"""Confusion matrix and metric table: catalogue oracle (errata corrected), identities, sklearn agreement."""

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from mllib.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    binary_counts,
    binary_metrics,
    classification_table,
    confusion_matrix,
    precision_recall_f1,
)

SEEDS = range(15)
ORACLE = dict(tp=40, fp=10, fn=20, tn=30)  # catalogue (b) item 1, n = 100


def _random_labels(seed, n_classes=None, as_strings=False):
    rng = np.random.default_rng(seed)
    n_classes = n_classes or int(rng.integers(2, 6))
    n = int(rng.integers(n_classes, 150))
    y_true = rng.integers(0, n_classes, n)
    y_true[:n_classes] = np.arange(n_classes)  # every class occurs
    # mostly right, so per-class precision is defined; the rest uniform noise
    y_pred = np.where(rng.random(n) < 0.6, y_true, rng.integers(0, n_classes, n))
    y_pred[:n_classes] = np.arange(n_classes)  # every class is predicted at least once
    weights = rng.uniform(0.0, 3.0, n)
    if as_strings:
        names = np.array([f"class_{k}" for k in range(n_classes)])
        return names[y_true], names[y_pred], weights
    return y_true, y_pred, weights


# --- catalogue oracle and errata guards --------------------------------------------------------


def test_oracle_table_matches_catalogue():
    table = classification_table(**ORACLE)
    expected = {
        "accuracy": 0.7,
        "misclassification_rate": 0.3,
        "precision": 0.8,
        "recall": 2 / 3,
        "fall_out": 0.25,
        "specificity": 0.75,
        "fdr": 0.2,
        "fnr": 1 / 3,
        "false_omission_rate": 0.4,
        "npv": 0.6,
        "prevalence": 0.6,
        "f1": 0.727273,
        "f_beta": 0.727273,
        "n": 100.0,
    }
    assert set(table) == set(expected)
    for key, value in expected.items():
        assert table[key] == pytest.approx(value, abs=5e-7), key


@pytest.mark.parametrize("beta, expected", [(2.0, 0.689655), (0.5, 0.769231), (1.0, 0.727273)])
def test_oracle_f_beta(beta, expected):
    assert classification_table(**ORACLE, beta=beta)["f_beta"] == pytest.approx(expected, abs=5e-7)


def test_errata_guards():
    table = classification_table(**ORACLE, beta=0.5)
    assert table["specificity"] != pytest.approx(1.0)  # E1: TP/(FP+TN) = 40/40
    assert table["false_omission_rate"] != pytest.approx(2 / 3)  # E2: FN/(FN+FP) = 20/30
    assert table["f_beta"] != pytest.approx(1.818182, abs=1e-6)  # E3: notes' F_0.5
    assert classification_table(**ORACLE, beta=2.0)["f_beta"] != pytest.approx(0.454545, abs=1e-6)


def test_binary_metrics_on_oracle_labels():
    y_true = np.r_[np.ones(40), np.zeros(10), np.ones(20), np.zeros(30)].astype(int)
    y_pred = np.r_[np.ones(40), np.ones(10), np.zeros(20), np.zeros(30)].astype(int)
    result = binary_metrics(y_true, y_pred, beta=2.0)
    assert {k: result[k] for k in ORACLE} == ORACLE
    assert result["specificity"] == 0.75
    assert result["f_beta"] == pytest.approx(0.689655, abs=5e-7)


# --- properties on random tables ---------------------------------------------------------------

counts = st.integers(min_value=0, max_value=1000)
betas = st.floats(min_value=0.0, max_value=50.0, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(tp=counts, fp=counts, fn=counts, tn=counts, beta=betas)
def test_f_beta_in_unit_interval_and_f1_special_case(tp, fp, fn, tn, beta):
    table = classification_table(tp, fp, fn, tn, beta=beta)
    # undefined exactly when the denominator (1 + b^2) TP + b^2 FN + FP is 0; at b = 0, F_b is precision
    for key, b in (("f_beta", beta), ("f1", 1.0)):
        value = table[key]
        assert np.isnan(value) if (1 + b * b) * tp + b * b * fn + fp == 0 else 0.0 <= value <= 1.0
    assert_allclose(classification_table(tp, fp, fn, tn, beta=1.0)["f_beta"], table["f1"], rtol=0, atol=1e-15)


@settings(max_examples=300, deadline=None)
@given(tp=counts, fp=counts, fn=counts, tn=counts)
def test_complement_identities(tp, fp, fn, tn):
    t = classification_table(tp, fp, fn, tn)
    for a, b in [
        ("specificity", "fall_out"),
        ("recall", "fnr"),
        ("false_omission_rate", "npv"),
        ("precision", "fdr"),
        ("accuracy", "misclassification_rate"),
    ]:
        total = t[a] + t[b]
        # either both halves are undefined (shared zero denominator) or they sum to 1
        assert np.isnan(t[a]) == np.isnan(t[b])
        assert np.isnan(total) or total == pytest.approx(1.0, abs=1e-12), (a, b)


@settings(max_examples=200, deadline=None)
@given(tp=st.integers(1, 1000), fp=st.integers(1, 1000), fn=st.integers(1, 1000), tn=counts)
def test_f_beta_matches_harmonic_form_and_limits(tp, fp, fn, tn):
    t = classification_table(tp, fp, fn, tn, beta=2.0)
    p, r = t["precision"], t["recall"]
    assert t["f_beta"] == pytest.approx(5 * p * r / (4 * p + r), rel=1e-12)  # E3 corrected form
    assert classification_table(tp, fp, fn, tn, beta=0.0)["f_beta"] == pytest.approx(p, rel=1e-12)
    assert classification_table(tp, fp, fn, tn, beta=1e6)["f_beta"] == pytest.approx(r, rel=1e-6)


def test_table_is_vectorised():
    rng = np.random.default_rng(0)
    tp, fp, fn, tn = rng.integers(0, 20, (4, 50))
    vector = classification_table(tp, fp, fn, tn, beta=0.5)
    for i in range(50):
        scalar = classification_table(tp[i], fp[i], fn[i], tn[i], beta=0.5)
        for key, value in scalar.items():
            assert_allclose(vector[key][i], value, rtol=0, atol=0, equal_nan=True)


# --- undefined values are nan, not 0 ----------------------------------------------------------


def test_no_predicted_positives_gives_nan_precision():
    result = binary_metrics([1, 1, 0, 0], [0, 0, 0, 0])
    assert np.isnan(result["precision"]) and np.isnan(result["fdr"])
    assert result["recall"] == 0.0 and result["f1"] == 0.0  # defined: positives exist and were missed
    assert result["specificity"] == 1.0


def test_undefined_entries_of_degenerate_tables():
    no_positives = classification_table(tp=0, fp=0, fn=0, tn=5)
    for key in ("precision", "recall", "fdr", "fnr", "f1", "f_beta"):
        assert np.isnan(no_positives[key]), key
    assert no_positives["accuracy"] == 1.0 and no_positives["false_omission_rate"] == 0.0
    empty = classification_table(0, 0, 0, 0)
    assert all(np.isnan(v) for k, v in empty.items() if k != "n") and empty["n"] == 0.0


def test_per_class_undefined_precision_is_nan_and_poisons_macro():
    y_true, y_pred = [0, 1, 2, 2], [0, 2, 2, 2]  # class 1 is never predicted
    per_class = precision_recall_f1(y_true, y_pred, average=None)
    assert np.isnan(per_class["precision"][1]) and per_class["recall"][1] == 0.0
    assert np.isnan(precision_recall_f1(y_true, y_pred, average="macro")["precision"])
    assert precision_recall_f1(y_true, y_pred, average="macro")["recall"] == pytest.approx(2 / 3)


def test_normalized_empty_row_is_nan():
    matrix = confusion_matrix([0, 0], [0, 1], labels=[0, 1, 2], normalize="true")
    assert_array_equal(matrix[:2], [[0.5, 0.5, 0.0], [np.nan] * 3])
    assert np.isnan(matrix[2]).all()


# --- confusion matrix: orientation and sklearn agreement ---------------------------------------


def test_orientation_rows_true_columns_predicted():
    matrix = confusion_matrix([1, 1, 1, 0], [0, 0, 1, 0])
    assert_array_equal(matrix, [[1, 0], [2, 1]])  # two positives predicted negative: row 1, column 0
    assert binary_counts([1, 1, 1, 0], [0, 0, 1, 0]) == {"tp": 1, "fp": 0, "fn": 2, "tn": 1}
    assert matrix.dtype == np.int64


@pytest.mark.parametrize("seed", SEEDS)
def test_confusion_matrix_matches_sklearn(seed):
    y_true, y_pred, w = _random_labels(seed, as_strings=seed % 2 == 1)
    assert_array_equal(confusion_matrix(y_true, y_pred), skm.confusion_matrix(y_true, y_pred))
    assert_allclose(
        confusion_matrix(y_true, y_pred, sample_weight=w),
        skm.confusion_matrix(y_true, y_pred, sample_weight=w),
        rtol=0,
        atol=1e-12,
    )
    for mode in ("true", "pred", "all"):
        assert_allclose(
            confusion_matrix(y_true, y_pred, sample_weight=w, normalize=mode),
            skm.confusion_matrix(y_true, y_pred, sample_weight=w, normalize=mode),
            rtol=0,
            atol=1e-12,
        )


@pytest.mark.parametrize("seed", SEEDS)
def test_confusion_matrix_label_order_and_unseen_labels_match_sklearn(seed):
    y_true, y_pred, _ = _random_labels(seed, n_classes=3)
    labels = np.random.default_rng(seed).permutation([0, 1, 2, 7])  # 7 never occurs
    ours = confusion_matrix(y_true, y_pred, labels=labels)
    assert_array_equal(ours, skm.confusion_matrix(y_true, y_pred, labels=labels))
    assert ours[list(labels).index(7)].sum() == 0


@pytest.mark.parametrize("seed", SEEDS)
def test_binary_counts_and_metrics_match_sklearn(seed):
    y_true, y_pred, w = _random_labels(seed, n_classes=2)
    tn, fp, fn, tp = skm.confusion_matrix(y_true, y_pred, sample_weight=w).ravel()
    counts = binary_counts(y_true, y_pred, sample_weight=w)
    assert_allclose([counts[k] for k in ("tp", "fp", "fn", "tn")], [tp, fp, fn, tn], rtol=0, atol=1e-12)
    for beta in (0.5, 1.0, 2.0):
        ours = binary_metrics(y_true, y_pred, sample_weight=w, beta=beta)
        kw = dict(sample_weight=w, zero_division=np.nan)
        assert ours["precision"] == pytest.approx(skm.precision_score(y_true, y_pred, **kw), abs=1e-12)
        assert ours["recall"] == pytest.approx(skm.recall_score(y_true, y_pred, **kw), abs=1e-12)
        assert ours["f_beta"] == pytest.approx(skm.fbeta_score(y_true, y_pred, beta=beta, **kw), abs=1e-12)
        assert ours["accuracy"] == pytest.approx(skm.accuracy_score(y_true, y_pred, sample_weight=w), abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("average", ["macro", "micro", "weighted", None])
def test_precision_recall_f_beta_match_sklearn(seed, average):
    y_true, y_pred, w = _random_labels(seed)
    beta = (0.5, 1.0, 2.0)[seed % 3]
    ours = precision_recall_f1(y_true, y_pred, average=average, beta=beta, sample_weight=w)
    p, r, f, _ = skm.precision_recall_fscore_support(
        y_true, y_pred, average=average, beta=beta, sample_weight=w, zero_division=np.nan
    )
    assert_allclose([ours["precision"], ours["recall"], ours["f_beta"]], [p, r, f], rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("average", ["macro", "micro", "weighted"])
def test_label_subset_counts_other_classes_as_negatives_like_sklearn(seed, average):
    y_true, y_pred, w = _random_labels(seed, n_classes=4)
    ours = precision_recall_f1(y_true, y_pred, average=average, labels=[2, 0], sample_weight=w)
    p, r, f, _ = skm.precision_recall_fscore_support(
        y_true, y_pred, average=average, labels=[2, 0], sample_weight=w, zero_division=np.nan
    )
    assert_allclose([ours["precision"], ours["recall"], ours["f_beta"]], [p, r, f], rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_micro_average_equals_accuracy_and_balanced_accuracy_matches_sklearn(seed):
    y_true, y_pred, w = _random_labels(seed, as_strings=seed % 2 == 0)
    micro = precision_recall_f1(y_true, y_pred, average="micro", sample_weight=w)
    accuracy = accuracy_score(y_true, y_pred, sample_weight=w)
    assert micro["precision"] == pytest.approx(accuracy, abs=1e-12)
    assert accuracy == pytest.approx(skm.accuracy_score(y_true, y_pred, sample_weight=w), abs=1e-12)
    assert balanced_accuracy_score(y_true, y_pred, sample_weight=w) == pytest.approx(
        skm.balanced_accuracy_score(y_true, y_pred, sample_weight=w), abs=1e-12
    )


def test_binary_balanced_accuracy_is_mean_of_recall_and_specificity():
    y_true = np.r_[np.ones(40), np.zeros(10), np.ones(20), np.zeros(30)].astype(int)
    y_pred = np.r_[np.ones(40), np.ones(10), np.zeros(20), np.zeros(30)].astype(int)
    assert balanced_accuracy_score(y_true, y_pred) == pytest.approx((2 / 3 + 0.75) / 2, abs=1e-15)


def test_bool_and_float_binary_labels_are_accepted():
    expected = binary_counts([1, 0, 1], [1, 1, 0])
    assert binary_counts(np.array([True, False, True]), np.array([1.0, 1.0, 0.0])) == expected


# --- errors at the edges ----------------------------------------------------------------------


@pytest.mark.parametrize("bad", [[0, 1, 2], [-1, 1, 1], [0.0, 0.5, 1.0], ["0", "1", "1"]])
def test_binary_counts_names_offending_values(bad):
    with pytest.raises(ValueError, match=r"binary.*\{0, 1\}"):
        binary_counts(bad, [0, 1, 1])
    with pytest.raises(ValueError, match="y_pred must be binary"):
        binary_counts([0, 1, 1], bad)


def test_binary_counts_error_lists_the_values():
    with pytest.raises(ValueError, match=r"\[-1, 2\]"):
        binary_counts([0, 2, -1, 1], [0, 1, 1, 1])


def test_shape_and_label_errors():
    with pytest.raises(ValueError, match="entries, expected"):
        confusion_matrix([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="1-D"):
        confusion_matrix([[0, 1]], [[0, 1]])
    with pytest.raises(ValueError, match=r"labels \[2\] that are not in labels"):
        confusion_matrix([0, 1, 2], [0, 1, 1], labels=[0, 1])
    with pytest.raises(ValueError, match="duplicates"):
        confusion_matrix([0, 1], [0, 1], labels=[0, 1, 1])
    with pytest.raises(ValueError, match="different kinds"):
        confusion_matrix([0, 1], ["0", "1"])
    with pytest.raises(ValueError, match="NaN"):
        confusion_matrix([0.0, np.nan], [0.0, 1.0])
    with pytest.raises(ValueError, match="sample_weight"):
        binary_counts([0, 1], [0, 1], sample_weight=[1.0, -1.0])
    with pytest.raises(ValueError, match="average"):
        precision_recall_f1([0, 1], [0, 1], average="binary")
    with pytest.raises(ValueError, match="beta"):
        classification_table(1, 1, 1, 1, beta=-1.0)
    with pytest.raises(ValueError, match="non-negative"):
        classification_table(1, -1, 1, 1)
