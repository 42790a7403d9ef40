"""mllib.io: save / load as .json + .npz, no pickle. Loading gives IDENTICAL outputs (np.array_equal) for every
registered class and for the pipeline's feature transformer; saving is byte-reproducible; only registry classes
load; a .npz that does not match its JSON is refused."""

import json
import zipfile

import numpy as np
import pytest

from mllib import io as mlio
from mllib.base import ColumnTransformer, Pipeline, is_fitted
from mllib.linear import LogisticRegression
from mllib.preprocessing import OneHotEncoder, SimpleImputer, StandardScaler
from mllib.registry import CALIBRATORS, CLUSTERERS, REGISTRY, REGRESSORS, loadable


def _fit_registered(name):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    X[rng.random(X.shape) < 0.1] *= 50.0
    y = (X[:, 0] - X[:, 1] + 0.5 * rng.normal(size=40) > 0).astype(int)
    est = REGISTRY[name]()
    if name in CALIBRATORS:
        return est.fit(X[:, 0], y), X[:, 0]
    if name in REGRESSORS:
        return est.fit(X, X @ [1.0, -0.5, 0.25] + 0.1 * rng.normal(size=40)), X
    if name in CLUSTERERS:
        return est.fit(X), X
    return est.fit(X, y), X  # classifiers and transformers (supervised ones such as lda use y)


def _outputs(est, X):
    """Every prediction-like output the estimator has."""
    out = {}
    for m in ("predict", "predict_proba", "decision_function", "transform"):
        if hasattr(est, m):
            out[m] = getattr(est, m)(X)
    assert out
    return out


def _assert_identical_outputs(a, b, X):
    oa, ob = _outputs(a, X), _outputs(b, X)
    assert oa.keys() == ob.keys()
    for k in oa:
        assert oa[k].dtype == ob[k].dtype, k
        assert np.array_equal(oa[k], ob[k]), k


def _assert_same_state(a, b):
    """Same class, params and fitted attributes (arrays with identical dtype and values), recursively."""
    assert type(a) is type(b)
    pa, pb = a.get_params(deep=False), b.get_params(deep=False)
    assert pa.keys() == pb.keys()
    for k in pa:
        _assert_same_value(pa[k], pb[k])
    fa = {k: v for k, v in vars(a).items() if k.endswith("_") and not k.startswith("_")}
    fb = {k: v for k, v in vars(b).items() if k.endswith("_") and not k.startswith("_")}
    assert fa.keys() == fb.keys()
    for k in fa:
        _assert_same_value(fa[k], fb[k])


def _assert_same_value(x, y):
    if hasattr(x, "get_params"):
        _assert_same_state(x, y)
    elif isinstance(x, np.ndarray):
        assert isinstance(y, np.ndarray) and x.dtype == y.dtype and x.shape == y.shape
        if x.dtype == object:
            assert [type(v) for v in x.ravel()] == [type(v) for v in y.ravel()]
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f")
    elif isinstance(x, (list, tuple)):
        assert type(x) is type(y) and len(x) == len(y)
        for u, v in zip(x, y):
            _assert_same_value(u, v)
    elif isinstance(x, float) and np.isnan(x):
        assert isinstance(y, float) and np.isnan(y)
    else:
        assert x == y and type(x) is type(y)


def _mixed_frame(seed, n):
    """Numeric columns with NaN, then string categories with None / NaN (as the pipeline's frames give)."""
    rng = np.random.default_rng(seed)
    X = np.empty((n, 5), dtype=object)
    num = rng.normal(size=(n, 3)) * [1.0, 100.0, 0.01]
    num[rng.random(num.shape) < 0.15] = np.nan
    X[:, :3] = num
    X[:, 3] = rng.choice(["north", "south", "east", None], size=n)
    X[:, 4] = rng.choice(["a", "b", "c", np.nan], size=n)
    return X


