"""GaussianBayesClassifier (catalogue 000 A1-A6, 001-004 7.4 and E39).

Oracles: scikit-learn LinearDiscriminantAnalysis / QuadraticDiscriminantAnalysis posteriors to 1e-8 (both ML
covariances, shrinkage toward the scaled identity);
scipy.stats.multivariate_normal for the class densities; the 1-D posterior sigma(1) = 0.731059 of erratum E39;
the car-purchase costs -8 vs 0 (seed 000 lines 183-232); integer weights = repeated rows."""

import numpy as np
import pytest
from scipy.special import softmax
from scipy.stats import multivariate_normal
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis

from mllib.bayes import GaussianBayesClassifier
from mllib.decisions import min_risk_decision


def _problem(seed, n=300, d=4, k=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    centres = rng.normal(scale=1.5, size=(k, d))
    scales = [rng.normal(size=(d, d)) / np.sqrt(d) + np.eye(d) for _ in range(k)]
    X = np.stack([centres[c] + rng.normal(size=d) @ scales[c] for c in y])
    return X, y


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("solver", ["lsqr", "svd"])
def test_shared_covariance_equals_sklearn_lda(k, solver):
    X, y = _problem(k, k=k)
    ref = LinearDiscriminantAnalysis(solver=solver).fit(X, y)
    model = GaussianBayesClassifier(reg_param=0.0, covariance="shared").fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X), atol=1e-8)
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))
    np.testing.assert_allclose(model.priors_, ref.priors_)
    np.testing.assert_allclose(model.means_, ref.means_, atol=1e-12)


@pytest.mark.parametrize("r", [0.1, 0.7])
def test_shrinkage_equals_sklearn_lda_shrinkage(r):
    X, y = _problem(5, n=60, d=6)
    ref = LinearDiscriminantAnalysis(solver="lsqr", shrinkage=r).fit(X, y)
    model = GaussianBayesClassifier(reg_param=r).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X), atol=1e-8)
    np.testing.assert_allclose(model.covariance_, ref.covariance_, atol=1e-12)


@pytest.mark.parametrize("k", [2, 3])
def test_per_class_covariance_equals_sklearn_qda(k):
    X, y = _problem(10 + k, k=k)
    ref = QuadraticDiscriminantAnalysis(store_covariance=True).fit(X, y)
    model = GaussianBayesClassifier(reg_param=0.0, covariance="per_class").fit(X, y)
    np.testing.assert_allclose(model.covariances_, np.array(ref.covariance_), atol=1e-12)
    np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X), atol=1e-8)
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))


@pytest.mark.parametrize("r", [0.2, 0.9])
def test_per_class_shrinkage_equals_sklearn_qda_shrinkage(r):
    X, y = _problem(15, n=90, d=6)
    ref = QuadraticDiscriminantAnalysis(solver="eigen", shrinkage=r).fit(X, y)
    model = GaussianBayesClassifier(covariance="per_class", reg_param=r).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X), atol=1e-8)


def test_per_class_posteriors_from_scipy_densities_with_given_priors_and_shrinkage():
    X, y = _problem(20, n=200)
    priors = np.array([0.5, 0.3, 0.2])
    r = 0.25
    model = GaussianBayesClassifier(covariance="per_class", priors=priors, reg_param=r).fit(X, y)
    dens = []
    for c in range(3):
        Xc = X[y == c]
        S = np.cov(Xc, rowvar=False, bias=True)
        S = (1 - r) * S + r * np.trace(S) / S.shape[0] * np.eye(S.shape[0])
        dens.append(priors[c] * multivariate_normal(Xc.mean(axis=0), S).pdf(X))
    dens = np.array(dens).T
    np.testing.assert_allclose(model.predict_proba(X), dens / dens.sum(axis=1, keepdims=True), rtol=1e-9, atol=1e-12)


def test_given_priors_shift_log_odds_by_log_prior_ratio():
    X, y = _problem(21, k=2)
    a = GaussianBayesClassifier(reg_param=0.0).fit(X, y)
    b = GaussianBayesClassifier(reg_param=0.0, priors=[0.2, 0.8]).fit(X, y)
    shift = np.log(0.8 / 0.2) - np.log(a.priors_[1] / a.priors_[0])
    np.testing.assert_allclose(b.decision_function(X) - a.decision_function(X), shift, rtol=1e-10)


def test_one_dimensional_posterior_of_erratum_e39():
    # mu_{-1} = -1, mu_1 = +1, sigma^2 = 1, equal priors: P(1 | x = 0.5) = sigma(1) = 0.731059 (not sigma(2))
    X = np.array([[-2.0], [0.0], [0.0], [2.0]])  # class means -1 and +1, pooled ML variance 1
    y = np.array([0, 0, 1, 1])
    model = GaussianBayesClassifier(reg_param=0.0).fit(X, y)
    np.testing.assert_allclose(model.covariance_, [[1.0]])
    assert model.predict_proba([[0.5]])[0, 1] == pytest.approx(0.731059, abs=1e-6)
    assert model.decision_function([[0.5]])[0] == pytest.approx(1.0, rel=1e-12)


