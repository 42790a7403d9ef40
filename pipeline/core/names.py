"""The names params.yaml accepts for the split strategies, the feature steps, the scorers and the mitigation
criteria: plain lists, so validating params.yaml imports no algorithm (pipeline/core/build.py maps them to mllib
classes; tests/pipeline/test_config_params.py checks the lists against mllib)."""

KFOLD_STRATEGIES = ["kfold", "stratified", "group", "stratified_group"]  # honour split.n_repeats
LEAVE_OUT_STRATEGIES = ["leave_one_out", "leave_one_group_out"]
SHUFFLE_STRATEGIES = ["shuffle", "group_shuffle"]
BOOTSTRAP_STRATEGIES = ["bootstrap", "group_bootstrap"]
STRATEGIES = [*KFOLD_STRATEGIES, *LEAVE_OUT_STRATEGIES, *SHUFFLE_STRATEGIES, *BOOTSTRAP_STRATEGIES]
GROUPED_STRATEGIES = ["group", "stratified_group", "leave_one_group_out", "group_shuffle", "group_bootstrap"]
STRATIFIED_STRATEGIES = ["stratified", "stratified_group"]


# features.<step>.name: the registry names each step accepts ("none" skips an optional step)
FEATURE_STEPS = {
    "numeric_imputer": ["simple_imputer", "knn_imputer", "group_imputer"],
    "expansion": ["none", "polynomial_features", "rbf_features", "piecewise_features"],
    "scaler": ["none", "standard_scaler", "min_max_scaler", "robust_scaler"],
    "categorical_imputer": ["simple_imputer", "group_imputer"],
    "encoder": ["one_hot_encoder", "ordinal_encoder"],
    "projection": ["none", "pca", "lda", "pls", "cholesky_whitening", "kernel_pca", "nystroem"],
    "selection": ["none", "variance_threshold", "sequential_selection", "permutation_selection"],
}

# model.name auto: the default model of each task (searched over its own search.grid entry)
DEFAULT_MODEL = {"binary": "logistic_regression", "multiclass": "logistic_regression", "regression": "ridge"}

# search.scoring / explain.scoring (mllib.metrics.SCORERS and REGRESSION_SCORERS)
SCORERS = [
    "roc_auc",
    "roc_auc_ovr",
    "average_precision",
    "accuracy",
    "balanced_accuracy",
    "f1",
    "f1_macro",
    "precision",
    "recall",
    "log_loss",
    "brier",
    "r2",
    "rmse",
    "mae",
    "mean_squared_error",
]
# fairness.mitigation.criterion (mllib.fairness.MITIGATION_CRITERIA)
MITIGATION_CRITERIA = ["demographic_parity", "equal_opportunity", "equalized_odds"]
