"""The stages in the order they run, and the charts of dvc.yaml's `plots` section; what the table answers."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath

from pipeline.core import paths

from .entries import Plot, Stage, _text, mllib_files, stage, uncached, why

INIT = why("pipeline/__init__.py", "the numerical environment (CPU code paths, threads)")
CORE = why("pipeline/core", "config, task kinds, io: every stage imports most of the package")
FROM_ROWS = "the partitioned path writes no matrices: made from the rows by these (pipeline/steps/feature_blocks.py)"
TIME_FEATURE = why("data.time_feature", "the time as a model input (pipeline/core/frames.py)")
DROP = why("data.drop", "a sensitive attribute listed there is audited, never a feature")
# what pipeline/core/frames.py reads to make the feature matrix's rows
FRAME = ("data.group", "data.time", TIME_FEATURE, "data.categorical", DROP)
# the params sections that shape the outputs (their sha256 is the model card's provenance); tracking and compute do not
OUTPUT_SECTIONS = ("seed", "data", "validate", "clean", "split", "features", "model", "search", "assess", "calibration",
                   "decision", "evaluate", "fairness", "explain")  # fmt: skip
SCHEMAS = why("data/schemas", "data.schema's file: another file added to data/raw/ leaves validate as it is")
METRICS_DIR = paths.TRAIN_METRICS.parent
MODELS_DIR = paths.MODEL.parent

STAGES: tuple[Stage, ...] = (
    stage(
        "validate",
        inputs=("${data.path}", SCHEMAS),
        code=(INIT, CORE, "pipeline/steps/validation.py", "mllib/base"),
        params=(
            "data.path",
            "data.target",
            "data.task",
            "data.positive_label",
            "data.group",
            "data.time",
            "data.sensitive",
            "data.drop",
            "data.categorical",
            why("data.schema", "every data key but time_feature, which only the features' stages read"),
            "validate",
            why(
                "compute",
                "a directory of parts on the dask backend: checked part by part (pipeline/core/partitions.py)",
            ),
        ),
        outs=(paths.VALIDATED, paths.QUARANTINE, paths.VALIDATION_REPORT),
    ),
    stage(
        "clean",
        inputs=(paths.VALIDATED, paths.VALIDATION_REPORT),
        code=(INIT, CORE, "pipeline/steps/cleaning.py", "pipeline/steps/partitioned_cleaning.py", "mllib/base"),
        params=(
            "data.drop",
            "data.target",
            "data.group",
            "data.sensitive",
            "data.categorical",
            "clean",
            why("compute", "validate wrote parts: cleaned part by part on the cluster"),
        ),
        outs=(paths.CLEAN, paths.CLEANING_REPORT),
    ),
    stage(
        "split",
        inputs=(paths.CLEAN,),
        code=(INIT, CORE, "pipeline/steps/folds.py", "mllib/model_selection", "mllib/base"),
        params=("seed", "data.target", "data.task", "data.positive_label", "data.group", "data.time", "split"),
        outs=(paths.TRAIN, paths.TEST, paths.FOLDS, paths.TARGET, paths.SPLIT_REPORT),
    ),
    stage(
        "features",
        inputs=(paths.TRAIN, paths.TEST, paths.FOLDS, paths.TARGET),
        code=(
            INIT,
            CORE,
            "pipeline/steps/feature_blocks.py",
            "pipeline/steps/feature_fits.py",
            "pipeline/steps/folds.py",
            "mllib",
        ),
        params=(
            "seed",
            "data.target",
            "data.group",
            "data.time",
            TIME_FEATURE,
            "data.categorical",
            DROP,
            "features",
            why("compute", "the split wrote parts: each split's features fitted on the cluster, no matrix written"),
        ),
        outs=(paths.FEATURES_DIR, *mllib_files(paths.FEATURE_TRANSFORMER), paths.FOLD_FEATURES, paths.FEATURES_REPORT),
    ),
    stage(
        "train",
        inputs=(
            paths.FEATURES_DIR,
            *mllib_files(paths.FEATURE_TRANSFORMER, FROM_ROWS),
            paths.FOLD_FEATURES,
            paths.TRAIN,
            paths.FOLDS,
            paths.TARGET,
        ),
        code=(
            INIT,
            CORE,
            "pipeline/steps/comparison.py",
            "pipeline/steps/feature_blocks.py",
            "pipeline/steps/folds.py",
            "pipeline/steps/target_transform.py",
            "pipeline/steps/training.py",
            "mllib",
        ),
        params=("seed", "data.target", "data.group", "model", "search", "compute"),
        outs=(
            *mllib_files(paths.MODEL),
            paths.FOLD_MODELS,
            paths.OOF_PREDICTIONS,
            paths.SEARCH_REPORT,
            paths.VALIDATION_CURVE,
            paths.TRAIN_METRICS,
        ),
    ),
    stage(
        "assess",
        inputs=(
            paths.FEATURES_DIR,
            why(paths.FOLD_FEATURES, FROM_ROWS),
            paths.TRAIN,
            paths.FOLDS,
            paths.TARGET,
            paths.TRAIN_METRICS,
            paths.SEARCH_REPORT,
            paths.FEATURES_REPORT,
            why(paths.FOLD_MODELS, "nested CV: a split's outer model where its selection repeats train's choice"),
        ),
        code=(
            INIT,
            CORE,
            "pipeline/steps/assessment.py",
            "pipeline/steps/comparison.py",
            "pipeline/steps/nested_cv.py",
            "pipeline/steps/feature_blocks.py",
            "pipeline/steps/folds.py",
            "pipeline/steps/target_transform.py",
            "pipeline/steps/training.py",
            "mllib",
        ),
        params=(
            "seed",
            "data.target",
            *FRAME,
            "split.n_splits",
            why("split.gap", "data.time: nested CV's inner folds chain forward with the gap"),
            "features",
            "model.params",
            why("model.selection", "nested CV around the whole selection (train.json names the models compared)"),
            "search.method",
            "search.grid",
            "search.n_iter",
            "assess",
            why("compute.backend", "where the splits' refits run (worker processes); the results do not depend on it"),
            "compute.n_workers",
        ),
        outs=(paths.ASSESSMENT, paths.LEARNING_CURVE, paths.SWEEP_CURVE),
    ),
    stage(
        "calibrate",
        inputs=(
            why(paths.TRAIN_METRICS, "a regression target's scale and floor"),
            paths.OOF_PREDICTIONS,
            paths.TRAIN,
            paths.TARGET,
            *mllib_files(paths.FEATURE_TRANSFORMER),
            *mllib_files(paths.MODEL),
            paths.FOLD_FEATURES,
            paths.FOLD_MODELS,
        ),
        code=(
            INIT,
            CORE,
            "pipeline/steps/calibration.py",
            "pipeline/steps/evaluation.py",
            "pipeline/steps/regression.py",
            "pipeline/steps/target_transform.py",
            "mllib",
        ),
        params=(
            "data.sensitive",
            why("data.time", "time-ordered folds: each period's map fitted on the earlier periods"),
            "split.strategy",
            "calibration",
            "decision",
        ),
        outs=(*mllib_files(paths.PREDICTOR), paths.OOF_CALIBRATED, paths.RELIABILITY_OOF, paths.CALIBRATION_METRICS),
    ),
    stage(
        "evaluate",
        inputs=(
            paths.TEST,
            paths.TRAIN,
            paths.FEATURES_DIR,
            *mllib_files(paths.FEATURE_TRANSFORMER, FROM_ROWS),
            paths.TARGET,
            *mllib_files(paths.PREDICTOR),
            paths.TRAIN_METRICS,
        ),
        code=(
            INIT,
            CORE,
            "pipeline/steps/comparison.py",
            "pipeline/steps/drift.py",
            "pipeline/steps/evaluation.py",
            "pipeline/steps/evaluation_files.py",
            "pipeline/steps/feature_blocks.py",
            "pipeline/steps/regression.py",
            "pipeline/steps/row_outputs.py",
            "pipeline/steps/target_transform.py",
            "mllib",
            "pipeline/steps/measures.py",
        ),
        params=(
            "data.target",
            *FRAME,
            "data.sensitive",
            "calibration.n_bins",
            "calibration.binning",
            "evaluate",
            "seed",
            "model.params",
            why("monitor.fdr", "the test rows against the training rows (pipeline/steps/drift.py)"),
            "monitor.domain_classifier",
            "monitor.max_rows",
        ),
        outs=(
            paths.TEST_PREDICTIONS,
            paths.ROC_CURVE,
            paths.PR_CURVE,
            paths.CONFUSION,
            paths.RELIABILITY_TEST,
            paths.RISK_COVERAGE,
            paths.RESIDUALS,
            paths.TEST_METRICS,
        ),
    ),
    stage(
        "fairness",
        inputs=(
            paths.TEST,
            paths.TRAIN,
            why(paths.FEATURES_DIR, "the training rows in the deployed features (the reweighed refit)"),
            *mllib_files(paths.FEATURE_TRANSFORMER, FROM_ROWS),
            paths.TARGET,
            paths.TEST_PREDICTIONS,
            paths.OOF_CALIBRATED,
            paths.TRAIN_METRICS,
            *mllib_files(paths.PREDICTOR),
        ),
        code=(INIT, CORE, "pipeline/steps/fairness_audit.py", "pipeline/steps/feature_blocks.py", "mllib"),
        params=(
            "seed",
            "data.target",
            "data.sensitive",
            *FRAME,
            "calibration.n_bins",
            "calibration.binning",
            "fairness",
            why(
                "compute.backend", "the reweighed refit: a thread per worker when local (the same model for any count)"
            ),
            "compute.n_workers",
        ),
        outs=(paths.FAIRNESS_METRICS, paths.FAIRNESS_PLOT),
    ),
    stage(
        "explain",
        inputs=(paths.TEST, paths.TRAIN, paths.TARGET, *mllib_files(paths.PREDICTOR)),
        code=(
            INIT,
            CORE,
            "pipeline/steps/explanations.py",
            "pipeline/steps/feature_blocks.py",
            "pipeline/steps/shape_functions.py",
            "pipeline/steps/shapley_values.py",
            "pipeline/steps/target_transform.py",
            "mllib",
        ),
        params=("seed", "data.target", *FRAME, "explain"),
        outs=(
            paths.IMPORTANCE,
            paths.ATTRIBUTIONS,
            paths.PARTIAL_DEPENDENCE,
            paths.IMPORTANCE_PLOT,
            paths.PDP_PLOT,
            paths.SHAPLEY_PLOT,
        ),
    ),
    stage(
        "report",
        # every file the page is built from
        inputs=tuple(
            why(p, "its kind picks the page") if p == paths.TARGET else p for p, _ in paths.REPORT_INPUTS.values()
        ),
        code=(
            "mllib",
            why("pipeline", "the code's git tree ids are the model card's provenance (pipeline/core/provenance.py)"),
        ),
        params=(*OUTPUT_SECTIONS, "tracking.promotion"),
        params_why="every section that shapes the outputs: their sha256 is the model card's provenance",
        outs=(paths.REPORT_HTML, paths.FIGURES_DIR),
        metrics=(uncached(paths.HEADLINE),),
    ),
    stage(
        "track",
        inputs=(
            paths.REPORT_HTML,
            paths.FIGURES_DIR,
            METRICS_DIR,
            paths.SEARCH_REPORT,
            why(paths.FEATURES_REPORT, "the inputs of the version's contract"),
            why(paths.TARGET, "its target"),
            paths.IMPORTANCE,
            paths.ATTRIBUTIONS,
            paths.PARTIAL_DEPENDENCE,
            paths.TRAIN,
            paths.TEST,
            paths.TEST_PREDICTIONS,
            MODELS_DIR,
            paths.HEADLINE,
        ),
        code=(
            why("params.yaml", "logged whole as the run's artifact, its bytes not only its values"),
            INIT,
            CORE,
            "pipeline/reporting/headline.py",
            "pipeline/reporting/page.py",
            why("pipeline/reporting/verdict.py", "the summary that ends its output"),
            "pipeline/serving/contract.py",
            "pipeline/tracking/__init__.py",
            "pipeline/tracking/naming.py",
            "pipeline/tracking/promotion.py",
            "pipeline/tracking/registry.py",
            "pipeline/tracking/runs.py",
            "pipeline/tracking/store.py",
            "pipeline/serving",
            why("pipeline/steps/shapley_values.py", "the served model's reasons compute as the explain stage does"),
        ),
        outs=(uncached(paths.MLFLOW_RUN),),
        tracking=True,
    ),
    stage(
        "monitor",
        why="off by default: with monitor.batch set (or `python -m pipeline.stages.monitor FILE`), a new batch checked "
        "against the model track registered; it fails (exit 1) when a column drifted or a promise broke. The batch "
        "file is named by the param, not hashed: after replacing a file at the same path, `dvc repro -f monitor`",
        inputs=(
            why(paths.MLFLOW_RUN, "the model version the check is tagged with"),
            paths.TRAIN,
            paths.TARGET,
            paths.TEST_PREDICTIONS,
            paths.TEST_METRICS,
            paths.FEATURES_REPORT,
            paths.TRAIN_METRICS,
            MODELS_DIR,
        ),
        code=(
            INIT,
            CORE,
            why("pipeline/reporting/headline.py", "the tracking package's"),
            "pipeline/reporting/monitor_page.py",
            "pipeline/reporting/page.py",
            why("pipeline/reporting/verdict.py", "tracking's"),
            "pipeline/reporting/templates",
            "pipeline/serving",
            "pipeline/steps",
            "pipeline/tracking",
            "mllib",
        ),
        params=(
            "seed",
            "data",
            "validate",
            "features.encoder",
            why("features.categorical_imputer", "a missing label's level (pipeline/serving/contract.py)"),
            "monitor",
            "tracking",
            "calibration.n_bins",
            "calibration.binning",
            "evaluate",
        ),
        outs=(paths.MONITOR_REPORT, paths.MONITOR_PAGE),
        outs_why="in DVC's cache as every compute output is, so a failed run leaves the last good record restorable",
        tracking=True,
    ),
)

CLASS_CURVE = ".dvc/plots/class_curve.json"
RELIABILITY = ".dvc/plots/reliability.json"
INTEGER_CURVE = ".dvc/plots/integer_curve.json"
SPLIT_SCORE = "mean score over the splits (search.scoring)"

PLOTS: tuple[Plot, ...] = (
    Plot("ROC curve (test, per class against the rest)", "fpr", {paths.ROC_CURVE: "tpr"}, CLASS_CURVE,
         "false positive rate", "true positive rate"),
    Plot("Precision-recall curve (test, per class against the rest)", "recall", {paths.PR_CURVE: "precision"},
         CLASS_CURVE, "recall", "precision"),
    Plot(paths.CONFUSION, "predicted", "actual", ".dvc/plots/confusion_counts.json", "predicted class", "actual class",
         "Confusion matrix (test)"),
    Plot("Reliability (out-of-fold, cross-fitted)", "mean_predicted", {paths.RELIABILITY_OOF: "fraction_positive"},
         RELIABILITY),
    Plot("Reliability (test)", "mean_predicted", {paths.RELIABILITY_TEST: "fraction_positive"}, RELIABILITY),
    Plot("Learning curve (grouped splits, train vs validation)", "rows", {paths.LEARNING_CURVE: ["train", "valid"]},
         INTEGER_CURVE, "training rows", SPLIT_SCORE),
    Plot("Validation curve of one hyperparameter (assess.validation_curve, grouped splits)", "value",
         {paths.SWEEP_CURVE: ["train", "valid"]}, ".dvc/plots/hyperparameter_curve.json",
         "hyperparameter value (log scale)", SPLIT_SCORE),
    Plot("Search candidates (train vs validation)", "candidate", {paths.VALIDATION_CURVE: ["train", "valid"]},
         INTEGER_CURVE, "candidate (its index in reports/search.json; its params in the tooltip)", SPLIT_SCORE),
    Plot("Permutation importance (test)", "importance", {paths.IMPORTANCE_PLOT: "feature"}, "bar_horizontal_sorted",
         "drop in the test score (explain.scoring) when the feature's values are permuted", "feature"),
    Plot("Mean |Shapley value| (test sample)", "mean_abs_shapley", {paths.SHAPLEY_PLOT: "feature"},
         "bar_horizontal_sorted", "mean |Shapley value| (units of the explained output, reports/attributions.json)",
         "feature"),
    Plot("Partial dependence (test sample)", "value", {paths.PDP_PLOT: "partial_dependence"},
         ".dvc/plots/partial_dependence.json"),
    Plot("Fairness rates by group (test)", "value", {paths.FAIRNESS_PLOT: "group"}, ".dvc/plots/group_rates.json",
         y_label="group"),
    Plot("Predicted vs actual (test, regression)", "actual", {paths.RESIDUALS: "predicted"}, "scatter",
         "actual target value", "predicted value"),
    Plot("Risk-coverage (test, reject option)", "coverage", {paths.RISK_COVERAGE: "risk"},
         ".dvc/plots/risk_coverage.json"),
)  # fmt: skip


# ---------------------------------------------------------------------------------------------------------------------
# Questions the table answers


def by_name(stages: Sequence[Stage] = STAGES) -> dict[str, Stage]:
    return {s.name: s for s in stages}


def compute_stages(stages: Sequence[Stage] = STAGES) -> list[str]:
    """The stages that compute (all but the MLflow ones), in order: their outputs are byte-reproducible."""
    return [s.name for s in stages if not s.tracking]


def writer_of(path: str | PurePath, stages: Sequence[Stage] = STAGES) -> str:
    """The stage that writes `path` (a declared output, or a file inside a declared directory)."""
    target = _text(path)
    for s in stages:
        if any(target == out or target.startswith(out + "/") for out in s.output_paths()):
            return s.name
    raise KeyError(f"no stage writes {target}")