def test_shared_and_per_class_agree_when_class_covariances_are_equal():
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(50, 3))
    Z = (Z - Z.mean(0)) @ np.linalg.cholesky(np.linalg.inv(np.cov(Z, rowvar=False, bias=True))).T  # ML cov = I
    X = np.vstack([Z, Z + [2.0, -1.0, 0.5]])
    y = np.repeat([0, 1], 50)
    a = GaussianBayesClassifier(reg_param=0.0, covariance="shared").fit(X, y)
    b = GaussianBayesClassifier(reg_param=0.0, covariance="per_class").fit(X, y)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-12)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-10)


def test_car_purchase_minimum_cost_decision():
    # classes [defect, no defect]; deciding "no defect" = buy, deciding "defect" = not buy (seed 000 lines 183-232)
    costs = np.array(
        [
            [0.0, 0.0],  # not buy | defect, not buy | no defect
            [100.0, -20.0],
        ]
    )  # buy | defect,     buy | no defect
    decided = min_risk_decision([[0.1, 0.9]], costs)
    np.testing.assert_allclose(decided["expected_costs"], [[0.0, -8.0]])
    assert decided["action"].tolist() == [1]  # buy
    # the 0/1 ("-identity") cost reduces to the maximum posterior
    P = softmax(np.random.default_rng(0).normal(size=(20, 3)), axis=1)
    np.testing.assert_array_equal(min_risk_decision(P, -np.eye(3))["action"], P.argmax(axis=1))


def test_cost_matrix_changes_predict_not_posteriors():
    X = np.array([[-2.0], [0.0], [0.0], [2.0]])
    y = np.array(["defect", "defect", "ok", "ok"])
    # posterior of "defect" at x is sigma(-2x); at x = ln(9)/2 it is exactly 0.1
    x = np.array([[np.log(9) / 2]])
    plain = GaussianBayesClassifier(reg_param=0.0).fit(X, y)
    np.testing.assert_allclose(plain.predict_proba(x), [[0.1, 0.9]], atol=1e-12)
    assert plain.predict(x)[0] == "ok"
    costly = GaussianBayesClassifier(reg_param=0.0, cost_matrix=[[0.0, 0.0], [100.0, -20.0]]).fit(X, y)
    assert costly.predict(x)[0] == "ok"  # buy: -8 < 0
    wary = GaussianBayesClassifier(reg_param=0.0, cost_matrix=[[0.0, 0.0], [200.0, -20.0]]).fit(X, y)
    assert wary.predict(x)[0] == "defect"  # 200 * 0.1 - 18 = 2 > 0: do not buy
    np.testing.assert_allclose(wary.predict_proba(x), plain.predict_proba(x))


@pytest.mark.parametrize("covariance", ["shared", "per_class"])
def test_integer_sample_weights_equal_repeating_rows(covariance):
    X, y = _problem(30, n=90)
    w = np.random.default_rng(1).integers(1, 4, size=90)
    a = GaussianBayesClassifier(covariance=covariance, reg_param=0.1).fit(X, y, sample_weight=w)
    b = GaussianBayesClassifier(covariance=covariance, reg_param=0.1).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-10)


def test_posteriors_are_stable_far_from_the_data():
    X, y = _problem(31)
    for cov in ["shared", "per_class"]:
        P = GaussianBayesClassifier(reg_param=0.0, covariance=cov).fit(X, y).predict_proba(X * 1e4)
        assert np.isfinite(P).all()
        np.testing.assert_allclose(P.sum(axis=1), 1.0)


def test_errors():
    X, y = _problem(32, n=30)
    with pytest.raises(ValueError, match="covariance must be one of"):
        GaussianBayesClassifier(reg_param=0.0, covariance="full").fit(X, y)
    with pytest.raises(ValueError, match=r"reg_param must be a number in \[0, 1\]"):
        GaussianBayesClassifier(reg_param=1.5).fit(X, y)
    with pytest.raises(ValueError, match="priors must be 3 positive"):
        GaussianBayesClassifier(reg_param=0.0, priors=[0.5, 0.5]).fit(X, y)
    with pytest.raises(ValueError, match=r"cost_matrix must have 3 rows .* got shape \(2, 2\)"):
        GaussianBayesClassifier(cost_matrix=np.ones((2, 2))).fit(X, y)
    collinear = np.column_stack([X, X[:, 0]])
    with pytest.raises(ValueError, match="reg_param > 0"):
        GaussianBayesClassifier(reg_param=0.0).fit(collinear, y)
    GaussianBayesClassifier(reg_param=0.01).fit(collinear, y)
    GaussianBayesClassifier().fit(collinear, y)  # the default ridge copes with exact collinearity (one-hot blocks)