def _feature_transformer():
    return ColumnTransformer(
        [
            (
                "numeric",
                Pipeline(
                    [("impute", SimpleImputer(strategy="median", add_indicator=True)), ("scale", StandardScaler())]
                ),
                [0, 1, 2],
            ),
            (
                "categorical",
                Pipeline(
                    [
                        ("impute", SimpleImputer(strategy="most_frequent")),
                        ("encode", OneHotEncoder(handle_unknown="ignore")),
                    ]
                ),
                [3, 4],
            ),
        ]
    )


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_registered_round_trip_gives_identical_outputs(name, tmp_path):
    est, X = _fit_registered(name)
    json_path, npz_path = mlio.save(est, tmp_path / name)
    assert json_path == tmp_path / f"{name}.json" and npz_path == tmp_path / f"{name}.npz"
    loaded = mlio.load(tmp_path / name)
    _assert_same_state(est, loaded)
    _assert_identical_outputs(est, loaded, X)
    X_new = X[::-1] * 1.5  # also on data the model has not seen
    _assert_identical_outputs(est, loaded, X_new)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_unfitted_registered_round_trip(name, tmp_path):
    est = REGISTRY[name]()
    mlio.save(est, tmp_path / "m")
    loaded = mlio.load(tmp_path / "m")
    assert not is_fitted(loaded)
    _assert_same_state(est, loaded)


def test_feature_transformer_round_trip_gives_identical_transforms(tmp_path):
    X_train, X_val = _mixed_frame(0, 120), _mixed_frame(1, 40)
    X_val[0, 3] = "unseen-region"
    ct = _feature_transformer().fit(X_train)
    mlio.save(ct, tmp_path / "features")
    loaded = mlio.load(tmp_path / "features.json")  # either file name works
    _assert_same_state(ct, loaded)
    for X in (X_train, X_val):
        a, b = ct.transform(X), loaded.transform(X)
        assert a.dtype == b.dtype and np.array_equal(a, b)
    names = ["n0", "n1", "n2", "region", "grade"]
    assert loaded.get_feature_names_out(names) == ct.get_feature_names_out(names)
    # the categorical statistics and categories keep their Python str values
    enc = loaded.transformers_[1][1].steps[1][1]
    assert enc.categories_[0].dtype == object and all(type(v) is str for v in enc.categories_[0])


def test_model_pipeline_with_string_classes_round_trip(tmp_path):
    X = _mixed_frame(2, 150)
    y = np.array(["low", "mid", "high"])[np.random.default_rng(3).integers(0, 3, 150)]
    pipe = Pipeline([("features", _feature_transformer()), ("model", LogisticRegression(lam=0.5))]).fit(X, y)
    mlio.save(pipe, tmp_path / "pipe")
    loaded = mlio.load(tmp_path / "pipe")
    _assert_same_state(pipe, loaded)
    for m in ("predict", "predict_proba", "decision_function"):
        a, b = getattr(pipe, m)(X), getattr(loaded, m)(X)
        assert a.dtype == b.dtype and np.array_equal(a, b), m
    assert loaded.classes_.tolist() == ["high", "low", "mid"]


def test_non_finite_floats_tuples_dicts_and_string_params_survive(tmp_path):
    imp = SimpleImputer(strategy="constant", fill_value=float("-inf")).fit(np.array([[1.0], [np.nan]]))
    imp.extra_ = {
        "nan": float("nan"),
        "pair": (1, "a"),
        "arr": np.array([1, 2], dtype=np.int16),
        "flag": True,
        "obj": np.array([["a", None], [1.5, float("nan")]], dtype=object),
    }
    mlio.save(imp, tmp_path / "imp")
    loaded = mlio.load(tmp_path / "imp")
    assert loaded.fill_value == float("-inf")
    assert np.isneginf(loaded.statistics_).all()
    assert np.isnan(loaded.extra_["nan"]) and loaded.extra_["pair"] == (1, "a") and loaded.extra_["flag"] is True
    assert loaded.extra_["arr"].dtype == np.int16
    obj = loaded.extra_["obj"]
    assert obj.dtype == object and obj.shape == (2, 2)
    assert obj[0, 0] == "a" and obj[0, 1] is None and obj[1, 0] == 1.5 and np.isnan(obj[1, 1])
    text = (tmp_path / "imp.json").read_text()
    assert "NaN" not in text and "Infinity" not in text  # strict JSON: non-finite floats are encoded as strings
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))


