"""Stable names for every mllib estimator: params.yaml selects by these names, mllib.io loads only these.

The registry is a table of names to import paths, resolved on use: checking a name (`name in CLASSIFIERS`,
`sorted(CLASSIFIERS)`, `kind_of(name)`) imports no family, and `CLASSIFIERS[name]` imports only the module that
defines that class. It imports nothing from mllib itself, so any family (bagging, stacking) can use it without
an import cycle, and a pipeline stage that only validates names pays for no algorithm it does not run.

One family per kind. A plain family name (decision_tree, random_forest, knn, ...) is the classifier; regressors
carry a `_regressor` suffix where a classifier shares the family (docs/reference/mllib/index.md lists them).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module
from typing import Any


class Family(Mapping):
    """{registry name: class} whose classes are imported on first access ("module:Class" paths)."""

    def __init__(self, kind: str, paths: dict[str, str]):
        self.kind = kind
        self._paths = dict(paths)

    def __getitem__(self, name: str) -> type:
        module, _, attribute = self._paths[name].partition(":")
        return getattr(import_module(module), attribute)

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def __contains__(self, name) -> bool:
        return name in self._paths

    def path(self, name: str) -> str:
        return self._paths[name]

    def __repr__(self) -> str:
        return f"Family({self.kind!r}, {sorted(self._paths)})"


CLASSIFIERS = Family(
    "classifier",
    {
        # linear, Bayes, discriminant and neighbour classifiers
        "gaussian_bayes": "mllib.bayes.gaussian:GaussianBayesClassifier",
        "naive_bayes": "mllib.bayes.naive:NaiveBayes",
        "fisher_lda": "mllib.discriminant.fisher:FisherDiscriminant",
        "nearest_centroid": "mllib.discriminant.centroid:NearestCentroid",
        "perceptron": "mllib.linear.perceptron:Perceptron",
        "logistic_regression": "mllib.linear.logistic:LogisticRegression",
        "linear_svm": "mllib.linear.svm:LinearSVM",
        "knn": "mllib.neighbors.knn:KNeighborsClassifier",
        # trees and ensembles
        "decision_tree": "mllib.tree.cart:DecisionTreeClassifier",
        "random_forest": "mllib.ensemble.forest:RandomForestClassifier",
        "bagging": "mllib.ensemble.bagging:BaggingClassifier",
        "adaboost": "mllib.ensemble.adaboost:AdaBoostClassifier",
        "gradient_boosting": "mllib.gradient_boosting.boosting:GradientBoostingClassifier",
        "explainable_boosting": "mllib.additive.explainable_boosting:ExplainableBoostingClassifier",
        "stacking": "mllib.ensemble.stacking:StackingClassifier",
        # kernel machines and networks
        "svm": "mllib.svm.svc:SVC",
        "gp_classifier": "mllib.gaussian_process.classifier:GaussianProcessClassifier",
        "mlp": "mllib.neural.mlp:MLPClassifier",
    },
)

REGRESSORS = Family(
    "regressor",
    {
        "linear_regression": "mllib.regression.least_squares:LinearRegression",
        "ridge": "mllib.regression.least_squares:Ridge",
        "lasso": "mllib.regression.lasso:Lasso",
        "bayesian_linear_regression": "mllib.regression.bayesian:BayesianLinearRegression",
        "pls": "mllib.regression.pls:PLSRegression",  # also a transformer (latent scores), registered once, as a
        # regressor
        "knn_regressor": "mllib.neighbors.knn:KNeighborsRegressor",
        "decision_tree_regressor": "mllib.tree.cart:DecisionTreeRegressor",
        "random_forest_regressor": "mllib.ensemble.forest:RandomForestRegressor",
        "bagging_regressor": "mllib.ensemble.bagging:BaggingRegressor",
        "gradient_boosting_regressor": "mllib.gradient_boosting.boosting:GradientBoostingRegressor",
        "explainable_boosting_regressor": "mllib.additive.explainable_boosting:ExplainableBoostingRegressor",
        "stacking_regressor": "mllib.ensemble.stacking:StackingRegressor",
        "kernel_ridge": "mllib.kernels.kernel_ridge:KernelRidge",
        "gp_regressor": "mllib.gaussian_process.regressor:GaussianProcessRegressor",
        "mlp_regressor": "mllib.neural.mlp:MLPRegressor",
    },
)

TRANSFORMERS = Family(
    "transformer",
    {
        "simple_imputer": "mllib.preprocessing.imputers:SimpleImputer",
        "group_imputer": "mllib.preprocessing.imputers:GroupImputer",
        "knn_imputer": "mllib.preprocessing.knn_imputer:KNNImputer",
        "one_hot_encoder": "mllib.preprocessing.encoders:OneHotEncoder",
        "ordinal_encoder": "mllib.preprocessing.encoders:OrdinalEncoder",
        "standard_scaler": "mllib.preprocessing.scalers:StandardScaler",
        "min_max_scaler": "mllib.preprocessing.scalers:MinMaxScaler",
        "robust_scaler": "mllib.preprocessing.scalers:RobustScaler",
        "time_feature": "mllib.preprocessing.time_features:TimeFeature",
        "cholesky_whitening": "mllib.preprocessing.whitening:CholeskyWhitening",
        "pca": "mllib.decomposition.pca:PCA",
        "polynomial_features": "mllib.preprocessing.feature_maps:PolynomialFeatures",
        "rbf_features": "mllib.preprocessing.feature_maps:RBFFeatures",
        "piecewise_features": "mllib.preprocessing.feature_maps:PiecewiseFeatures",
        "lda": "mllib.discriminant.fisher:LinearDiscriminantProjection",
        "mds": "mllib.manifold.mds:ClassicalMDS",
        "kernel_pca": "mllib.kernels.kernel_pca:KernelPCA",
        "nystroem": "mllib.kernels.nystroem:Nystroem",
        "variance_threshold": "mllib.feature_selection.variance:VarianceThreshold",
        "sequential_selection": "mllib.feature_selection.sequential:SequentialSelector",
        "permutation_selection": "mllib.feature_selection.permutation:PermutationSelector",
    },
)

CLUSTERERS = Family(
    "clusterer",
    {
        "kmeans": "mllib.cluster.kmeans:KMeans",
        "gaussian_mixture": "mllib.cluster.gaussian_mixture:GaussianMixture",
    },
)

# calibration maps (score -> probability); for more than two classes the pipeline wraps the binary ones
# (platt, beta, isotonic, histogram_binning) one-vs-rest, while temperature and none take (n, K) scores directly
CALIBRATORS = Family(
    "calibrator",
    {
        "platt": "mllib.calibration.platt:PlattScaling",
        "beta": "mllib.calibration.beta:BetaCalibration",
        "isotonic": "mllib.calibration.isotonic:IsotonicCalibration",
        "temperature": "mllib.calibration.temperature:TemperatureScaling",
        "histogram_binning": "mllib.calibration.histogram:HistogramBinning",
        "none": "mllib.calibration.identity:NoCalibration",
    },
)

# Composites need constructor arguments (their parts), so they are loadable but not selectable by name.
COMPOSITES = Family(
    "composite",
    {
        "pipeline": "mllib.base.compose:Pipeline",
        "column_transformer": "mllib.base.compose:ColumnTransformer",
        "one_vs_rest_calibration": "mllib.calibration.one_vs_rest:OneVsRestCalibration",
        "deployed_predictor": "mllib.deploy.predictor:DeployedPredictor",
        "split_conformal_classifier": "mllib.conformal.classification:SplitConformalClassifier",
        "deployed_regressor": "mllib.deploy.regressor:DeployedRegressor",
        "standardized_target": "mllib.regression.target:StandardizedTarget",
        "log_target": "mllib.regression.target:LogTarget",
        "split_conformal_regressor": "mllib.conformal.regression:SplitConformalRegressor",
        "cv_plus_regressor": "mllib.conformal.regression:CVPlusRegressor",
        "residual_scale": "mllib.conformal.normalized:ResidualScale",
    },
)

# cross-validation splitters (split.strategy); the k-fold ones have a repeated form (split.n_repeats > 1)
_SPLITTERS = "mllib.model_selection.splitters"
SPLITTERS = Family(
    "splitter",
    {
        "kfold": f"{_SPLITTERS}:KFold",
        "stratified": f"{_SPLITTERS}:StratifiedKFold",
        "group": f"{_SPLITTERS}:GroupKFold",
        "stratified_group": "mllib.model_selection.stratified_group:StratifiedGroupKFold",
        "leave_one_out": f"{_SPLITTERS}:LeaveOneOut",
        "leave_one_group_out": f"{_SPLITTERS}:LeaveOneGroupOut",
        "shuffle": f"{_SPLITTERS}:ShuffleSplit",
        "group_shuffle": f"{_SPLITTERS}:GroupShuffleSplit",
        "bootstrap": f"{_SPLITTERS}:Bootstrap",
        "group_bootstrap": f"{_SPLITTERS}:GroupBootstrap",
        "forward_chaining": "mllib.model_selection.time_order:ForwardChainingSplit",
    },
)
REPEATED_SPLITTERS = Family(
    "repeated splitter",
    {
        "kfold": f"{_SPLITTERS}:RepeatedKFold",
        "stratified": f"{_SPLITTERS}:RepeatedStratifiedKFold",
        "group": f"{_SPLITTERS}:RepeatedGroupKFold",
        "stratified_group": "mllib.model_selection.stratified_group:RepeatedStratifiedGroupKFold",
    },
)
GROUPED_SPLITTERS = ("group", "stratified_group", "leave_one_group_out", "group_shuffle", "group_bootstrap")
STRATIFIED_SPLITTERS = ("stratified", "stratified_group")
TIME_SPLITTERS = ("forward_chaining",)  # order rows by data.time; with data.group they keep each group on one side

# the roles of a feature transformer and the registered transformers each accepts ("none": the step is skipped)
FEATURE_STEPS = {
    "numeric_imputer": ("simple_imputer", "knn_imputer", "group_imputer"),
    "expansion": ("none", "polynomial_features", "rbf_features", "piecewise_features"),
    "scaler": ("none", "standard_scaler", "min_max_scaler", "robust_scaler"),
    "categorical_imputer": ("simple_imputer", "group_imputer"),
    "encoder": ("one_hot_encoder", "ordinal_encoder"),
    "projection": ("none", "pca", "lda", "pls", "cholesky_whitening", "kernel_pca", "nystroem"),
    "selection": ("none", "variance_threshold", "sequential_selection", "permutation_selection"),
}

# the fairness criteria per-group thresholds can equalise (mllib.fairness uses this tuple)
MITIGATION_CRITERIA = ("demographic_parity", "equal_opportunity", "equalized_odds")

FAMILIES = (CLASSIFIERS, REGRESSORS, TRANSFORMERS, CLUSTERERS, CALIBRATORS)

# Every registered class can be built with no arguments.
REGISTRY = Family("estimator", {n: f.path(n) for f in FAMILIES for n in f})


def loadable() -> Family:
    return Family(
        "loadable", {**{n: REGISTRY.path(n) for n in REGISTRY}, **{n: COMPOSITES.path(n) for n in COMPOSITES}}
    )


def kind_of(name: str) -> str:
    """ "classifier", "regressor", "transformer", "clusterer", "calibrator" or "composite" (imports nothing)."""
    for family in (*FAMILIES, COMPOSITES):
        if name in family:
            return family.kind
    raise KeyError(f"unknown estimator {name!r}; registered names: {sorted(REGISTRY)}")


def name_of(cls: type) -> str:
    """The registry name of a class (by its defining module and name, so no other family is imported)."""
    path = f"{cls.__module__}:{cls.__qualname__}"
    table = loadable()
    for name in table:
        if table.path(name) == path:
            return name
    raise KeyError(f"{cls.__name__} is not registered in mllib.registry; only registered estimators can be saved")


def get(name: str) -> type[Any]:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown estimator {name!r}; registered names: {sorted(REGISTRY)}") from None
