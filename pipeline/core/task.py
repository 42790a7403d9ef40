"""The prediction task and the target's classes: `data.task` (binary | multiclass | regression; auto is inferred by
pipeline/core/task_inference.py), one class per kind owning what differs by task: the classification kinds here, the
regression kind in pipeline/core/task_regression.py, their base in pipeline/core/task_base.py. Every stage after
split encodes the target through the Target written to data/processed/target.json, so they all agree on the classes
and their order. Each kind also checks that a data.task set in params.yaml fits the values and builds the Target
from them (`check_fits`, `from_values`, given task_inference.Observed).

Codes: binary targets are 1 for `data.positive_label` (null: the larger value) and 0 for the other class; K > 2
classes are 0..K-1 in sorted order. Cost matrices, probability columns and reports use this order. A regression
target has no classes: it is encoded as float64, every value finite.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from mllib import registry
from mllib.base import to_python

from .dispatch import unregistered
from .errors import PipelineError
from .evaluation_records import (
    BinaryEvaluation,
    ClassificationCalibration,
    ClassificationEvaluation,
    MulticlassEvaluation,
)
from .fairness_records import BinaryFairness, MulticlassFairness
from .task_base import TASKS, Target, finite, label_key, per_kind, required, requires
from .task_regression import QUANTILE_BINS, Regression

__all__ = ["TASKS", "Target", "Classification", "Binary", "Multiclass", "Regression", "KINDS", "finite",
           "label_key", "QUANTILE_BINS", "per_kind", "unregistered"]  # fmt: skip


class Classification(Target):
    """Classes coded 0..K-1; models give decision scores, the deployed predictor calibrated probabilities."""

    classifies = True  # decisions are classes (surrogate trees, stratified inner splits)
    estimators = registry.CLASSIFIERS  # the models that can fit it
    # model.name auto: compared on the same folds, each over its own search.grid entry, simplest first (the linear
    # model, the additive model, gradient boosting); model.selection picks one
    default_models = ("logistic_regression", "explainable_boosting", "gradient_boosting")
    test_metrics: ClassVar[tuple[str, ...]] = ("accuracy", "log_loss", "brier")  # and each kind's own
    fairness_gaps = ("demographic_parity_gap", "equal_opportunity_gap")  # what the gate's fairness bound reads
    tree = "decision_tree"  # the single-feature leakage check's model
    no_skill_name = "class prior"
    refused_projections = ()

    # -- what each classification kind provides besides Target's contract --
    baseline_metrics: ClassVar[tuple[str, ...]] = required("classification")  # the no-skill rule's test figures
    ranking_metric: ClassVar[str] = required("classification")  # what a calibration map may change of the ranking

    @requires("classification")
    def metric_probabilities(self, P: np.ndarray) -> np.ndarray:
        """What the probability metrics read of (n, K) probabilities."""

    @requires("classification")
    def calibrator(self, calibrator, native_multiclass: bool) -> Any:
        """The calibration map for the kind (a binary map, or one per class)."""

    @staticmethod
    @requires("classification")
    def calibration_view(y: np.ndarray, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(labels, probabilities) the calibration error is measured on."""

    @staticmethod
    @requires("classification")
    def calibration_detail(y: np.ndarray, P: np.ndarray, cfg: dict) -> dict:
        """The kind's own calibration figures (Brier decomposition, classwise ECE)."""

    @staticmethod
    @requires("classification")
    def plain_decisions(P: np.ndarray, threshold: float) -> np.ndarray:
        """Decisions without costs: the threshold on p(positive), or the most probable class."""

    @staticmethod
    @requires("classification")
    def curve_classes(P: np.ndarray) -> Sequence[int]:
        """The classes whose ROC and PR curves are drawn."""

    @staticmethod
    @requires("classification")
    def ranking_score(y: np.ndarray, P: np.ndarray) -> float:
        """The ranking metric of probabilities P."""

    @staticmethod
    @requires("classification")
    def ranking_interval(y: np.ndarray, P: np.ndarray, level: float) -> list[float]:
        """The ranking metric's confidence interval."""

    @requires("classification")
    def scores(self, y: np.ndarray, P: np.ndarray, decision: np.ndarray) -> dict:
        """Every test metric of probabilities P and decisions."""

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
        return np.array([index[k] for k in keys], dtype=np.int64)[codes]

    def describe(self) -> str:
        return f"{self.task} target with classes {self.classes}"

    def split_strategy(self, group) -> str:
        """split.strategy auto: grouped and stratified by class when data.group is set, stratified otherwise."""
        return "stratified_group" if group else "stratified"

    def strata(self, y: np.ndarray) -> np.ndarray:
        """What stratified splits balance: the class codes."""
        return y

    def class_counts(self, y: np.ndarray) -> np.ndarray:
        """Rows per class code of `y` (what the split checks: every class in every training part)."""
        return np.bincount(y, minlength=self.n_classes)

    def counts(self, y: np.ndarray) -> dict:
        """Rows per class of the codes `y`."""
        return dict(zip(self.label_names(), self.class_counts(y).tolist()))

    def shares(self, y: np.ndarray) -> dict:
        """The class shares of the codes `y`."""
        return dict(zip(self.label_names(), (self.class_counts(y) / y.size).tolist()))

    def distribution(self, values: pd.Series) -> dict:
        """The class shares over `values` (missing ones left out), keyed by the label's spelling in sorted order:
        the model card's record of what a removal of rows did to the question (pipeline/core/changes.py)."""
        values = values[values.notna()]
        codes, distinct = pd.factorize(values)  # each distinct label spelled once, not per row
        counts = np.bincount(codes, minlength=len(distinct))
        shares: dict[str, float] = {}
        for value, count in zip(distinct.tolist(), counts):
            shares[label_key(value)] = shares.get(label_key(value), 0.0) + count / counts.sum()
        return {k: float(shares[k]) for k in sorted(shares)}

    def no_skill(self):
        from mllib.baseline import PriorClassifier

        return PriorClassifier()

    def fold_scores(self, model, X) -> np.ndarray:
        """A fold model's out-of-fold output: its decision scores (what calibration maps to probabilities)."""
        from mllib.calibration import decision_scores

        return decision_scores(model, X)

    def response(self, predictor, response: str):
        """Raw matrix -> what a scorer (or an explainer) needs from the deployed predictor: its decisions ("label"),
        the model's binary score ("score"), or the calibrated probabilities ("proba": p(positive) for two classes,
        (n, K) for more)."""

        def predict(X_raw):
            if response == "score":
                return predictor.scores(X_raw)
            P = predictor.predict_proba(X_raw)
            if response == "label":
                return predictor.decide(P)["decision"]
            return self.metric_probabilities(P)

        return predict

    @staticmethod
    def quality_figures(test: ClassificationEvaluation, calibration: ClassificationCalibration) -> dict:
        """The headline sections of how far the deployed probabilities and decisions can be trusted: calibration
        error before and after the map, the reject option's and the conformal sets' coverage."""
        reject, figures, against = test.selective.reject_option, test.bootstrap.figures, test.decision.against_no_skill
        return {
            "calibration": {
                "oof_ece_before": calibration.oof_before.ece,
                "oof_ece_after": calibration.oof_after_crossfitted.ece,
                "test_ece_before": test.calibration.before.ece,
                "test_ece_after": test.calibration.after.ece,
                "test_ece_after_high": finite(figures["ece"].interval[1]),
            },
            "decisions": {
                "gain_vs_no_skill": against.gain,
                "gain_vs_no_skill_low": finite(against.gain_interval[0]),
                "classes_decided": against.classes_decided,
                "reject_coverage": reject.coverage,
                "selective_risk": finite(reject.selective_risk),
                "aurc": test.selective.aurc,
                "set_coverage": test.conformal.coverage,
                "mean_set_size": test.conformal.mean_set_size,
            },
        }

    @staticmethod
    def group_gaps(audit) -> dict:
        """The headline's gaps of one fairness grouping (its BinaryAudit or MulticlassAudit): demographic parity and
        equal opportunity, max - min, each with its interval (difference, difference_interval)."""
        return {c: audit.criteria[c] for c in ("demographic_parity", "equal_opportunity")}

    @staticmethod
    def quality_check(figures: dict, cfg: dict) -> tuple[str, float | None, float | None, str]:
        """The promotion gate's check of the deployed probabilities: (name, value, bound, fix), value <= bound passes;
        the value is the upper end of the test ECE's interval."""
        name = "upper end of calibration.test_ece_after's interval <= max_ece"
        fix = "calibration.method auto (it tries every map on cross-fitted scores); more rows narrow the interval"
        return name, figures.get("calibration.test_ece_after_high"), cfg["max_ece"], fix

    @staticmethod
    def decision_checks(figures: dict, cfg: dict, costs_set: bool) -> list[tuple]:
        """The promotion gate's checks of the deployed decisions, (name, value, bound, op, fix when it fails) each:
        the rule beats the rule that decides one class for every row beyond the noise (the lower end of the gain's
        interval above min_decision_gain), and it decides more than one class on test unless decision.cost_matrix
        is set (costs may make one class the best decision for every row)."""
        bound = cfg["min_decision_gain"]
        fix = "set decision.cost_matrix to what each error costs (the threshold follows from it)"
        return [
            (
                "lower end of the decisions' gain over the no-skill rule's (interval) > min_decision_gain",
                figures.get("decisions.gain_vs_no_skill_low"),
                bound,
                ">",
                fix,
            ),
            (
                "classes decided on test >= 2" + (" (1 allowed: decision.cost_matrix is set)" if costs_set else ""),
                figures.get("decisions.classes_decided"),
                None if bound is None else 1 if costs_set else 2,
                ">=",
                fix,
            ),
        ]

    def no_skill_decision(self, y_train: np.ndarray, cost_matrix) -> int:
        """The rule that ignores the features: one class for every row, the training rows' most frequent class, or
        with decision.cost_matrix the class of least expected cost under their class shares."""
        prior = self.class_counts(y_train) / y_train.size
        if cost_matrix is None:
            return int(np.argmax(prior))
        return int(np.argmin(np.asarray(cost_matrix, dtype=np.float64) @ prior))

    @staticmethod
    def decision_loss(y: np.ndarray, decision: np.ndarray, cost_matrix) -> float:
        """What the deployed rule is judged on against the no-skill rule: the realised cost per row under
        decision.cost_matrix, else the balanced error (1 - the mean recall over the classes present), which every
        one-class rule holds at 1 - 1/K whatever the class shares."""
        from mllib.metrics import balanced_accuracy_score

        if cost_matrix is not None:
            return float(np.asarray(cost_matrix, dtype=np.float64)[decision, y].mean())
        return 1.0 - balanced_accuracy_score(y, decision)

    def test_figures(self, y, P, decision, no_skill: int, cost_matrix, cfg: dict) -> dict[str, float]:
        """The test figures given an interval (evaluate.n_boot): the headline metrics, the ECE of the deployed
        probabilities, and the decision rule's loss beside the no-skill rule's with their difference (the gain)."""
        from mllib.calibration import expected_calibration_error
        from mllib.metrics import brier_score, log_loss

        scores = self.scores(y, P, decision)
        figures = {m: scores[m] for m in self.test_metrics if m in scores}
        figures["log_loss"] = log_loss(y, self.metric_probabilities(P))
        figures["brier"] = brier_score(y, self.metric_probabilities(P))
        figures["ece"] = expected_calibration_error(*self.calibration_view(y, P), cfg["n_bins"], cfg["binning"])
        loss = self.decision_loss(y, decision, cost_matrix)
        base = self.decision_loss(y, np.full(y.size, no_skill), cost_matrix)
        return figures | {"decision_loss": loss, "no_skill_decision_loss": base, "decision_gain": base - loss}

    def scorer_input(self, scorer, P: np.ndarray | None, decision: np.ndarray) -> np.ndarray:
        """What the search's scorer reads of the deployed outputs: the decisions, or the probabilities it takes."""
        if scorer.response == "label":
            return decision
        assert P is not None  # a classifier's outputs always hold its probabilities
        return P[:, 1] if scorer.response == "score" else self.metric_probabilities(P)

    def baseline_scores(self, y_train: np.ndarray, y: np.ndarray) -> dict:
        """The no-skill baseline's test scores: the training rows' class frequencies for every row (the majority
        class decided), with the metrics of the model beside it."""
        from mllib.baseline import PriorClassifier
        from mllib.metrics import brier_score, log_loss

        P = PriorClassifier().fit(np.zeros((y_train.size, 1)), y_train).predict_proba(np.zeros((y.size, 1)))
        scores = self.scores(y, P, np.argmax(P, axis=1))
        return {
            "model": "class prior of the training rows",
            **{k: scores[k] for k in self.baseline_metrics},
            "log_loss": log_loss(y, self.metric_probabilities(P)),
            "brier": brier_score(y, self.metric_probabilities(P)),
        }


