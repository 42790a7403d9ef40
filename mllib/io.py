"""Safe persistence: `save(est, path)` writes `<path>.json` (class, hyperparameters, fitted scalars, version)
and `<path>.npz` (numeric arrays). No pickle: loading never executes code, only classes in mllib.registry
are rebuilt, and every array named in the JSON (with its shape and dtype) must match the .npz exactly.
"""

from __future__ import annotations

import io
import json
import math
import os
import zipfile
from pathlib import Path

import numpy as np

from . import __version__
from .base import BaseEstimator, lookup
from .registry import loadable, name_of

FORMAT = "mllib-estimator"
FORMAT_VERSION = 2  # 2: every array node records its shape and dtype
_EPOCH = (1980, 1, 1, 0, 0, 0)  # fixed zip timestamps: identical models give identical bytes


def _stem(path) -> Path:
    path = Path(path)
    return path.with_suffix("") if path.suffix in (".json", ".npz") else path


def _with_ext(stem: Path, ext: str) -> Path:
    return stem.with_name(stem.name + ext)  # not with_suffix: "lr.lam0.1" must not become "lr.json"


def _fitted_attributes(est: BaseEstimator) -> dict:
    return {k: v for k, v in sorted(vars(est).items()) if k.endswith("_") and not k.startswith("_")}


def _encode(value, arrays: dict, key: str):
    if isinstance(value, BaseEstimator):
        return {
            "__estimator__": name_of(type(value)),
            "params": {k: _encode(v, arrays, f"{key}.{k}") for k, v in value.get_params(deep=False).items()},
            "fitted": {k: _encode(v, arrays, f"{key}.{k}") for k, v in _fitted_attributes(value).items()},
        }
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "biuf":
            arrays[key] = value
            return {"__array__": key, "shape": list(value.shape), "dtype": value.dtype.str}
        if value.dtype.kind in "OU":
            items = value.ravel().tolist()
            if not all(v is None or isinstance(v, (str, bool, int, float)) for v in items):
                raise TypeError(f"cannot save {key}: object array holds values that are not str/int/float/bool/None")
            return {
                "__object_array__": [_encode(v, arrays, key) for v in items],
                "shape": list(value.shape),
                "dtype": value.dtype.str if value.dtype.kind == "U" else "object",
            }
        raise TypeError(f"cannot save {key}: arrays of dtype {value.dtype} are not supported")
    if isinstance(value, np.generic):
        return _encode(value.item(), arrays, key)
    if isinstance(value, float) and not math.isfinite(value):
        return {"__float__": repr(value)}
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v, arrays, f"{key}.{i}") for i, v in enumerate(value)]}
    if isinstance(value, list):
        return [_encode(v, arrays, f"{key}.{i}") for i, v in enumerate(value)]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"__dict__": {k: _encode(v, arrays, f"{key}.{k}") for k, v in value.items()}}
    raise TypeError(f"cannot save {key}: values of type {type(value).__name__} are not supported")


class _Arrays:
    """The arrays of one .npz file, handed out only with the shape and dtype its JSON recorded."""

    def __init__(self, arrays: dict, npz_path, json_path):
        self.arrays = arrays
        self.npz_path, self.json_path = npz_path, json_path
        self.used: set = set()

    @classmethod
    def read(cls, npz_path: Path, json_path: Path) -> _Arrays:
        with np.load(npz_path, allow_pickle=False) as npz:
            return cls({k: npz[k] for k in npz.files}, npz_path, json_path)

    def take(self, key: str, shape: tuple, dtype: np.dtype) -> np.ndarray:
        found = self.arrays.get(key)
        if found is None or found.shape != shape or found.dtype != dtype:
            held = "missing from the .npz file" if found is None else f"of shape {found.shape}, dtype {found.dtype}"
            raise ValueError(
                f"{self.npz_path}: array {key!r} is {held}, but {self.json_path} expects shape {shape} and dtype "
                f"{dtype}; the two files come from different models, save it again"
            )
        self.used.add(key)
        return found

    def unused(self) -> list:
        return sorted(set(self.arrays) - self.used)


