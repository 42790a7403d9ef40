"""The estimator protocol (docs/architecture.md section 1; mllib.base): get_params / set_params round trips (nested
`step__param`
keys for Pipeline and ColumnTransformer), clone gives an unfitted, equal-params copy sharing no mutable
state, and predict / transform before fit raise NotFittedError."""

import inspect

import numpy as np
import pytest

from mllib.base import (
    BaseEstimator,
    ClassifierMixin,
    ColumnTransformer,
    NotFittedError,
    Pipeline,
    TransformerMixin,
    check_is_fitted,
    clone,
    is_fitted,
)
from mllib.linear import LogisticRegression
from mllib.preprocessing import OneHotEncoder, SimpleImputer, StandardScaler
from mllib.registry import CALIBRATORS, CLUSTERERS, REGISTRY, REGRESSORS


def _feature_transformer():
    """The pipeline's feature transformer: numeric impute (+ indicators) + scale, categorical impute + one-hot."""
    return ColumnTransformer(
        [
            (
                "numeric",
                Pipeline([("impute", SimpleImputer("median", add_indicator=True)), ("scale", StandardScaler())]),
                [0, 1],
            ),
            ("categorical", Pipeline([("impute", SimpleImputer("most_frequent")), ("encode", OneHotEncoder())]), [2]),
        ]
    )


def _mixed_data():
    return np.array(
        [[1.0, np.nan, "a"], [2.0, 5.0, None], [np.nan, 7.0, "b"], [4.0, 1.0, "b"], [3.0, 2.0, "c"]], dtype=object
    )


def _flat_params(est) -> dict:
    """get_params(deep=True) with estimators replaced by (class, their shallow params) so equality is by value."""
    out = {}
    for k, v in est.get_params(deep=True).items():
        out[k] = _by_value(v)
    return out


def _by_value(v):
    if isinstance(v, BaseEstimator):
        return (type(v).__name__, {k: _by_value(x) for k, x in v.get_params(deep=False).items()})
    if isinstance(v, (list, tuple)):
        return type(v)(_by_value(x) for x in v)
    return v


# ---------------------------------------------------------------- get_params / set_params


class Toy(BaseEstimator):
    def __init__(self, b=2, a=1, inner=None):
        self.b = b
        self.a = a
        self.inner = inner


def test_get_params_lists_exactly_the_constructor_arguments_with_their_values():
    est = Toy(b=5, a="x")
    assert est.get_params(deep=False) == {"a": "x", "b": 5, "inner": None}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_registered_get_params_keys_are_the_constructor_signature(name):
    cls = REGISTRY[name]
    init = [] if cls.__init__ is object.__init__ else list(inspect.signature(cls.__init__).parameters.values())[1:]
    est = cls()
    # every hyperparameter is reported, with its default stored unchanged by the constructor
    assert est.get_params(deep=False) == {p.name: p.default for p in init}


def test_nested_params_are_exposed_and_settable_with_double_underscore():
    est = Toy(inner=Toy(a=3))
    params = est.get_params(deep=True)
    assert params["inner__a"] == 3 and params["inner__b"] == 2 and params["inner"] is est.inner
    assert "inner__a" not in est.get_params(deep=False)
    assert est.set_params(inner__a=10, b=7) is est
    assert est.inner.a == 10 and est.b == 7


def test_set_params_rejects_unknown_names():
    with pytest.raises(ValueError, match="no parameter 'c'"):
        Toy().set_params(c=1)
    with pytest.raises(ValueError, match="no parameter"):
        LogisticRegression().set_params(C=1.0)
    with pytest.raises(ValueError):
        Toy(inner=Toy()).set_params(inner__zzz=1)


def test_estimators_with_var_kwargs_are_refused():
    class Bad(BaseEstimator):
        def __init__(self, **kwargs):
            self.kwargs = kwargs

    with pytest.raises(TypeError, match="explicitly"):
        Bad().get_params()


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_registered_set_params_get_params_round_trip(name):
    est = REGISTRY[name]()
    before = est.get_params(deep=True)
    assert est.set_params(**before) is est
    assert est.get_params(deep=True) == before


def test_logistic_set_params_changes_the_fit():
    X = np.random.default_rng(0).normal(size=(60, 2))
    y = (X[:, 0] + 0.5 * np.random.default_rng(1).normal(size=60) > 0).astype(int)
    weak = LogisticRegression(lam=0.01).fit(X, y)
    strong = LogisticRegression(lam=0.01).set_params(lam=100.0).fit(X, y)
    assert strong.lam == 100.0
    assert np.linalg.norm(strong.coef_) < 0.5 * np.linalg.norm(weak.coef_)


