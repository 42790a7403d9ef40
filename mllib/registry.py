"""Stable names for every mllib estimator: params.yaml selects by these names, mllib.io loads only these.

One section per family. A plain family name (decision_tree, random_forest, knn, ...) is the classifier;
regressors carry a `_regressor` suffix where a classifier shares the family (ALGORITHMS.md).
"""
from __future__ import annotations

from .base import ColumnTransformer, Pipeline

# ---- preprocessing and decomposition (features stage) ----
from .decomposition import PCA
from .preprocessing import (
    CholeskyWhitening,
    GroupImputer,
    KNNImputer,
    MinMaxScaler,
    OneHotEncoder,
    OrdinalEncoder,
    PiecewiseFeatures,
    PolynomialFeatures,
    RBFFeatures,
    RobustScaler,
    SimpleImputer,
    StandardScaler,
)

_PREPROCESSING = {
    "simple_imputer": SimpleImputer,
    "group_imputer": GroupImputer,
    "knn_imputer": KNNImputer,
    "one_hot_encoder": OneHotEncoder,
    "ordinal_encoder": OrdinalEncoder,
    "standard_scaler": StandardScaler,
    "min_max_scaler": MinMaxScaler,
    "robust_scaler": RobustScaler,
    "cholesky_whitening": CholeskyWhitening,
    "pca": PCA,
    "polynomial_features": PolynomialFeatures,
    "rbf_features": RBFFeatures,
    "piecewise_features": PiecewiseFeatures,
}

# ---- linear, Bayes, discriminant and neighbour classifiers ----
from .bayes import GaussianBayesClassifier, NaiveBayes
from .discriminant import FisherDiscriminant, LinearDiscriminantProjection, NearestCentroid
from .linear import LinearSVM, LogisticRegression, Perceptron
from .neighbors import KNeighborsClassifier, KNeighborsRegressor

_LINEAR_CLASSIFIERS = {
    "gaussian_bayes": GaussianBayesClassifier,
    "naive_bayes": NaiveBayes,
    "fisher_lda": FisherDiscriminant,
    "nearest_centroid": NearestCentroid,
    "perceptron": Perceptron,
    "logistic_regression": LogisticRegression,
    "linear_svm": LinearSVM,
    "knn": KNeighborsClassifier,
}
_DISCRIMINANT_TRANSFORMERS: dict[str, type] = {"lda": LinearDiscriminantProjection}
_NEIGHBOUR_REGRESSORS: dict[str, type] = {"knn_regressor": KNeighborsRegressor}

# ---- regressors (linear family) and unsupervised models ----
from .cluster import GaussianMixture, KMeans
from .manifold import ClassicalMDS
from .regression import BayesianLinearRegression, Lasso, LinearRegression, PLSRegression, Ridge

_LINEAR_REGRESSORS = {
    "linear_regression": LinearRegression,
    "ridge": Ridge,
    "lasso": Lasso,
    "bayesian_linear_regression": BayesianLinearRegression,
    "pls": PLSRegression,  # also a transformer (transform = latent scores), registered once, as a regressor
}
_CLUSTERERS = {
    "kmeans": KMeans,
    "gaussian_mixture": GaussianMixture,
}
_UNSUPERVISED_TRANSFORMERS = {
    "mds": ClassicalMDS,
}

# ---- trees, forests, bagging, AdaBoost ----
from .ensemble import (AdaBoostClassifier, BaggingClassifier, BaggingRegressor, RandomForestClassifier,
                       RandomForestRegressor)
from .tree import DecisionTreeClassifier, DecisionTreeRegressor

_TREE_CLASSIFIERS: dict[str, type] = {
    "decision_tree": DecisionTreeClassifier,
    "random_forest": RandomForestClassifier,
    "bagging": BaggingClassifier,
    "adaboost": AdaBoostClassifier,
}
_TREE_REGRESSORS: dict[str, type] = {
    "decision_tree_regressor": DecisionTreeRegressor,
    "random_forest_regressor": RandomForestRegressor,
    "bagging_regressor": BaggingRegressor,
}

# ---- gradient boosting ----
from .gradient_boosting import GradientBoostingClassifier, GradientBoostingRegressor

_BOOSTING_CLASSIFIERS = {
    "gradient_boosting": GradientBoostingClassifier,
}
_BOOSTING_REGRESSORS = {
    "gradient_boosting_regressor": GradientBoostingRegressor,
}

# ---- kernel machines ----
from .gaussian_process import GaussianProcessClassifier, GaussianProcessRegressor
from .kernels import KernelPCA, KernelRidge, Nystroem
from .svm import SVC

_KERNEL_CLASSIFIERS = {"svm": SVC, "gp_classifier": GaussianProcessClassifier}
_KERNEL_REGRESSORS = {"kernel_ridge": KernelRidge, "gp_regressor": GaussianProcessRegressor}
_KERNEL_TRANSFORMERS = {"kernel_pca": KernelPCA, "nystroem": Nystroem}

# ---- neural networks ----
from .neural import MLPClassifier, MLPRegressor

_NEURAL_CLASSIFIERS = {"mlp": MLPClassifier}
_NEURAL_REGRESSORS = {"mlp_regressor": MLPRegressor}

# ---- calibration maps (1-D score -> probability) ----
from .calibration import HistogramBinning, IsotonicCalibration, NoCalibration, PlattScaling, TemperatureScaling

_CALIBRATION = {
    "platt": PlattScaling,
    "isotonic": IsotonicCalibration,
    "temperature": TemperatureScaling,
    "histogram_binning": HistogramBinning,
    "none": NoCalibration,
}

CLASSIFIERS: dict[str, type] = {**_LINEAR_CLASSIFIERS, **_TREE_CLASSIFIERS, **_BOOSTING_CLASSIFIERS,
                                **_KERNEL_CLASSIFIERS, **_NEURAL_CLASSIFIERS}
REGRESSORS: dict[str, type] = {**_LINEAR_REGRESSORS, **_NEIGHBOUR_REGRESSORS, **_TREE_REGRESSORS, **_BOOSTING_REGRESSORS,
                               **_KERNEL_REGRESSORS, **_NEURAL_REGRESSORS}
TRANSFORMERS: dict[str, type] = {**_PREPROCESSING, **_DISCRIMINANT_TRANSFORMERS, **_UNSUPERVISED_TRANSFORMERS,
                                 **_KERNEL_TRANSFORMERS}
CLUSTERERS: dict[str, type] = {**_CLUSTERERS}
CALIBRATORS: dict[str, type] = {**_CALIBRATION}

# Every registered class can be built with no arguments.
REGISTRY: dict[str, type] = {**CLASSIFIERS, **REGRESSORS, **TRANSFORMERS, **CLUSTERERS, **CALIBRATORS}

# Composites need constructor arguments (their steps), so they are loadable but not in REGISTRY.
COMPOSITES: dict[str, type] = {"pipeline": Pipeline, "column_transformer": ColumnTransformer}


def loadable() -> dict[str, type]:
    return {**REGISTRY, **COMPOSITES}


def name_of(cls: type) -> str:
    for name, registered in loadable().items():
        if registered is cls:
            return name
    raise KeyError(f"{cls.__name__} is not registered in mllib.registry; only registered estimators can be saved")


def get(name: str) -> type:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown estimator {name!r}; registered names: {sorted(REGISTRY)}") from None