def _decode(node, store: _Arrays):
    if isinstance(node, list):
        return [_decode(v, store) for v in node]
    if not isinstance(node, dict):
        return node
    if "__estimator__" in node:
        classes = loadable()
        name = node["__estimator__"]
        lookup(classes, name, "class (loading is refused: only mllib.registry's classes load)")
        unknown = sorted(set(node["params"]) - set(classes[name]._param_names()))
        if unknown:
            raise ValueError(
                f"{store.json_path}: {name} was saved with parameters {unknown} that this version of mllib's {name} "
                "does not take; fit and save the model again with this version (in the pipeline: dvc repro)"
            )
        est = classes[name](**{k: _decode(v, store) for k, v in node["params"].items()})
        for k, v in node["fitted"].items():
            if not (k.endswith("_") and not k.startswith("_")):
                raise ValueError(f"invalid fitted attribute name {k!r} for {name}")
            setattr(est, k, _decode(v, store))
        return est
    if "__array__" in node:
        return store.take(node["__array__"], tuple(node["shape"]), np.dtype(node["dtype"]))
    if "__object_array__" in node:
        values = [_decode(v, store) for v in node["__object_array__"]]
        dtype = object if node["dtype"] == "object" else np.dtype(node["dtype"])
        out = np.empty(len(values), dtype=dtype)
        out[:] = values
        return out.reshape(node["shape"])
    if "__float__" in node:
        return float(node["__float__"])
    if "__tuple__" in node:
        return tuple(_decode(v, store) for v in node["__tuple__"])
    if "__dict__" in node:
        return {k: _decode(v, store) for k, v in node["__dict__"].items()}
    raise ValueError(f"unrecognised node in model file: {sorted(node)}")


def _write_npz(path: Path, arrays: dict) -> None:
    """An uncompressed .npz whose bytes depend only on the arrays: fixed timestamps, sorted members, and
    sizes known before writing (streamed members get zip64 headers that differ between Python releases)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as zf:
        for key in sorted(arrays):
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.ascontiguousarray(arrays[key]), allow_pickle=False)
            zf.writestr(zipfile.ZipInfo(f"{key}.npy", date_time=_EPOCH), buffer.getvalue())


def _document(estimator: BaseEstimator) -> tuple[dict, dict]:
    arrays: dict = {}
    doc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "mllib_version": __version__,
        "estimator": _encode(estimator, arrays, "root"),
    }
    return doc, arrays


def to_state(estimator: BaseEstimator) -> tuple[str, dict]:
    """What `save` writes, in memory: (JSON text, {name: numeric array}). A worker process returns a fitted model
    this way: text and arrays cross the process boundary, never a pickled object."""
    doc, arrays = _document(estimator)
    return json.dumps(doc, sort_keys=True), arrays


def from_state(text: str, arrays: dict) -> BaseEstimator:
    """The estimator of a to_state pair, checked as `load` checks files."""
    return _rebuild(json.loads(text), _Arrays(dict(arrays), "the state's arrays", "the state's JSON"))


def _rebuild(doc: dict, store: _Arrays) -> BaseEstimator:
    if doc.get("format") != FORMAT or doc.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"{store.json_path} is not an mllib model file of format version {FORMAT_VERSION} (found "
            f"{doc.get('format')!r} version {doc.get('format_version')!r}); save the model again"
        )
    estimator = _decode(doc["estimator"], store)
    extra = store.unused()
    if extra:
        raise ValueError(
            f"{store.npz_path} holds arrays {extra[:5]} that {store.json_path} does not name; the pair does not match"
        )
    return estimator


def save(estimator: BaseEstimator, path) -> tuple[Path, Path]:
    """Write `<path>.json` and `<path>.npz` atomically (temporary files, then rename); return both paths."""
    stem = _stem(path)
    doc, arrays = _document(estimator)
    json_path, npz_path = _with_ext(stem, ".json"), _with_ext(stem, ".npz")
    json_path.parent.mkdir(parents=True, exist_ok=True)
    tmp_json, tmp_npz = json_path.with_name(json_path.name + ".tmp"), npz_path.with_name(npz_path.name + ".tmp")
    tmp_json.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    _write_npz(tmp_npz, arrays)
    os.replace(tmp_npz, npz_path)
    os.replace(tmp_json, json_path)
    return json_path, npz_path


def load(path) -> BaseEstimator:
    """Rebuild an estimator saved by `save`; raises ValueError on unknown classes or arrays that are missing,
    extra, or of another shape or dtype than the JSON records."""
    stem = _stem(path)
    json_path, npz_path = _with_ext(stem, ".json"), _with_ext(stem, ".npz")
    try:
        doc = json.loads(json_path.read_text())
    except FileNotFoundError:
        raise FileNotFoundError(f"model file {json_path} does not exist") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"model file {json_path} is not valid JSON: {exc}") from None
    return _rebuild(doc, _Arrays.read(npz_path, json_path))