class Binary(Classification, kind="binary"):
    """Two classes: p(positive) is the model's output; calibration is judged on it, curves drawn for it."""

    headline_metric, headline_label = "roc_auc", "ROC AUC"
    test_metrics = (*Classification.test_metrics, "roc_auc", "average_precision", "precision", "recall", "f1")
    test_record = BinaryEvaluation
    calibration_record = ClassificationCalibration
    fairness_record = BinaryFairness
    baseline_metrics = ("roc_auc", "average_precision", "accuracy", "precision", "recall", "f1")
    ranking_metric = "roc_auc"  # what a calibration map may change of the model's ranking
    per_class = ""
    explained = {  # what explanations add up to: a linear or tree model's score, the chain's probability, a network's
        "score": "decision score (log-odds)",
        "probability": "probability of the deployed predictor",
        "relevance": "network output score (logit)",
    }

    def explained_outputs(self) -> list[str]:
        """The outputs partial dependence draws: the positive class's probability."""
        return self.label_names()[1:]

    def output_name(self) -> str:
        """What the deployed predictor gives for a row (partial-dependence axes)."""
        return f"p({self.column} = {self.classes[1]}), deployed predictor"

    @staticmethod
    def check_fits(observed, inferred: type[Target]) -> None:
        """data.task binary needs exactly two values."""
        if len(observed.distinct) != 2:
            raise observed.forced("binary", f"has {observed.found}")

    @classmethod
    def from_values(cls, observed, positive, reason: str) -> Target:
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
        return Target("binary", observed.column, [to_python(negative), to_python(matches[0])], reason)

    def metric_probabilities(self, P: np.ndarray) -> np.ndarray:
        """What Brier score and log loss take: the positive class's column."""
        return P[:, 1]

    def calibrator(self, calibrator, native_multiclass: bool):
        return calibrator

    @staticmethod
    def calibration_view(y: np.ndarray, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(outcome, probability) whose calibration stands for P's: (y, p(positive))."""
        return y, P[:, 1]

    @staticmethod
    def calibration_detail(y: np.ndarray, P: np.ndarray, cfg: dict) -> dict:
        """Murphy's Brier decomposition (equal-width bins, so reliability - resolution + uncertainty + within_bin add
        up to the Brier score exactly)."""
        from mllib.metrics import brier_decomposition

        terms = brier_decomposition(y, P[:, 1], n_bins=cfg["n_bins"])
        return {
            "brier_decomposition": {k: terms[k] for k in ("reliability", "resolution", "uncertainty", "within_bin")}
        }

    @staticmethod
    def plain_decisions(P: np.ndarray, threshold: float) -> np.ndarray:
        """The rule without costs: p(positive) >= decision.threshold."""
        return (P[:, 1] >= threshold).astype(np.int64)

    @staticmethod
    def curve_classes(P: np.ndarray) -> list[int]:
        """The classes whose ROC and PR curves are drawn: the positive one."""
        return [1]

    @staticmethod
    def ranking_score(y: np.ndarray, P: np.ndarray) -> float:
        from mllib.metrics import roc_auc_score

        return roc_auc_score(y, P[:, 1])

    @staticmethod
    def ranking_interval(y: np.ndarray, P: np.ndarray, level: float) -> list[float]:
        """The ROC AUC's Hanley-McNeil score interval (mllib.metrics.auc_score_interval): wide when few rows
        separate perfectly, where a bootstrap has no spread."""
        from mllib.metrics import auc_score_interval, roc_auc_score

        return auc_score_interval(roc_auc_score(y, P[:, 1]), int(np.sum(y == 1)), int(np.sum(y == 0)), level)

    def scores(self, y: np.ndarray, P: np.ndarray, decision: np.ndarray) -> dict:
        """The test scores of p(positive) and the decisions, with the full metric table and the confusion counts."""
        from mllib.metrics import average_precision_score, binary_metrics, roc_auc_score

        table = binary_metrics(y, decision)
        return {
            "roc_auc": roc_auc_score(y, P[:, 1]),
            "average_precision": average_precision_score(y, P[:, 1]),
            **{k: table[k] for k in ("accuracy", "precision", "recall", "specificity", "f1")},
            "confusion": {k: table[k] for k in ("tp", "fp", "fn", "tn")},
            "table": table,
        }


class Multiclass(Classification, kind="multiclass"):
    """K > 2 classes: calibration is judged on the top label (Guo et al. 2017) with the classwise ECE beside it,
    curves drawn for each class against the rest."""

    headline_metric, headline_label = "roc_auc_ovr", "macro one-vs-rest ROC AUC"
    test_metrics = (*Classification.test_metrics, "roc_auc_ovr", "balanced_accuracy", "f1_macro")
    test_record = MulticlassEvaluation
    calibration_record = ClassificationCalibration
    fairness_record = MulticlassFairness
    baseline_metrics = ("accuracy", "roc_auc_ovr", "balanced_accuracy", "f1_macro")
    ranking_metric = "roc_auc_ovr"
    per_class = ", per class"
    explained = {
        "score": "decision score of each class (logit)",
        "probability": "probability of the deployed predictor",
        "relevance": "network output score (logit) of each row's most probable class",
    }

    def explained_outputs(self) -> list[str]:
        """Every class's probability."""
        return self.label_names()

    def output_name(self) -> str:
        return f"p({self.column} = class), deployed predictor (per class, last axis)"

    @staticmethod
    def check_fits(observed, inferred: type[Target]) -> None:
        """data.task multiclass needs three values or more, and not a quantity of non-integer numbers."""
        if len(observed.distinct) < 3:
            raise observed.forced("multiclass", f"has only {observed.found}", "use binary, or ")
        if inferred is Regression and observed.numeric and not all(float(v).is_integer() for v in observed.distinct):
            raise observed.forced(
                "multiclass", f"holds non-integer numbers ({observed.found}), a quantity rather than classes"
            )

    @classmethod
    def from_values(cls, observed, positive, reason: str) -> Target:
        """Classes in sorted order; data.positive_label has no meaning here."""
        observed.refuse_positive_label(positive, f"multiclass ({observed.found})")
        return Target("multiclass", observed.column, [to_python(v) for v in observed.distinct], reason)

    def metric_probabilities(self, P: np.ndarray) -> np.ndarray:
        return P

    def calibrator(self, calibrator, native_multiclass: bool):
        """A binary map calibrates each class against the rest; a map for K classes is used as it is."""
        from mllib.calibration import OneVsRestCalibration

        return calibrator if native_multiclass else OneVsRestCalibration(calibrator)

    @staticmethod
    def calibration_view(y: np.ndarray, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(whether the top label is right, the top probability)."""
        return (np.argmax(P, axis=1) == y).astype(np.int64), P.max(axis=1)

    @staticmethod
    def calibration_detail(y: np.ndarray, P: np.ndarray, cfg: dict) -> dict:
        """The classwise ECE: the mean over classes of the ECE of p_k against y = k."""
        from mllib.calibration import classwise_ece

        return {
            "ece_of": "top label",
            "classwise_ece": classwise_ece(y, P, n_bins=cfg["n_bins"], strategy=cfg["binning"])["mean"],
        }

    @staticmethod
    def plain_decisions(P: np.ndarray, threshold: float) -> np.ndarray:
        """The rule without costs: the largest probability."""
        return np.argmax(P, axis=1)

    @staticmethod
    def curve_classes(P: np.ndarray) -> range:
        """Each class against the rest."""
        return range(P.shape[1])

    @staticmethod
    def ranking_score(y: np.ndarray, P: np.ndarray) -> float:
        from mllib.metrics import roc_auc_ovr

        return roc_auc_ovr(y, P)

    @staticmethod
    def ranking_interval(y: np.ndarray, P: np.ndarray, level: float) -> list[float]:
        """The mean over the classes present of each one-vs-rest AUC's Hanley-McNeil score interval ends (as if the
        classes' errors moved together: conservative)."""
        from mllib.metrics import auc_score_interval, one_vs_rest_auc

        auc = one_vs_rest_auc(y, P)
        ends = [
            auc_score_interval(auc[k], int(np.sum(y == k)), int(np.sum(y != k)), level)
            for k in range(P.shape[1])
            if not np.isnan(auc[k])
        ]
        return np.mean(ends, axis=0).tolist()

    def scores(self, y: np.ndarray, P: np.ndarray, decision: np.ndarray) -> dict:
        """Accuracy, balanced accuracy, macro averages, per class one against the rest (precision, recall, F1, ROC
        AUC, average precision), top-k accuracy and the confusion matrix."""
        from mllib.metrics import (
            average_precision_score,
            multiclass_report,
            one_vs_rest_auc,
            roc_auc_ovr,
            top_k_accuracy,
        )

        names, K = self.label_names(), P.shape[1]
        report = multiclass_report(y, decision, labels=np.arange(K))
        auc = one_vs_rest_auc(y, P)
        ap = [
            average_precision_score((y == k).astype(np.int64), P[:, k]) if (y == k).any() else float("nan")
            for k in range(K)
        ]
        per_class = {
            name: {
                "precision": report["per_class"]["precision"][k],
                "recall": report["per_class"]["recall"][k],
                "f1": report["per_class"]["f_beta"][k],
                "support": int(report["per_class"]["support"][k]),
                "roc_auc_ovr": auc[k],
                "average_precision": ap[k],
            }
            for k, name in enumerate(names)
        }
        return {
            "roc_auc_ovr": roc_auc_ovr(y, P),
            "accuracy": report["accuracy"],
            "balanced_accuracy": report["balanced_accuracy"],
            "f1_macro": report["averages"]["macro"]["f1"],
            "precision_macro": report["averages"]["macro"]["precision"],
            "recall_macro": report["averages"]["macro"]["recall"],
            "averages": report["averages"],
            "per_class": per_class,
            "top_k_accuracy": {str(k): top_k_accuracy(y, P, k) for k in range(1, K)},
            "confusion": {
                "labels": names,
                "matrix": report["confusion"].tolist(),
                "orientation": "rows = true class, columns = decided class",
            },
        }


KINDS = Target.kinds  # {"binary": Binary, "multiclass": Multiclass, "regression": Regression}