def test_dotted_file_names_keep_every_part(tmp_path):
    est, X = _fit_registered("logistic_regression")
    a = LogisticRegression(lam=0.1).fit(X, (X[:, 0] > 0).astype(int))
    mlio.save(est, tmp_path / "lr.lam1.0")
    mlio.save(a, tmp_path / "lr.lam0.1")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "lr.lam0.1.json",
        "lr.lam0.1.npz",
        "lr.lam1.0.json",
        "lr.lam1.0.npz",
    ]
    assert mlio.load(tmp_path / "lr.lam1.0").lam == 1.0
    assert mlio.load(tmp_path / "lr.lam0.1.npz").lam == 0.1


# ---------------------------------------------------------------- reproducible bytes


@pytest.mark.parametrize("name", sorted(REGISTRY) + ["feature_transformer"])
def test_saving_twice_gives_byte_identical_files(name, tmp_path):
    if name == "feature_transformer":
        est = _feature_transformer().fit(_mixed_frame(0, 60))
    else:
        est, _ = _fit_registered(name)
    mlio.save(est, tmp_path / "a")
    mlio.save(est, tmp_path / "b")
    first = {ext: (tmp_path / f"a{ext}").read_bytes() for ext in (".json", ".npz")}
    mlio.save(est, tmp_path / "a")  # overwrite in place
    for ext in (".json", ".npz"):
        assert (tmp_path / f"a{ext}").read_bytes() == (tmp_path / f"b{ext}").read_bytes() == first[ext]
    # a loaded copy saves to the same bytes as the original
    mlio.save(mlio.load(tmp_path / "a"), tmp_path / "c")
    for ext in (".json", ".npz"):
        assert (tmp_path / f"c{ext}").read_bytes() == first[ext]
    assert not list(tmp_path.glob("*.tmp"))


# ---------------------------------------------------------------- safety: no pickle, no code, strict matching


_MARKERS = {"__array__", "__object_array__", "shape", "dtype", "__float__", "__tuple__", "__dict__"}


def _walk_json(node, names):
    if isinstance(node, list):
        for v in node:
            _walk_json(v, names)
    elif isinstance(node, dict):
        if "__dict__" in node:
            assert set(node) == {"__dict__"}
            for v in node["__dict__"].values():
                _walk_json(v, names)
            return
        if "__estimator__" in node:
            assert set(node) == {"__estimator__", "params", "fitted"}
            assert isinstance(node["__estimator__"], str)
            names.append(node["__estimator__"])
            for v in [*node["params"].values(), *node["fitted"].values()]:
                _walk_json(v, names)
            return
        assert set(node) <= _MARKERS, sorted(set(node) - _MARKERS)
        if "__array__" in node:
            assert set(node) == {"__array__", "shape", "dtype"} and np.dtype(node["dtype"]).kind in "biuf"
        elif "dtype" in node:
            assert node["dtype"] == "object" or np.dtype(node["dtype"]).kind == "U"
        for v in node.values():
            _walk_json(v, names)
    else:
        assert node is None or isinstance(node, (str, int, float, bool))