def test_pipeline_get_params_exposes_steps_and_nested_step_params():
    scale = StandardScaler()
    pipe = Pipeline([("impute", SimpleImputer()), ("scale", scale)])
    params = pipe.get_params(deep=True)
    assert params["scale"] is scale
    assert params["scale__with_mean"] is True
    assert params["impute__strategy"] == "mean"
    assert set(pipe.get_params(deep=False)) == {"steps"}


def test_pipeline_set_params_nested_and_round_trip():
    pipe = Pipeline([("impute", SimpleImputer()), ("scale", StandardScaler())])
    pipe.set_params(impute__strategy="median", scale__with_std=False)
    assert pipe.steps[0][1].strategy == "median" and pipe.steps[1][1].with_std is False
    before = _flat_params(pipe)
    pipe.set_params(**pipe.get_params(deep=True))  # every key get_params returns must be accepted
    assert _flat_params(pipe) == before
    with pytest.raises(ValueError, match="Pipeline has no parameter .nope."):
        pipe.set_params(nope__x=1)
    with pytest.raises(ValueError):
        pipe.set_params(scale__nope=1)


def test_pipeline_set_params_replaces_a_whole_step_by_name():
    pipe = Pipeline([("impute", SimpleImputer()), ("scale", StandardScaler())])
    new = StandardScaler(with_mean=False)
    pipe.set_params(scale=new, scale__with_std=False)
    assert pipe.steps[1] == ("scale", new) and new.with_std is False
    assert [n for n, _ in pipe.steps] == ["impute", "scale"]


def test_column_transformer_nested_params_round_trip():
    ct = _feature_transformer()
    params = ct.get_params(deep=True)
    assert params["numeric__impute__strategy"] == "median"
    assert params["numeric__impute__add_indicator"] is True
    assert params["categorical__encode__handle_unknown"] == "ignore"
    ct.set_params(numeric__impute__strategy="mean", categorical__encode__handle_unknown="error")
    assert ct.transformers[0][1].steps[0][1].strategy == "mean"
    assert ct.transformers[1][1].steps[1][1].handle_unknown == "error"
    before = _flat_params(ct)
    ct.set_params(**ct.get_params(deep=True))
    assert _flat_params(ct) == before
    with pytest.raises(ValueError, match="ColumnTransformer has no parameter .textual."):
        ct.set_params(textual__x=1)


def test_nested_set_params_takes_effect_in_fit():
    X = _mixed_data()
    ct = _feature_transformer().set_params(numeric__impute__add_indicator=False, numeric__scale__with_std=False)
    Z = ct.fit_transform(X)
    # no indicator columns: 2 numeric + 3 categories
    assert Z.shape == (5, 5)
    np.testing.assert_allclose(Z[:, :2].mean(axis=0), 0.0, atol=1e-15)
    assert ct.transformers_[0][1].steps[0][1].statistics_.tolist() == [2.5, 3.5]


# ---------------------------------------------------------------- clone


def _fit_small(est):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] + rng.normal(size=30) > 0).astype(int)
    if type(est) in CALIBRATORS.values():
        return est.fit(X[:, 0], y)  # calibrators: 1-D scores
    if type(est) in REGRESSORS.values():
        return est.fit(X, X[:, 0] - X[:, 1])
    if type(est) in CLUSTERERS.values():
        return est.fit(X)
    return est.fit(X, y)  # classifiers and transformers (supervised ones such as lda use y)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_clone_gives_unfitted_equal_params_copy(name):
    est = REGISTRY[name]()
    _fit_small(est)
    assert is_fitted(est)
    copy = clone(est)
    assert type(copy) is type(est) and copy is not est
    assert copy.get_params(deep=True) == est.get_params(deep=True)
    assert not is_fitted(copy)
    assert not [k for k in vars(copy) if k.endswith("_")]


def test_clone_shares_no_mutable_state():
    cats = [["a", "b"], ["x"]]
    enc = OneHotEncoder(categories=cats)
    copy = clone(enc)
    assert copy.categories == cats
    assert copy.categories is not cats and copy.categories[0] is not cats[0]
    copy.categories[0].append("c")
    assert cats == [["a", "b"], ["x"]]

    fill = np.array([1.0, 2.0])
    imp = SimpleImputer(strategy="constant", fill_value=fill)
    copy = clone(imp)
    assert copy.fill_value is not fill and np.array_equal(copy.fill_value, fill)


