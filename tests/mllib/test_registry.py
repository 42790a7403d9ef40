"""mllib.registry: every registered class is built with no arguments and fits / predicts (or transforms) on a
small numeric problem. Parametrised over REGISTRY, so a new entry is covered as soon as it is registered."""

import subprocess
import sys

import numpy as np
import pytest

from mllib import registry
from mllib.base import BaseEstimator, ColumnTransformer, Pipeline, is_fitted
from mllib.registry import CALIBRATORS, CLASSIFIERS, CLUSTERERS, COMPOSITES, REGISTRY, REGRESSORS, TRANSFORMERS

FAMILIES = {
    "classifier": CLASSIFIERS,
    "regressor": REGRESSORS,
    "transformer": TRANSFORMERS,
    "clusterer": CLUSTERERS,
    "calibrator": CALIBRATORS,
}


def family_of(name: str) -> str:
    return next(f for f, members in FAMILIES.items() if name in members)


def small_problem(seed=0, n=40, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X @ np.array([1.0, -0.5, 0.25])[:d] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def regression_target(X):
    return X @ np.array([1.0, -0.5, 0.25]) + 0.1 * np.cos(7 * X[:, 0])


def fit_registered(name: str, seed=0):
    """A fitted default instance of REGISTRY[name] and the input its predict / transform takes."""
    X, y = small_problem(seed)
    est = REGISTRY[name]()
    kind = family_of(name)
    if kind == "calibrator":  # calibrators map 1-D scores to probabilities and need binary y
        scores = X[:, 0] - 0.5 * X[:, 1]
        return est.fit(scores, y), scores
    if kind == "regressor":
        return est.fit(X, regression_target(X)), X
    if kind == "clusterer":
        return est.fit(X), X
    return est.fit(X, y), X  # supervised transformers (lda, pls) use y; the others ignore it


def test_registry_is_the_union_of_disjoint_families():
    assert REGISTRY == {**CLASSIFIERS, **REGRESSORS, **TRANSFORMERS, **CLUSTERERS, **CALIBRATORS}
    names = [n for members in FAMILIES.values() for n in members]
    assert len(names) == len(set(names)), "a name is registered in two families"
    assert not set(REGISTRY) & set(COMPOSITES)
    assert COMPOSITES["pipeline"] is Pipeline and COMPOSITES["column_transformer"] is ColumnTransformer
    assert set(COMPOSITES) == {
        "pipeline",
        "column_transformer",
        "one_vs_rest_calibration",
        "deployed_predictor",
        "split_conformal_classifier",
        "deployed_regressor",
        "standardized_target",
        "log_target",
        "split_conformal_regressor",
        "cv_plus_regressor",
        "residual_scale",
    }
    for family in (*FAMILIES.values(), COMPOSITES):
        assert all(registry.kind_of(name) == family.kind for name in family)


def test_names_are_checked_without_importing_any_family():
    """The registry is a table of import paths: membership, listing and kind_of import nothing, and looking a
    class up imports only its own module (the import cost of a stage that merely validates names)."""
    code = (
        "import sys, mllib.registry as r; assert 'svm' in r.CLASSIFIERS and r.kind_of('ridge') == 'regressor'; "
        "names = sorted(r.REGISTRY); before = {m for m in sys.modules if m.startswith('mllib.')}; "
        "r.CLASSIFIERS['logistic_regression']; after = {m for m in sys.modules if m.startswith('mllib.')}; "
        "print(sorted(before)); print(sorted(after - before))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "['mllib.registry']"
    loaded = eval(out[1])
    assert "mllib.linear.logistic" in loaded
    assert not [m for m in loaded if m.split(".")[1] not in ("base", "linear", "_lazy")], loaded
    # the package namespace is lazy: the other linear models and their numba kernels stay unloaded
    assert not {"mllib.linear.perceptron", "mllib.linear.svm", "mllib.linear._kernels"} & set(loaded), loaded


def test_every_path_names_the_defining_module():
    for name in registry.loadable():
        cls = registry.loadable()[name]
        assert registry.loadable().path(name) == f"{cls.__module__}:{cls.__qualname__}"


def test_names_are_stable_identifiers_and_classes_are_estimators():
    for name, cls in registry.loadable().items():
        assert name.isidentifier() and name == name.lower()
        assert issubclass(cls, BaseEstimator)
        assert registry.name_of(cls) == name


def test_get_and_name_of():
    assert registry.get("logistic_regression") is CLASSIFIERS["logistic_regression"]
    with pytest.raises(KeyError, match="unknown estimator 'forest'.*registered names"):
        registry.get("forest")
    with pytest.raises(KeyError, match="pipeline"):
        registry.get("pipeline")  # composites need arguments: not selectable by name

    class Unregistered(BaseEstimator):
        pass

    with pytest.raises(KeyError, match="not registered"):
        registry.name_of(Unregistered)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_builds_with_no_arguments_and_fits_and_predicts(name):
    est, Xin = fit_registered(name)
    assert is_fitted(est)
    kind = family_of(name)
    n = Xin.shape[0]
    if kind == "classifier":
        pred = est.predict(Xin)
        assert pred.shape == (n,) and set(pred) <= set(est.classes_.tolist())
        P = est.predict_proba(Xin)
        assert P.shape == (n, len(est.classes_))
        np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
        assert ((P >= 0) & (P <= 1)).all()
        np.testing.assert_array_equal(pred, est.classes_[np.argmax(P, axis=1)])
        # a default classifier learns something on this easy problem
        _, y = small_problem()
        assert np.mean(pred == y) > 0.7
    elif kind == "regressor":
        pred = est.predict(Xin)
        assert pred.shape == (n,) and pred.dtype == np.float64
        target = regression_target(Xin)
        r2 = 1 - np.sum((target - pred) ** 2) / np.sum((target - target.mean()) ** 2)
        assert r2 > 0.5, r2  # a default regressor learns something on this smooth problem
    elif kind == "clusterer":
        labels = est.predict(Xin)
        assert labels.shape == (n,) and labels.dtype.kind == "i" and labels.min() >= 0
    elif kind == "transformer":
        Z = est.transform(Xin)
        assert Z.ndim == 2 and Z.shape[0] == n and np.isfinite(np.asarray(Z, dtype=float)).all()
        if hasattr(est, "get_feature_names_out"):
            assert len(est.get_feature_names_out([f"x{j}" for j in range(Xin.shape[1])])) == Z.shape[1]
        if hasattr(est, "inverse_transform"):
            np.testing.assert_allclose(est.inverse_transform(Z), Xin, rtol=1e-12, atol=1e-12)
    else:
        p = est.transform(Xin)
        assert p.shape == (n,) and ((p >= 0) & (p <= 1)).all()
        P = est.predict_proba(Xin)
        np.testing.assert_allclose(P[:, 1], p, rtol=1e-12)
        np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
        # a calibration map of a score that increases with P(y = 1) is non-decreasing
        order = np.argsort(Xin)
        assert (np.diff(p[order]) >= -1e-15).all()


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_fit_returns_self_and_refitting_is_deterministic(name):
    a, Xin = fit_registered(name)
    b, _ = fit_registered(name)
    kind = family_of(name)
    method = {"classifier": "predict_proba", "regressor": "predict", "clusterer": "predict"}.get(kind, "transform")
    np.testing.assert_array_equal(getattr(a, method)(Xin), getattr(b, method)(Xin))
    X, y = small_problem()
    est = REGISTRY[name]()
    arg = {"calibrator": (X[:, 0], y), "regressor": (X, regression_target(X)), "clusterer": (X,)}.get(kind, (X, y))
    assert est.fit(*arg) is est