def test_files_hold_plain_json_and_npy_without_pickle(tmp_path):
    pipe = Pipeline([("features", _feature_transformer()), ("model", LogisticRegression())])
    X = _mixed_frame(4, 80)
    pipe.fit(X, (np.nan_to_num(X[:, 0].astype(float)) > 0).astype(int))
    json_path, npz_path = mlio.save(pipe, tmp_path / "pipe")
    doc = json.loads(json_path.read_text())
    assert doc["format"] == "mllib-estimator" and doc["format_version"] == 2 and "mllib_version" in doc
    names = []
    _walk_json(doc["estimator"], names)
    assert set(names) <= set(loadable()) and {"pipeline", "column_transformer", "logistic_regression"} <= set(names)
    text = json_path.read_text()
    for needle in ("pickle", "__reduce__", "py/object", "import", "lambda", "eval(", "\\x80"):
        assert needle not in text
    with np.load(npz_path, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    assert arrays and all(a.dtype.kind in "biuf" for a in arrays.values())
    with zipfile.ZipFile(npz_path) as zf:
        assert all(n.endswith(".npy") for n in zf.namelist())
        for n in zf.namelist():
            assert b"'descr': '|O'" not in zf.read(n)[:200]


def _save_lr(tmp_path):
    est, _ = _fit_registered("logistic_regression")
    return mlio.save(est, tmp_path / "model")


def test_class_not_in_the_registry_is_refused(tmp_path):
    json_path, _ = _save_lr(tmp_path)
    doc = json.loads(json_path.read_text())
    for evil in ("os.system", "builtins.eval", "LogisticRegression", "mllib.linear.LogisticRegression"):
        doc["estimator"]["__estimator__"] = evil
        json_path.write_text(json.dumps(doc))
        with pytest.raises(ValueError, match="only mllib.registry.s classes load"):
            mlio.load(tmp_path / "model")


def test_nested_class_not_in_the_registry_is_refused(tmp_path):
    pipe = Pipeline([("scale", StandardScaler()), ("model", LogisticRegression())])
    X = np.random.default_rng(0).normal(size=(20, 2))
    json_path, _ = mlio.save(pipe.fit(X, (X[:, 0] > 0).astype(int)), tmp_path / "pipe")
    text = json_path.read_text().replace('"standard_scaler"', '"subprocess_popen"')
    json_path.write_text(text)
    with pytest.raises(ValueError, match="only mllib.registry.s classes load. .subprocess_popen."):
        mlio.load(tmp_path / "pipe")


def test_a_parameter_this_version_does_not_take_is_refused_by_name(tmp_path):
    """A model saved by an older mllib (here: CVPlusRegressor's former chunk_rows) gets one message naming the file,
    the class, the parameter and the fix, not the constructor's TypeError."""
    json_path, _ = _save_lr(tmp_path)
    doc = json.loads(json_path.read_text())
    doc["estimator"]["params"]["chunk_rows"] = 256
    json_path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=r"model.json: .* parameters \['chunk_rows'\] .* save the model again"):
        mlio.load(tmp_path / "model")


def test_private_or_dunder_attribute_names_are_refused(tmp_path):
    json_path, _ = _save_lr(tmp_path)
    doc = json.loads(json_path.read_text())
    doc["estimator"]["fitted"]["__class__"] = "x"
    json_path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="invalid fitted attribute name"):
        mlio.load(tmp_path / "model")


def _rewrite_npz(npz_path, arrays):
    with zipfile.ZipFile(npz_path, "w") as zf:
        for k, a in arrays.items():
            with zf.open(f"{k}.npy", "w") as f:
                np.lib.format.write_array(f, a, allow_pickle=False)


def test_npz_with_an_extra_array_is_refused(tmp_path):
    _, npz_path = _save_lr(tmp_path)
    with np.load(npz_path) as npz:
        arrays = {k: npz[k] for k in npz.files}
    arrays["root.smuggled_"] = np.zeros(3)
    _rewrite_npz(npz_path, arrays)
    with pytest.raises(ValueError, match="does not match"):
        mlio.load(tmp_path / "model")


def test_npz_with_a_missing_array_is_refused(tmp_path):
    _, npz_path = _save_lr(tmp_path)
    with np.load(npz_path) as npz:
        arrays = {k: npz[k] for k in npz.files}
    assert "root.coef_" in arrays
    del arrays["root.coef_"]
    _rewrite_npz(npz_path, arrays)
    with pytest.raises(ValueError, match=r"'root.coef_'.*missing from the .npz"):
        mlio.load(tmp_path / "model")


