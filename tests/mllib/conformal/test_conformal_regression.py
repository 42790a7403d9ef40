"""Conformal regression intervals: split conformal's quantile, CV+ against its definition computed by brute force,
jackknife+ as CV+ with one row per fold, and coverage at the nominal level over seeds (exchangeable rows)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mllib.conformal import CVPlusRegressor, SplitConformalRegressor, interval_summary
from mllib.regression import Ridge


def test_split_conformal_is_prediction_plus_minus_the_residual_quantile():
    y, p = np.arange(10.0), np.arange(10.0) + np.array([0.5, -1, 2, 0, 0.1, -3, 0.2, 1, -0.4, 5])
    intervals = SplitConformalRegressor(coverage=0.8).fit(y, p)
    # ceil(11 * 0.8) = 9th smallest of |r| = (0, 0.1, 0.2, 0.4, 0.5, 1, 1, 2, 3, 5) -> 3
    assert intervals.threshold_ == 3.0 and intervals.n_calibration_ == 10
    lo, hi = intervals.predict_interval(np.array([1.0, -2.0]))
    np.testing.assert_array_equal(lo, [-2.0, -5.0]) and np.testing.assert_array_equal(hi, [4.0, 1.0])
    assert SplitConformalRegressor(coverage=0.95).fit(y, p).threshold_ == math.inf  # ceil(11 * 0.95) = 11 > 10


def _data(rng, n, d=3):
    X = rng.normal(size=(n, d))
    return X, X @ np.array([1.0, -2.0, 0.5])[:d] + rng.standard_t(df=4, size=n)  # heavy-tailed noise


def _cv_plus_inputs(X, y, K):
    fold = np.arange(y.size) % K
    models = [Ridge(lam=1.0).fit(X[fold != k], y[fold != k]) for k in range(K)]
    oof = np.empty(y.size)
    for k in range(K):
        oof[fold == k] = models[k].predict(X[fold == k])
    return models, oof, fold


def test_cv_plus_equals_its_definition():
    rng = np.random.default_rng(0)
    X, y = _data(rng, 57)
    X_new, _ = _data(rng, 300)
    models, oof, fold = _cv_plus_inputs(X, y, K=4)
    P = np.column_stack([m.predict(X_new) for m in models])
    intervals = CVPlusRegressor(coverage=0.8).fit(y[::-1], oof, fold)
    intervals.predict_interval(P)  # the residuals sorted by fold are kept: a refit must not use them
    lo, hi = intervals.fit(y, oof, fold).predict_interval(P)
    R = np.abs(y - oof)
    n, alpha = y.size, 0.2
    for j in (0, 77, 299):
        mu = P[j, fold]
        assert lo[j] == np.sort(mu - R)[math.floor(alpha * (n + 1)) - 1]
        assert hi[j] == np.sort(mu + R)[math.ceil((1 - alpha) * (n + 1)) - 1]


@pytest.mark.parametrize("coverage", [0.5, 0.8, 0.9, 0.97])
def test_cv_plus_selection_in_sorted_folds_is_bit_equal_to_partitioning(monkeypatch, coverage):
    """The two ways predict_interval takes the order statistics (chosen by size) give the same floats, on ties too:
    residuals and predictions on a coarse grid make many values equal; the partition path chunks its rows."""
    from mllib.conformal import regression

    rng = np.random.default_rng(7)
    for n, K in ((400, 5), (1000, 7), (90, 3)):
        y = np.round(rng.normal(size=n) * 4) / 4
        oof = y + np.round(rng.standard_t(df=3, size=n) * 2) / 2
        fold = rng.permutation(np.arange(n) % K)
        P = np.round(rng.normal(size=(3000, K)) * 8) / 8 + rng.normal(size=(3000, 1)) * 1e-3 * (rng.random() < 0.5)
        monkeypatch.setattr(regression, "_PARTITION_ELEMENTS", 64 * n)
        bounds = {}
        for searches in (True, False):
            monkeypatch.setattr(regression, "_searches_beat_partition", lambda n, k, s=searches: s)
            bounds[searches] = CVPlusRegressor(coverage).fit(y, oof, fold).predict_interval(P)
        for a, b in zip(bounds[True], bounds[False]):
            assert a.tobytes() == b.tobytes()


def test_jackknife_plus_is_cv_plus_with_one_row_per_fold():
    rng = np.random.default_rng(1)
    X, y = _data(rng, 30)
    models, oof, fold = _cv_plus_inputs(X, y, K=30)
    P = np.column_stack([m.predict(X[:5]) for m in models])
    lo, hi = CVPlusRegressor(coverage=0.9).fit(y, oof, fold).predict_interval(P)
    assert (lo <= hi).all() and np.isfinite(lo).all() and np.isfinite(hi).all()
    too_few = CVPlusRegressor(coverage=0.99).fit(y[:20], oof[:20], np.arange(20)).predict_interval(P[:, :20])
    assert np.isinf(too_few[0]).all() and np.isinf(too_few[1]).all()  # floor(0.01 * 21) = 0: no finite bound


@pytest.mark.parametrize("method", ["split", "cv_plus"])
def test_coverage_reaches_its_nominal_level_over_seeds(method):
    """Marginal coverage over 40 seeds of (200 training, 500 test) exchangeable rows at 0.9: split conformal lies
    in [0.9, 0.9 + 1/(n + 1)], CV+ at least 1 - 2 alpha and in practice near 0.9; both within three standard
    errors of the mean over seeds."""
    coverage, seeds, n = 0.9, 40, 200
    covered = []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        X, y = _data(rng, n)
        X_new, y_new = _data(rng, 500)
        models, oof, fold = _cv_plus_inputs(X, y, K=5)
        if method == "split":  # the held-out half calibrates a model fitted on the other half
            model = Ridge(lam=1.0).fit(X[: n // 2], y[: n // 2])
            lo, hi = (
                SplitConformalRegressor(coverage)
                .fit(y[n // 2 :], model.predict(X[n // 2 :]))
                .predict_interval(model.predict(X_new))
            )
        else:
            P = np.column_stack([m.predict(X_new) for m in models])
            lo, hi = CVPlusRegressor(coverage).fit(y, oof, fold).predict_interval(P)
        covered.append(interval_summary(y_new, lo, hi)["coverage"])
    mean, se = np.mean(covered), np.std(covered, ddof=1) / np.sqrt(seeds)
    upper = coverage + (1 / (n // 2 + 1) if method == "split" else 0.03)
    assert coverage - 3 * se <= mean <= upper + 3 * se, (mean, se)


def test_interval_summary_counts_the_bounds_as_inside():
    s = interval_summary([1.0, 2.0, 5.0], [1.0, 0.0, 0.0], [2.0, 2.0, 4.0])
    assert s == {"coverage": pytest.approx(2 / 3), "mean_width": pytest.approx(7 / 3), "median_width": 2.0, "n": 3}


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="y_pred has 4 entries, expected 3"):
        SplitConformalRegressor().fit(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError, match="fold must hold class indices"):
        CVPlusRegressor().fit(np.zeros(3), np.zeros(3), np.array([0.0, 0.5, 2.0]))
    fitted = CVPlusRegressor().fit(np.zeros(4), np.zeros(4), np.array([0, 1, 0, 1]))
    with pytest.raises(ValueError, match="fold_predictions has 3 columns, but CV\\+ was fitted with 2"):
        fitted.predict_interval(np.zeros((2, 3)))


def test_coverage_holds_per_group_when_the_groups_share_the_noise_and_fails_when_they_do_not():
    """Conformal coverage is marginal. Over 40 seeds, with a sensitive attribute independent of the noise, each
    group's coverage is within three standard errors of 0.9; when one group's noise is three times larger, CV+
    over-covers the quiet group and under-covers the noisy one (what the fairness stage's per-group interval
    coverage is there to reveal)."""
    seeds, n = 40, 300
    same, different = {0: [], 1: []}, {0: [], 1: []}
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        for result, noisy in ((same, 1.0), (different, 3.0)):
            g, g_new = rng.integers(0, 2, size=n), rng.integers(0, 2, size=600)
            X, X_new = rng.normal(size=(n, 3)), rng.normal(size=(600, 3))
            beta = np.array([1.0, -2.0, 0.5])
            y = X @ beta + rng.normal(size=n) * np.where(g == 1, noisy, 1.0)
            y_new = X_new @ beta + rng.normal(size=600) * np.where(g_new == 1, noisy, 1.0)
            models, oof, fold = _cv_plus_inputs(X, y, K=5)
            P = np.column_stack([m.predict(X_new) for m in models])
            lo, hi = CVPlusRegressor(0.9).fit(y, oof, fold).predict_interval(P)
            for group in (0, 1):
                inside = g_new == group
                result[group].append(interval_summary(y_new[inside], lo[inside], hi[inside])["coverage"])
    for group in (0, 1):
        mean, se = np.mean(same[group]), np.std(same[group], ddof=1) / np.sqrt(seeds)
        assert 0.9 - 3 * se - 0.01 <= mean <= 0.93 + 3 * se, (group, mean, se)
    assert np.mean(different[0]) > 0.97 and np.mean(different[1]) < 0.85
