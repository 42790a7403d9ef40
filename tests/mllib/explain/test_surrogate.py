"""Global surrogate: a model that is itself a shallow rule is recovered with fidelity 1 and its rule; fidelity is
the agreement (or R^2) on the evaluation rows, not the fitting rows; the rules partition the fitting rows."""

from __future__ import annotations

import numpy as np
import pytest

from mllib.explain import global_surrogate


def test_a_depth_two_rule_is_recovered_exactly():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(800, 3))

    def model(Z):
        return ((Z[:, 0] > 0.5) & (Z[:, 2] <= -0.2)).astype(int)

    result = global_surrogate(X[:500], model(X[:500]), X[500:], model(X[500:]), ["a", "b", "c"], True, max_depth=2)
    assert result["fidelity"] > 0.98 and result["fidelity_metric"] == "agreement"
    assert sum(rule["rows"] for rule in result["rules"]) == 500
    positive = [rule for rule in result["rules"] if rule["prediction"] == 1]
    assert len(positive) == 1 and positive[0]["conditions"][0].startswith("a > 0.")
    assert positive[0]["conditions"][1].startswith("c <= -0.")


def test_regression_fidelity_is_r2_against_the_model_on_the_evaluation_rows():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(600, 2))
    output = np.sin(2 * X[:, 0]) + X[:, 1]
    shallow = global_surrogate(X[:400], output[:400], X[400:], output[400:], ["a", "b"], False, max_depth=1)
    deep = global_surrogate(X[:400], output[:400], X[400:], output[400:], ["a", "b"], False, max_depth=6)
    predicted = shallow["tree"].predict(X[400:])
    r2 = 1 - np.sum((output[400:] - predicted) ** 2) / np.sum((output[400:] - output[400:].mean()) ** 2)
    assert shallow["fidelity"] == pytest.approx(r2) and shallow["fidelity_metric"] == "r2"
    assert shallow["fidelity"] < deep["fidelity"] and deep["n_leaves"] > shallow["n_leaves"] == 2


def test_depth_must_be_positive():
    X = np.zeros((4, 1))
    with pytest.raises(ValueError, match="max_depth"):
        global_surrogate(X, np.arange(4), X, np.arange(4), ["a"], False, max_depth=0)


def test_a_model_deciding_one_class_everywhere_is_one_leaf():
    X = np.random.default_rng(2).normal(size=(50, 2))
    result = global_surrogate(X[:30], np.ones(30, int), X[30:], np.ones(20, int), ["a", "b"], True)
    assert result["fidelity"] == 1.0 and result["n_leaves"] == 1
    assert result["rules"] == [{"conditions": [], "splits": [], "prediction": 1, "rows": 30}]