def test_clone_of_pipeline_copies_every_step_and_fitting_the_clone_leaves_the_original_alone():
    pipe = Pipeline([("impute", SimpleImputer()), ("model", LogisticRegression(lam=0.5))])
    copy = clone(pipe)
    assert copy.steps is not pipe.steps
    for (n1, s1), (n2, s2) in zip(pipe.steps, copy.steps):
        assert n1 == n2 and s1 is not s2 and s1.get_params() == s2.get_params()
    X = np.array([[0.0, 1.0], [1.0, np.nan], [2.0, 0.0], [3.0, 1.0], [0.5, 2.0], [2.5, 0.5]])
    copy.fit(X, [0, 1, 0, 1, 1, 0])
    assert is_fitted(copy) and is_fitted(copy.steps[1][1])
    assert not is_fitted(pipe) and not any(is_fitted(s) for _, s in pipe.steps)


def test_clone_of_column_transformer_copies_transformers_and_column_lists():
    ct = _feature_transformer()
    copy = clone(ct)
    for (n1, t1, c1), (n2, t2, c2) in zip(ct.transformers, copy.transformers):
        assert n1 == n2 and t1 is not t2 and c1 == c2 and c1 is not c2
    assert _flat_params(copy) == _flat_params(ct)
    copy.transformers[0][2].append(2)
    assert ct.transformers[0][2] == [0, 1]


def test_clone_of_fitted_column_transformer_is_unfitted():
    ct = _feature_transformer().fit(_mixed_data())
    copy = clone(ct)
    assert not is_fitted(copy)
    with pytest.raises(NotFittedError):
        copy.transform(_mixed_data())


def test_column_transformer_fits_clones_and_leaves_its_templates_unfitted():
    ct = _feature_transformer().fit(_mixed_data())
    for _, template, _ in ct.transformers:
        assert not is_fitted(template)
    for (_, template, _), (_, fitted, _) in zip(ct.transformers, ct.transformers_):
        assert fitted is not template and is_fitted(fitted)


# ---------------------------------------------------------------- fitted check


def test_is_fitted_looks_only_at_public_trailing_underscore_attributes():
    est = Toy()
    assert not is_fitted(est)
    est._private_ = 1
    assert not is_fitted(est)
    est.coef_ = 1
    assert is_fitted(est)
    check_is_fitted(est)


def test_check_is_fitted_raises_not_fitted_error_with_class_name():
    with pytest.raises(NotFittedError, match="Toy is not fitted"):
        check_is_fitted(Toy())
    assert issubclass(NotFittedError, ValueError)


def _methods_needing_fit(est):
    return [
        m
        for m in ("predict", "predict_proba", "decision_function", "transform", "inverse_transform")
        if hasattr(est, m)
    ]


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_registered_estimators_raise_not_fitted_before_fit(name):
    est = REGISTRY[name]()
    methods = _methods_needing_fit(est)
    assert methods, f"{name} has no predict/transform method"
    X = np.zeros((3, 2))
    for m in methods:
        arg = X[:, 0] if not isinstance(est, (TransformerMixin, ClassifierMixin)) else X
        with pytest.raises(NotFittedError):
            getattr(est, m)(arg)


def test_composites_raise_not_fitted_before_fit():
    X = _mixed_data()
    with pytest.raises(NotFittedError):
        _feature_transformer().transform(X)
    pipe = Pipeline([("scale", StandardScaler()), ("model", LogisticRegression())])
    for m in ("predict", "predict_proba", "decision_function"):
        with pytest.raises(NotFittedError):
            getattr(pipe, m)(np.zeros((2, 2)))


def test_classifier_mixin_predict_maps_argmax_back_to_labels():
    class Fixed(ClassifierMixin, BaseEstimator):
        def predict_proba(self, X):
            return np.asarray(X, dtype=float)

    est = Fixed()
    encoded = est._encode_targets(np.array(["cat", "dog", "cat", "eel"]))
    assert est.classes_.tolist() == ["cat", "dog", "eel"]
    assert encoded.tolist() == [0, 1, 0, 2]
    assert est.predict([[0.1, 0.7, 0.2], [0.5, 0.2, 0.3], [0.0, 0.1, 0.9]]).tolist() == ["dog", "cat", "eel"]


@pytest.mark.parametrize("y", [[1, 1, 1], ["a", "a"], [[0, 1], [1, 0]], [0.0, 1.0, np.nan], ["a", None, "b"]])
def test_classifier_mixin_refuses_single_class_2d_and_missing_labels(y):
    class C(ClassifierMixin, BaseEstimator):
        pass

    with pytest.raises(ValueError, match="single class|1-D|missing"):
        C()._encode_targets(np.array(y, dtype=object if None in y else None))
