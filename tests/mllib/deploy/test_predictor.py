"""The deployed predictor: one chain (features -> model -> calibrator -> rule) whose decisions follow the rule
exactly, and which survives a save / load round trip bit for bit."""

import numpy as np
import pytest

from mllib import io as mlio
from mllib.base import Pipeline
from mllib.calibration import NoCalibration, OneVsRestCalibration, PlattScaling, decision_scores
from mllib.conformal import SplitConformalClassifier
from mllib.decisions import bayes_threshold, min_risk_decision
from mllib.deploy import DeployedPredictor
from mllib.linear import LogisticRegression
from mllib.preprocessing import StandardScaler


def assembled(n_classes: int, seed: int = 0, **rule):
    rng = np.random.default_rng(seed)
    X = rng.normal(loc=3.0, scale=2.0, size=(400, 3))
    logits = X[:, :n_classes] - X[:, :n_classes].mean(axis=1, keepdims=True) if n_classes > 2 else X[:, :1] - 3
    y = (
        np.argmax(logits + rng.gumbel(size=logits.shape), axis=1)
        if n_classes > 2
        else (logits[:, 0] + rng.logistic(size=400) > 0).astype(int)
    )
    features = Pipeline([("scale", StandardScaler())]).fit(X)
    model = LogisticRegression().fit(features.transform(X), y)
    scores = decision_scores(model, features.transform(X))
    calibrator = (PlattScaling() if n_classes == 2 else OneVsRestCalibration(PlattScaling())).fit(scores, y)
    classes = ["no", "yes"] if n_classes == 2 else [f"class {k}" for k in range(n_classes)]
    return DeployedPredictor(features, model, calibrator, classes, **rule).fit(), X, y


def test_the_chain_is_features_model_calibrator():
    predictor, X, _ = assembled(3)
    expected = predictor.calibrator.predict_proba(
        np.log(np.clip(predictor.model.predict_proba(predictor.features.transform(X)), np.finfo(float).eps, 1))
    )
    np.testing.assert_array_equal(predictor.predict_proba(X), expected)


def test_binary_threshold_rule_is_p_at_least_t():
    predictor, X, _ = assembled(2, threshold=0.7, reject_threshold=0.8)
    P = predictor.predict_proba(X)
    decided = predictor.decide(P)
    np.testing.assert_array_equal(decided["decision"], (P[:, 1] >= 0.7).astype(int))
    np.testing.assert_array_equal(decided["accepted"], P.max(axis=1) >= 0.8)
    assert predictor.rule_ == "threshold" and predictor.decision_threshold_ == 0.7
    np.testing.assert_array_equal(predictor.predict(X), np.where(P[:, 1] >= 0.7, "yes", "no"))


def test_binary_cost_matrix_decides_at_its_bayes_threshold():
    cost = [[0, 5], [1, 0]]
    predictor, X, _ = assembled(2, threshold=0.5, cost_matrix=cost)
    assert predictor.decision_threshold_ == pytest.approx(1 / 6) == bayes_threshold(cost)
    P = predictor.predict_proba(X)
    decided = predictor.decide(P)["decision"]
    np.testing.assert_array_equal(decided, (P[:, 1] >= 1 / 6).astype(int))  # the threshold, not 0.5, is used
    off_tie = np.abs(P[:, 1] - 1 / 6) > 1e-12
    np.testing.assert_array_equal(decided[off_tie], min_risk_decision(P, cost)["action"][off_tie])


def test_multiclass_argmax_and_cost_matrix_rules():
    predictor, X, _ = assembled(3, threshold=0.9)  # the binary threshold plays no part for K > 2
    P = predictor.predict_proba(X)
    assert predictor.rule_ == "argmax" and predictor.decision_threshold_ is None
    np.testing.assert_array_equal(predictor.decide(P)["decision"], P.argmax(axis=1))
    cost = [[0, 1, 4], [1, 0, 4], [2, 2, 0]]  # missing class 2 is expensive: decide it more often
    costly, _, _ = assembled(3, cost_matrix=cost, reject_threshold=0.5)
    decided = costly.decide(P)
    np.testing.assert_array_equal(decided["decision"], min_risk_decision(P, cost)["action"])
    assert (decided["decision"] == 2).sum() > (P.argmax(axis=1) == 2).sum()
    np.testing.assert_array_equal(decided["accepted"], P.max(axis=1) >= 0.5)


def test_save_and_load_give_the_same_decisions_bit_for_bit(tmp_path):
    predictor, X, y = assembled(3, cost_matrix=[[0, 1, 4], [1, 0, 4], [2, 2, 0]], reject_threshold=0.6)
    P = predictor.predict_proba(X)
    predictor.conformal = SplitConformalClassifier(0.9).fit(P, y)
    predictor.fit()
    mlio.save(predictor, tmp_path / "predictor")
    loaded = mlio.load(tmp_path / "predictor")
    assert isinstance(loaded, DeployedPredictor) and loaded.classes == predictor.classes
    np.testing.assert_array_equal(loaded.predict_proba(X), P)
    for key in ("decision", "accepted"):
        np.testing.assert_array_equal(loaded.decide(P)[key], predictor.decide(P)[key])
    np.testing.assert_array_equal(loaded.predict_set(X), predictor.predict_set(X))
    np.testing.assert_array_equal(loaded.predict(X), predictor.predict(X))


def test_with_model_keeps_the_chain_and_rule():
    predictor, X, y = assembled(2, cost_matrix=[[0, 5], [1, 0]])
    other = LogisticRegression(lam=100.0).fit(predictor.transform(X), y)
    swapped = predictor.with_model(other)
    assert swapped.model is other and swapped.calibrator is predictor.calibrator
    assert swapped.decision_threshold_ == predictor.decision_threshold_


def test_inconsistent_parts_are_refused():
    predictor, X, y = assembled(3)
    params = predictor.get_params(deep=False)
    with pytest.raises(ValueError, match="cost_matrix must have 3 rows"):
        DeployedPredictor(**{**params, "cost_matrix": [[0, 1], [1, 0]]}).fit()
    with pytest.raises(ValueError, match="codes 0..1"):
        DeployedPredictor(**{**params, "classes": ["a", "b"]}).fit()
    with pytest.raises(ValueError, match="not fitted"):
        DeployedPredictor(**{**params, "calibrator": NoCalibration()}).fit()
    with pytest.raises(ValueError, match="no conformal"):
        predictor.predict_set(X)