def test_npz_from_another_model_is_refused(tmp_path):
    lr_json, _ = _save_lr(tmp_path)
    scaler, _ = _fit_registered("standard_scaler")
    _, other_npz = mlio.save(scaler, tmp_path / "scaler")
    other_npz.replace(tmp_path / "model.npz")
    with pytest.raises(ValueError, match="missing from the .npz|does not match"):
        mlio.load(tmp_path / "model")


def test_npz_of_the_same_class_with_other_shapes_is_refused(tmp_path):
    """A 3-feature logistic regression's JSON beside a 5-feature one's .npz: same class, same array names."""
    rng = np.random.default_rng(0)
    X3, X5, y = rng.normal(size=(40, 3)), rng.normal(size=(40, 5)), np.tile([0, 1], 20)
    json_path, npz_path = mlio.save(LogisticRegression().fit(X3, y), tmp_path / "model")
    _, other_npz = mlio.save(LogisticRegression().fit(X5, y), tmp_path / "other")
    with np.load(npz_path) as a, np.load(other_npz) as b:
        assert a.files == b.files  # only the shapes tell the two apart
    other_npz.replace(npz_path)
    expected = json.loads(json_path.read_text())["estimator"]["fitted"]["coef_"]
    assert expected == {"__array__": "root.coef_", "shape": [1, 3], "dtype": "<f8"}
    with pytest.raises(
        ValueError,
        match=r"model\.npz: array 'root\.coef_' is of shape \(1, 5\), dtype float64, but "
        r"\S*model\.json expects shape \(1, 3\) and dtype float64",
    ):
        mlio.load(tmp_path / "model")


def test_npz_array_of_another_dtype_is_refused(tmp_path):
    _, npz_path = _save_lr(tmp_path)
    with np.load(npz_path) as npz:
        arrays = {k: npz[k] for k in npz.files}
    arrays["root.coef_"] = arrays["root.coef_"].astype(np.float32)
    _rewrite_npz(npz_path, arrays)
    with pytest.raises(ValueError, match=r"'root\.coef_' is of shape .* dtype float32.*expects .* dtype float64"):
        mlio.load(tmp_path / "model")


def test_pickled_npz_is_refused(tmp_path):
    _, npz_path = _save_lr(tmp_path)
    np.savez(npz_path, **{"root.coef_": np.array([object()], dtype=object)})
    with pytest.raises(ValueError, match="allow_pickle"):
        mlio.load(tmp_path / "model")


def test_bad_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        mlio.load(tmp_path / "absent")
    json_path, _ = _save_lr(tmp_path)
    json_path.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        mlio.load(tmp_path / "model")
    json_path.write_text(json.dumps({"format": "mllib-estimator", "format_version": 99, "estimator": {}}))
    with pytest.raises(
        ValueError, match=r"format version 2 \(found 'mllib-estimator' version 99\); save the model again"
    ):
        mlio.load(tmp_path / "model")


def test_unsupported_values_are_refused_at_save(tmp_path):
    est = StandardScaler().fit(np.ones((2, 1)))
    est.weird_ = object()
    with pytest.raises(TypeError, match="not supported"):
        mlio.save(est, tmp_path / "x")
    est.weird_ = np.array([object()], dtype=object)
    with pytest.raises(TypeError, match="not str/int/float/bool/None"):
        mlio.save(est, tmp_path / "x")
    est.weird_ = np.array([1 + 2j])
    with pytest.raises(TypeError, match="dtype complex128"):
        mlio.save(est, tmp_path / "x")

    class NotRegistered(StandardScaler):
        pass

    with pytest.raises(KeyError, match="not registered"):
        mlio.save(NotRegistered(), tmp_path / "y")
