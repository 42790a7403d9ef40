"""ROC / PR curves and their summaries: catalogue oracle, tie handling, sklearn and Mann-Whitney agreement."""

import numpy as np
import pytest
import sklearn.metrics as skm
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import mannwhitneyu

from mllib.metrics import average_precision_score, precision_recall_curve, roc_auc_score, roc_curve

SEEDS = range(20)
ORACLE_Y, ORACLE_SCORES = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]  # catalogue (b) item 4


def _random_scored(seed, with_zero_weights=True):
    """Binary labels, scores rounded to one decimal (many ties) and weights, some of them zero."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 300))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    scores = np.round(rng.normal(0.7 * y, 1.0), 1)
    w = rng.uniform(0.1, 3.0, n)
    if with_zero_weights:
        w[2:][rng.random(n - 2) < 0.15] = 0.0  # the first two keep both classes weighted
    return y, scores, w


def test_catalogue_auc_oracle():
    assert roc_auc_score(ORACLE_Y, ORACLE_SCORES) == 0.75


def test_catalogue_roc_curve_points():
    fpr, tpr, thresholds = roc_curve(ORACLE_Y, ORACLE_SCORES)
    assert_array_equal(fpr, [0, 0, 0.5, 0.5, 1])
    assert_array_equal(tpr, [0, 0.5, 0.5, 1, 1])
    assert_array_equal(thresholds, [np.inf, 0.8, 0.4, 0.35, 0.1])


def test_ties_form_one_diagonal_step_worth_half():
    # one positive and one negative share a score: that pair counts 1/2
    y, scores = [0, 1, 0, 1], [0.2, 0.5, 0.5, 0.9]
    fpr, tpr, thresholds = roc_curve(y, scores)
    assert_array_equal(thresholds, [np.inf, 0.9, 0.5, 0.2])
    assert_array_equal(np.c_[fpr, tpr], [[0, 0], [0, 0.5], [0.5, 1], [1, 1]])
    assert roc_auc_score(y, scores) == pytest.approx((1 + 1 + 1 + 0.5) / 4, abs=1e-15)
    assert roc_auc_score([0, 1], [0.3, 0.3]) == 0.5


def test_catalogue_pr_curve_and_average_precision():
    precision, recall, thresholds = precision_recall_curve(ORACLE_Y, ORACLE_SCORES)
    assert_allclose(precision, [0.5, 2 / 3, 0.5, 1.0, 1.0], rtol=0, atol=1e-15)
    assert_array_equal(recall, [1.0, 1.0, 0.5, 0.5, 0.0])
    assert_array_equal(thresholds, [0.1, 0.35, 0.4, 0.8])
    # AP = (0.5 - 0) * 1 + (1 - 0.5) * 2/3
    assert average_precision_score(ORACLE_Y, ORACLE_SCORES) == pytest.approx(0.5 + 1 / 3, abs=1e-15)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_roc_matches_sklearn_with_ties_and_weights(seed, weighted):
    y, scores, w = _random_scored(seed)
    w = w if weighted else None
    fpr, tpr, thresholds = roc_curve(y, scores, sample_weight=w)
    sk_fpr, sk_tpr, sk_thresholds = skm.roc_curve(y, scores, sample_weight=w, drop_intermediate=False)
    assert_array_equal(thresholds, sk_thresholds)
    assert_allclose(fpr, sk_fpr, rtol=0, atol=1e-12)
    assert_allclose(tpr, sk_tpr, rtol=0, atol=1e-12)
    assert thresholds.size == np.unique(scores[w > 0] if weighted else scores).size + 1
    assert roc_auc_score(y, scores, sample_weight=w) == pytest.approx(
        skm.roc_auc_score(y, scores, sample_weight=w), abs=1e-12
    )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_pr_curve_and_average_precision_match_sklearn(seed, weighted):
    y, scores, w = _random_scored(seed)
    w = w if weighted else None
    precision, recall, thresholds = precision_recall_curve(y, scores, sample_weight=w)
    sk_precision, sk_recall, sk_thresholds = skm.precision_recall_curve(y, scores, sample_weight=w)
    assert_array_equal(thresholds, sk_thresholds)
    assert_allclose(precision, sk_precision, rtol=0, atol=1e-12)
    assert_allclose(recall, sk_recall, rtol=0, atol=1e-12)
    assert (precision[-1], recall[-1]) == (1.0, 0.0)
    assert average_precision_score(y, scores, sample_weight=w) == pytest.approx(
        skm.average_precision_score(y, scores, sample_weight=w), abs=1e-12
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_auc_equals_mann_whitney_midrank_statistic(seed):
    y, scores, _ = _random_scored(seed)
    u = mannwhitneyu(scores[y == 1], scores[y == 0]).statistic  # ties get midranks, i.e. 1/2 credit
    assert roc_auc_score(y, scores) == pytest.approx(u / ((y == 1).sum() * (y == 0).sum()), abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_weights_act_like_repetitions(seed):
    y, scores, _ = _random_scored(seed)
    counts = np.random.default_rng(seed + 1000).integers(1, 4, y.size)
    repeated = np.repeat(y, counts), np.repeat(scores, counts)
    assert roc_auc_score(y, scores, sample_weight=counts) == pytest.approx(roc_auc_score(*repeated), abs=1e-12)
    assert average_precision_score(y, scores, sample_weight=counts) == pytest.approx(
        average_precision_score(*repeated), abs=1e-12
    )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("transform", [np.exp, lambda s: 1 / (1 + np.exp(-3 * s)), lambda s: s**3 + 5 * s - 2])
def test_auc_and_ap_invariant_under_strictly_increasing_transform(seed, transform):
    y, scores, w = _random_scored(seed)
    assert roc_auc_score(y, transform(scores), sample_weight=w) == pytest.approx(
        roc_auc_score(y, scores, sample_weight=w), abs=1e-12
    )
    assert average_precision_score(y, transform(scores), sample_weight=w) == pytest.approx(
        average_precision_score(y, scores, sample_weight=w), abs=1e-12
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_reversing_scores_gives_one_minus_auc(seed):
    y, scores, w = _random_scored(seed)
    assert roc_auc_score(y, -scores, sample_weight=w) == pytest.approx(
        1 - roc_auc_score(y, scores, sample_weight=w), abs=1e-12
    )


def test_perfect_ranking():
    y, scores = [0, 0, 1, 1, 1], [0.1, 0.2, 0.7, 0.8, 0.8]
    assert roc_auc_score(y, scores) == 1.0
    assert average_precision_score(y, scores) == 1.0


def test_zero_weight_samples_add_no_threshold():
    y, scores = [0, 1, 0, 1], [0.1, 0.9, 0.5, 0.3]
    _, _, thresholds = roc_curve(y, scores, sample_weight=[1, 1, 0, 1])
    assert 0.5 not in thresholds
    assert roc_auc_score(y, scores, sample_weight=[1, 1, 0, 1]) == roc_auc_score([0, 1, 1], [0.1, 0.9, 0.3])


# --- undefined curves and bad inputs ----------------------------------------------------------


@pytest.mark.parametrize("y", [[1, 1, 1], [0, 0, 0]])
def test_single_class_auc_is_undefined(y):
    with pytest.raises(ValueError, match="single class.*undefined"):
        roc_auc_score(y, [0.1, 0.5, 0.9])
    with pytest.raises(ValueError, match="undefined"):
        roc_curve(y, [0.1, 0.5, 0.9])


def test_zero_weights_removing_a_class_make_auc_undefined():
    with pytest.raises(ValueError, match="single class"):
        roc_auc_score([0, 1, 1], [0.1, 0.5, 0.9], sample_weight=[0, 1, 1])


def test_pr_curve_without_positives_is_undefined_but_without_negatives_is_fine():
    with pytest.raises(ValueError, match="no positives"):
        precision_recall_curve([0, 0], [0.1, 0.2])
    with pytest.raises(ValueError, match="no positives"):
        average_precision_score([0, 0], [0.1, 0.2])
    precision, recall, _ = precision_recall_curve([1, 1], [0.1, 0.2])
    assert_array_equal(precision, [1, 1, 1])
    assert_array_equal(recall, [1, 0.5, 0])


@pytest.mark.parametrize("func", [roc_curve, roc_auc_score, precision_recall_curve, average_precision_score])
def test_bad_inputs_raise(func):
    with pytest.raises(ValueError, match="NaN"):
        func([0, 1, 1], [0.1, np.nan, 0.3])
    with pytest.raises(ValueError, match=r"binary.*\[2\]"):
        func([0, 1, 2], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="entries, expected"):
        func([0, 1, 1], [0.1, 0.2])
    with pytest.raises(ValueError, match="1-D"):
        func([0, 1], [[0.1, 0.9], [0.2, 0.8]])
