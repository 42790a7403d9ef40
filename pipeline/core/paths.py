"""Where each stage reads and writes. dvc.yaml declares the same paths (tests/pipeline/test_stage_contract.py checks
that each stage writes exactly those)."""

from pathlib import Path

ROW_ID = "_row_id"  # reserved column: the row's position in the raw file, carried through every stage

VALIDATED = Path("data/interim/validated.parquet")
QUARANTINE = Path("data/interim/quarantine.parquet")
VALIDATION_REPORT = Path("reports/validation.json")

CLEAN = Path("data/interim/clean.parquet")
CLEANING_REPORT = Path("reports/cleaning.json")

TRAIN = Path("data/processed/train.parquet")
TEST = Path("data/processed/test.parquet")
FOLDS = Path("data/processed/folds.parquet")
TARGET = Path("data/processed/target.json")  # task and classes in code order (pipeline/core/task.py)
SPLIT_REPORT = Path("reports/split.json")

FEATURES_DIR = Path("data/features")
FEATURE_TRANSFORMER = Path("models/features")  # .json + .npz (mllib.io)
FEATURES_REPORT = Path("reports/features.json")

MODEL = Path("models/model")
# one artifact per split (fold_<k>.json + .npz): the features and the model fitted without split k's validation rows
# (the CV+ intervals of a regression target combine them)
FOLD_FEATURES = Path("models/fold_features")
FOLD_MODELS = Path("models/fold_models")
OOF_PREDICTIONS = Path("data/predictions/oof.parquet")
SEARCH_REPORT = Path("reports/search.json")
TRAIN_METRICS = Path("reports/metrics/train.json")
VALIDATION_CURVE = Path("reports/plots/validation_curve.json")
ASSESSMENT = Path("reports/assessment.json")  # leakage estimate and learning curve (pipeline/steps/assessment.py)
LEARNING_CURVE = Path("reports/plots/learning_curve.json")
SWEEP_CURVE = Path("reports/plots/hyperparameter_curve.json")  # assess: one hyperparameter swept (validation curve)

PREDICTOR = Path("models/predictor")  # .json + .npz: features -> model -> calibrator -> decision rule (mllib.deploy)
OOF_CALIBRATED = Path("data/predictions/oof_calibrated.parquet")  # cross-fitted probabilities of the scored rows
CALIBRATION_METRICS = Path("reports/metrics/calibration.json")
RELIABILITY_OOF = Path("reports/plots/reliability_oof.json")

TEST_PREDICTIONS = Path("data/predictions/test.parquet")
TEST_METRICS = Path("reports/metrics/test.json")
ROC_CURVE = Path("reports/plots/roc.json")
PR_CURVE = Path("reports/plots/pr.json")
CONFUSION = Path("reports/plots/confusion.csv")
RELIABILITY_TEST = Path("reports/plots/reliability_test.json")
RISK_COVERAGE = Path("reports/plots/risk_coverage.json")
RESIDUALS = Path("reports/plots/residuals.json")  # regression: actual vs predicted per test row

FAIRNESS_METRICS = Path("reports/metrics/fairness.json")
HEADLINE = Path(
    "reports/metrics.json"
)  # the DVC metrics file: headline figures of every stage (pipeline/reporting/headline.py)
FAIRNESS_PLOT = Path("reports/plots/fairness.csv")

IMPORTANCE = Path("reports/importance.json")
IMPORTANCE_PLOT = Path("reports/plots/importance.csv")
ATTRIBUTIONS = Path("reports/attributions.json")
PARTIAL_DEPENDENCE = Path("reports/partial_dependence.json")
PDP_PLOT = Path("reports/plots/partial_dependence.csv")
SHAPLEY_PLOT = Path("reports/plots/shapley.csv")

REPORT_HTML = Path("reports/report.html")

MLFLOW_RUN = Path("reports/mlflow_run.json")
MONITOR_REPORT = Path("reports/monitor.json")
MONITOR_PAGE = Path("reports/monitor.html")


# The features stage's matrices: float64 .npy files (memory-mappable, one split read at a time), rows in the order of
# TRAIN / TEST, column names in FEATURE_NAMES
def fold_features(fold: int) -> Path:
    """Every training row transformed by the features fitted on split `fold`'s training part."""
    return FEATURES_DIR / f"fold_{fold}.npy"


FINAL_TRAIN_FEATURES = FEATURES_DIR / "train.npy"
FINAL_TEST_FEATURES = FEATURES_DIR / "test.npy"
FEATURE_NAMES = FEATURES_DIR / "columns.json"  # {file name: its column names}
FIGURES_DIR = Path("reports/figures")


# the stage files the report page is built from (and the MLflow run's artifacts): {name: (path, writer)}
REPORT_INPUTS = {
    "validation": (VALIDATION_REPORT, "validate"),
    "cleaning": (CLEANING_REPORT, "clean"),
    "target": (TARGET, "split"),  # its kind picks the page
    "split": (SPLIT_REPORT, "split"),
    "features": (FEATURES_REPORT, "features"),
    "search": (SEARCH_REPORT, "train"),
    "train": (TRAIN_METRICS, "train"),
    "validation_curve": (VALIDATION_CURVE, "train"),
    "assessment": (ASSESSMENT, "assess"),
    "learning_curve": (LEARNING_CURVE, "assess"),
    "hyperparameter_curve": (SWEEP_CURVE, "assess"),
    "calibration": (CALIBRATION_METRICS, "calibrate"),
    "reliability_oof": (RELIABILITY_OOF, "calibrate"),
    "test": (TEST_METRICS, "evaluate"),
    "roc": (ROC_CURVE, "evaluate"),
    "pr": (PR_CURVE, "evaluate"),
    "reliability_test": (RELIABILITY_TEST, "evaluate"),
    "risk_coverage": (RISK_COVERAGE, "evaluate"),
    "residuals": (RESIDUALS, "evaluate"),
    "fairness": (FAIRNESS_METRICS, "fairness"),
    "importance": (IMPORTANCE, "explain"),
    "attributions": (ATTRIBUTIONS, "explain"),
    "partial_dependence": (PARTIAL_DEPENDENCE, "explain"),
}
