"""The prediction task and the target's classes: `data.task` (binary | multiclass | regression; auto is inferred by
pipeline/core/task_inference.py), one class per kind encoding and describing the target and holding the task's
defaults: the classification kinds here, the regression kind in pipeline/core/task_regression.py, their abstract base
in pipeline/core/task_base.py (what a step does differently by task is in a table beside it, keyed by the task's
name). Every stage after
split encodes the target through the Target written to data/processed/target.json, so they all agree on the classes
and their order. Each kind also checks that a data.task set in params.yaml fits the values and builds the Target
from them (`check_fits`, `from_values`, given task_inference.Observed).

Codes: binary targets are 1 for `data.positive_label` (null: the larger value) and 0 for the other class; K > 2
classes are 0..K-1 in sorted order. Cost matrices, probability columns and reports use this order. A regression
target has no classes: it is encoded as float64, every value finite.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING, ClassVar, cast

import numpy as np
import pandas as pd

from mllib import registry
from mllib.base import to_python

from .errors import PipelineError
from .evaluation_records import (
    BinaryEvaluation,
    ClassificationCalibration,
    MulticlassEvaluation,
)
from .fairness_records import BinaryFairness, MulticlassFairness
from .task_base import TASKS, Target, finite, label_key
from .task_regression import QUANTILE_BINS, Regression

if TYPE_CHECKING:
    from mllib.base import MixedMatrix
    from mllib.deploy.predictor import DeployedPredictor

    from .task_base import Observed, Predictor, Response

__all__ = ["TASKS", "Target", "Classification", "Binary", "Multiclass", "Regression", "KINDS", "finite",
           "label_key", "QUANTILE_BINS"]  # fmt: skip


class Classification(Target):
    """Classes coded 0..K-1; models give decision scores, the deployed predictor calibrated probabilities."""

    classifies = True  # decisions are classes (surrogate trees, stratified inner splits)
    estimators = registry.CLASSIFIERS  # the models that can fit it
    # model.name auto: compared on the same folds, each over its own search.grid entry, simplest first (the linear
    # model, the additive model, gradient boosting); model.selection picks one
    default_models = ("logistic_regression", "explainable_boosting", "gradient_boosting")
    test_metrics: ClassVar[tuple[str, ...]] = ("accuracy", "log_loss", "brier")  # and each kind's own

    # -- what each classification kind provides besides Target's members --
    @property
    @abstractmethod
    def ranking_metric(self) -> str:
        """What a calibration map may change of the model's ranking."""

    @abstractmethod
    def metric_probabilities(self, P: np.ndarray) -> np.ndarray:
        """What the probability metrics read of (n, K) probabilities."""

    @staticmethod
    @abstractmethod
    def calibration_view(y: np.ndarray, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(labels, probabilities) the calibration error is measured on."""

    def encode(self, series: pd.Series) -> np.ndarray:
        """Class codes 0..K-1 of the target values (a value outside the classes is an error naming it)."""
        index = {label_key(c): k for k, c in enumerate(self.classes)}
        codes, distinct = pd.factorize(series, use_na_sentinel=False)  # each distinct value spelled once, not per row
        keys = [label_key(v) for v in distinct.tolist()]
        unknown = sorted({k for k in keys if k not in index})
        if unknown:
            raise PipelineError(
                f"target column {self.column!r} holds values {unknown[:5]} that are not among its classes "
                f"{self.classes}; rerun `dvc repro split`"
            )
        encoded: np.ndarray = np.array([index[k] for k in keys], dtype=np.int64)[codes]
        return encoded

    def describe(self) -> str:
        return f"{self.task} target with classes {self.classes}"

    def split_strategy(self, group: str | None) -> str:
        """split.strategy auto: grouped and stratified by class when data.group is set, stratified otherwise."""
        return "stratified_group" if group else "stratified"

    def strata(self, y: np.ndarray) -> np.ndarray:
        """What stratified splits balance: the class codes."""
        return y

    def class_counts(self, y: np.ndarray) -> np.ndarray:
        """Rows per class code of `y` (what the split checks: every class in every training part)."""
        return np.bincount(y, minlength=self.n_classes)

    def counts(self, y: np.ndarray) -> dict[str, float]:
        """Rows per class of the codes `y`."""
        return dict(zip(self.label_names(), self.class_counts(y).tolist()))

    def shares(self, y: np.ndarray) -> dict[str, float]:
        """The class shares of the codes `y`."""
        return dict(zip(self.label_names(), (self.class_counts(y) / y.size).tolist()))

    def distribution(self, values: pd.Series) -> dict[str, float]:
        """The class shares over `values` (missing ones left out), keyed by the label's spelling in sorted order:
        the model card's record of what a removal of rows did to the question (pipeline/core/changes.py)."""
        values = values[values.notna()]
        codes, distinct = pd.factorize(values)  # each distinct label spelled once, not per row
        counts = np.bincount(codes, minlength=len(distinct))
        shares: dict[str, float] = {}
        for value, count in zip(distinct.tolist(), counts):
            shares[label_key(value)] = shares.get(label_key(value), 0.0) + count / counts.sum()
        return {k: float(shares[k]) for k in sorted(shares)}

    def response(self, predictor: Predictor, response: str) -> Response:
        """Raw matrix -> what a scorer (or an explainer) needs from the deployed predictor: its decisions ("label"),
        the model's binary score ("score"), or the calibrated probabilities ("proba": p(positive) for two classes,
        (n, K) for more)."""

        classifier = cast("DeployedPredictor", predictor)  # a classification target's predictor

        def predict(X_raw: MixedMatrix) -> np.ndarray:
            if response == "score":
                return classifier.scores(X_raw)
            P = classifier.predict_proba(X_raw)
            if response == "label":
                decision: np.ndarray = classifier.decide(P)["decision"]
                return decision
            return self.metric_probabilities(P)

        return predict


class Binary(Classification, kind="binary"):
    """Two classes: p(positive) is the model's output; calibration is judged on it, curves drawn for it."""

    headline_metric = "roc_auc"
    test_metrics = (*Classification.test_metrics, "roc_auc", "average_precision", "precision", "recall", "f1")
    test_record = BinaryEvaluation
    calibration_record = ClassificationCalibration
    fairness_record = BinaryFairness
    ranking_metric = "roc_auc"  # what a calibration map may change of the model's ranking

    @staticmethod
    def check_fits(observed: Observed, inferred: type[Target]) -> None:
        """data.task binary needs exactly two values."""
        if len(observed.distinct) != 2:
            raise observed.forced("binary", f"has {observed.found}")

    @classmethod
    def from_values(cls, observed: Observed, positive: object, reason: str) -> Target:
        """Classes [negative, positive]: data.positive_label (null: the larger value) is the positive one."""
        distinct = observed.distinct
        positive = distinct[-1] if positive is None else positive
        matches = [v for v in distinct if label_key(v) == label_key(positive)]
        if not matches:
            raise PipelineError(
                f"params.yaml: data.positive_label {positive!r} is not a value of {observed.column!r} "
                f"{observed.shown}; set it to one of them (or null for the larger value)"
            )
        negative = next(v for v in distinct if label_key(v) != label_key(positive))
        return cls("binary", observed.column, [to_python(negative), to_python(matches[0])], reason)

    def metric_probabilities(self, P: np.ndarray) -> np.ndarray:
        """What Brier score and log loss take: the positive class's column."""
        return P[:, 1]

    @staticmethod
    def calibration_view(y: np.ndarray, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(outcome, probability) whose calibration stands for P's: (y, p(positive))."""
        return y, P[:, 1]


class Multiclass(Classification, kind="multiclass"):
    """K > 2 classes: calibration is judged on the top label (Guo et al. 2017) with the classwise ECE beside it,
    curves drawn for each class against the rest."""

    headline_metric = "roc_auc_ovr"
    test_metrics = (*Classification.test_metrics, "roc_auc_ovr", "balanced_accuracy", "f1_macro")
    test_record = MulticlassEvaluation
    calibration_record = ClassificationCalibration
    fairness_record = MulticlassFairness
    ranking_metric = "roc_auc_ovr"

    @staticmethod
    def check_fits(observed: Observed, inferred: type[Target]) -> None:
        """data.task multiclass needs three values or more, and not a quantity of non-integer numbers."""
        if len(observed.distinct) < 3:
            raise observed.forced("multiclass", f"has only {observed.found}", "use binary, or ")
        if inferred is Regression and observed.numeric and not all(float(v).is_integer() for v in observed.distinct):
            raise observed.forced(
                "multiclass", f"holds non-integer numbers ({observed.found}), a quantity rather than classes"
            )

    @classmethod
    def from_values(cls, observed: Observed, positive: object, reason: str) -> Target:
        """Classes in sorted order; data.positive_label has no meaning here."""
        observed.refuse_positive_label(positive, f"multiclass ({observed.found})")
        return cls("multiclass", observed.column, [to_python(v) for v in observed.distinct], reason)

    def metric_probabilities(self, P: np.ndarray) -> np.ndarray:
        return P

    @staticmethod
    def calibration_view(y: np.ndarray, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(whether the top label is right, the top probability)."""
        return (np.argmax(P, axis=1) == y).astype(np.int64), P.max(axis=1)


KINDS = Target.kinds  # {"binary": Binary, "multiclass": Multiclass, "regression": Regression}
