"""One deployed classifier: raw rows -> fitted features -> model scores -> calibrated probabilities -> decision.

Decision rule (one rule for every consumer):
- binary: decide the positive class when p(positive) >= t, with t the given threshold, or, with a 2 x 2 cost
  matrix, its minimum-expected-cost (Bayes) threshold (seed 000, lines 179-232: at p = t both decisions cost the
  same, so p >= t is a minimum-cost rule);
- K > 2 classes: the class of largest probability (0-1 loss), or with a K x K cost matrix the decision of least
  expected cost R(a | x) = sum_j cost[a, j] p(j | x) (ties to the lower class index; ERRATUM E44);
- reject option: abstain when the largest class probability is below reject_threshold (seed 004, D4:1986-1996);
  the decision is still reported, `accepted` says whether it is made.
Optionally a split-conformal set of classes per row (mllib.conformal) with its coverage guarantee.

Sections cited:
- ML 1 lecture notes (seed 000): Minimum Cost Decisions (179)
- Ghent ML notes (seed 004): 11.1 Overconfidence and Unreliability of Models (1986)"""

from __future__ import annotations

import numpy as np

from ..base import (
    OPEN_UNIT,
    OPTIONAL,
    BaseEstimator,
    HasMethod,
    Interval,
    check_array,
    check_hyperparameters,
    check_is_fitted,
    check_width,
)
from ..base.constraints import ARRAY_LIKE
from ..calibration import decision_scores
from ..decisions import bayes_threshold, check_cost_matrix, min_risk_decision

RULES = ("threshold", "cost_matrix", "argmax")


class DeployedPredictor(BaseEstimator):
    """features -> model -> calibrator -> decision rule. fit() checks the parts and resolves the rule.

    Parameters
    ----------
    features : transformer
        Fitted transformer of raw rows (an mllib Pipeline / ColumnTransformer).
    model : classifier
        Fitted classifier whose classes are the codes 0..K-1 (binary: 1 = positive).
    calibrator : calibrator
        Fitted map from the model's scores (mllib.calibration.decision_scores) to (n, K) probabilities.
    classes : list
        The target's labels in code order (binary: [negative, positive]); predict returns these.
    threshold : float, default 0.5
        Binary only: p(positive) >= threshold decides positive (ignored when cost_matrix is set).
    cost_matrix : array-like of shape (K, K) or None, default None
        `cost_matrix[a][j]` = cost of deciding class a when the true class is j.
    reject_threshold : float, default 0.0
        Abstain when max_k p_k < reject_threshold (0: never).
    conformal : SplitConformalClassifier or None, default None
        Fitted on held-out calibrated probabilities: the prediction sets.

    Attributes
    ----------
    n_classes_ : int
        K, the number of classes.
    rule_ : {"threshold", "cost_matrix", "argmax"}
        The decision rule.
    decision_threshold_ : float or None
        Binary: the t of p >= t; None for K > 2.
    """

    _constraints = {
        "threshold": OPEN_UNIT,
        "reject_threshold": Interval(False, 0, 1, "left"),
        "cost_matrix": [ARRAY_LIKE, OPTIONAL],
        "classes": ARRAY_LIKE,
        "conformal": [HasMethod("predict_set", "fitted conformal sets"), OPTIONAL],
    }

    def __init__(
        self,
        features,
        model,
        calibrator,
        classes,
        threshold: float = 0.5,
        cost_matrix=None,
        reject_threshold: float = 0.0,
        conformal=None,
    ):
        self.features = features
        self.model = model
        self.calibrator = calibrator
        self.classes = classes
        self.threshold = threshold
        self.cost_matrix = cost_matrix
        self.reject_threshold = reject_threshold
        self.conformal = conformal

    def fit(self, X=None, y=None) -> DeployedPredictor:
        """Check that every part is fitted and agrees on the classes; resolve the decision rule (no data needed:
        the parts are fitted where the pipeline fits them, the features per fold, the calibrator out of fold)."""
        check_hyperparameters(self)
        for part in (self.features, self.model, self.calibrator):
            check_is_fitted(part)
        K = len(self.classes)
        if K < 2 or list(np.asarray(self.model.classes_).tolist()) != list(range(K)):
            raise ValueError(
                f"the model's classes {np.asarray(self.model.classes_).tolist()} are not the codes "
                f"0..{K - 1} of the {K} classes {list(self.classes)}"
            )
        if self.conformal is not None and self.conformal.n_classes_ != K:
            raise ValueError(f"the conformal sets were fitted for {self.conformal.n_classes_} classes, not {K}")
        self.n_classes_ = K
        if self.cost_matrix is not None:
            cost = check_cost_matrix(self.cost_matrix, K, K)
            self.rule_ = "cost_matrix"
            self.decision_threshold_ = bayes_threshold(cost) if K == 2 else None
        elif K == 2:
            self.rule_, self.decision_threshold_ = "threshold", float(self.threshold)
        else:
            self.rule_, self.decision_threshold_ = "argmax", None
        return self

    # ---- the chain ----
    def transform(self, X) -> np.ndarray:
        """Raw rows -> the model's input matrix."""
        check_is_fitted(self)
        return self.features.transform(X)

    def scores(self, X) -> np.ndarray:
        """The model's scores: (n,) for two classes, (n, K) log-probabilities for more."""
        return decision_scores(self.model, self.transform(X))

    def proba_from_scores(self, scores) -> np.ndarray:
        return self.calibrator.predict_proba(scores)

    def predict_proba(self, X) -> np.ndarray:
        """Calibrated class probabilities, (n, K), columns in code order."""
        return self.proba_from_scores(self.scores(X))

    # ---- the decision ----
    def decide(self, proba) -> dict:
        """{decision: class code per row, accepted: the reject option lets the decision be made, confidence:
        max_k p_k} for (n, K) calibrated probabilities."""
        check_is_fitted(self)
        P = check_array(proba, name="proba")
        check_width(P, self.n_classes_, "proba", "the predictor", "classes")
        if self.decision_threshold_ is not None:
            decision = (P[:, 1] >= self.decision_threshold_).astype(np.int64)
        elif self.rule_ == "cost_matrix":
            decision = min_risk_decision(P, self.cost_matrix)["action"]
        else:
            decision = np.argmax(P, axis=1).astype(np.int64)
        confidence = P.max(axis=1)
        return {"decision": decision, "accepted": confidence >= self.reject_threshold, "confidence": confidence}

    def predict(self, X) -> np.ndarray:
        """The decided class labels (abstentions included: see decide()["accepted"])."""
        return self.labels(self.decide(self.predict_proba(X))["decision"])

    def labels(self, codes) -> np.ndarray:
        classes = np.empty(len(self.classes), dtype=object)
        classes[:] = list(self.classes)
        return classes[np.asarray(codes, dtype=np.int64)]

    def predict_set(self, X) -> np.ndarray:
        """Boolean (n, K) conformal sets; needs `conformal`."""
        if self.conformal is None:
            raise ValueError("this predictor has no conformal sets (conformal=None)")
        return self.conformal.predict_set(self.predict_proba(X))

    def decision_rule(self) -> dict:
        """How decisions are made: the rule (threshold, cost_matrix or argmax), its threshold and cost matrix."""
        return {"rule": self.rule_, "threshold": self.decision_threshold_, "cost_matrix": self.cost_matrix}

    def with_model(self, model) -> DeployedPredictor:
        """The same chain and rule around another fitted model (e.g. a reweighed refit)."""
        return DeployedPredictor(**{**self.get_params(deep=False), "model": model}).fit()
