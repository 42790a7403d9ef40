"""Input validation at the edges of every estimator: clear errors for shapes, dtypes, NaN/inf, labels."""

from __future__ import annotations

import numpy as np

from .constraints import RANDOM_STATE, check_value, positive_int


def is_missing(X) -> np.ndarray:
    """Boolean mask of missing entries: NaN in float arrays, None or NaN in object arrays."""
    X = np.asarray(X)
    if X.dtype.kind == "f":
        return np.isnan(X)
    if X.dtype.kind == "O":  # two element-wise comparisons in numpy's loop: 3x faster than a Python callback
        return np.asarray(X == None) | np.asarray(X != X)  # noqa: E711 (element-wise), NaN != NaN
    return np.zeros(X.shape, dtype=bool)


def check_shape(arr: np.ndarray, ndim, name: str, meaning: str = "") -> np.ndarray:
    """arr has one of the allowed numbers of dimensions (`ndim`: an int or a tuple) and at least one row."""
    allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    if arr.ndim not in allowed:
        expected = " or ".join(f"{d}-D" for d in allowed)
        raise ValueError(f"{name} must be {expected}{f' ({meaning})' if meaning else ''}, got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty (no rows)")
    return arr


def check_rows(**arrays) -> int:
    """The arrays (anything with a length) describe the same rows as the first; returns their number."""
    (first, n), *others = ((name, len(a)) for name, a in arrays.items())
    for name, m in others:
        if m != n:
            raise ValueError(f"{name} has {m} entries, expected {n} (one per row of {first})")
    return n


def check_array(X, *, dtype=np.float64, allow_nan: bool = False, ndim=2, name: str = "X") -> np.ndarray:
    """X as a C-contiguous array of `dtype` (None keeps the dtype) with `ndim` dimensions (None: any) and rows,
    finite (NaN allowed when `allow_nan`)."""
    try:
        X = np.asarray(X, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} cannot be converted to {np.dtype(dtype).name}: {exc}") from None
    check_shape(X, X.ndim if ndim is None else ndim, name, "n_samples, n_features" if ndim == 2 else "")
    if X.dtype.kind == "f":
        bad = ~np.isfinite(X)
        if allow_nan:
            bad &= ~np.isnan(X)
        if bad.any():
            first = [int(i[0]) for i in np.nonzero(bad)]
            where = (
                f"row {first[0]}, column {first[1]}"
                if len(first) == 2
                else f"index {first[0] if len(first) == 1 else tuple(first)}"
            )
            what = "NaN or inf" if not allow_nan else "inf"
            raise ValueError(
                f"{name} contains {what} ({bad.sum()} entries, first at {where}); impute or drop them first"
            )
    return np.ascontiguousarray(X)


def check_X_y(X, y, *, allow_nan: bool = False, y_numeric: bool = False) -> tuple[np.ndarray, np.ndarray]:
    X = check_array(X, allow_nan=allow_nan)
    y = check_array(y, ndim=1, name="y") if y_numeric else check_shape(np.asarray(y), 1, "y", "one label per row")
    check_rows(X=X, y=y)
    return X, y


def check_sample_weight(sample_weight, n_samples: int) -> np.ndarray:
    """Weights as a float array of length n_samples (ones when None); non-negative with a positive sum."""
    if sample_weight is None:
        return np.ones(n_samples)
    w = check_1d(np.asarray(sample_weight, dtype=np.float64), "sample_weight", n_samples)
    if not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise ValueError("sample_weight must be finite, non-negative and not all zero")
    return w


def check_labels(y, name: str = "y") -> np.ndarray:
    """Class labels: 1-D, one per row, none missing (NaN / None) or infinite."""
    y = check_shape(np.asarray(y), 1, name, "one label per row")
    if is_missing(y).any() or (y.dtype.kind == "f" and not np.isfinite(y).all()):
        raise ValueError(
            f"{name} contains missing (NaN / None) or infinite labels; a classifier needs a label for every row"
        )
    return y


def check_two_classes(classes: np.ndarray, name: str = "y") -> np.ndarray:
    """The distinct labels a classifier learns: at least two."""
    if classes.size < 2:
        raise ValueError(f"{name} has a single class {classes.tolist()}; a classifier needs at least two")
    return classes


def check_class_totals(totals: np.ndarray) -> np.ndarray:
    """Each class's total sample weight: every class needs a positive one (its mean and prior divide by it)."""
    if (totals <= 0).any():
        raise ValueError(f"every class needs positive total sample_weight, got {totals.tolist()}")
    return totals


def check_width(A: np.ndarray, expected: int, name: str, fitted: str, unit: str = "columns") -> None:
    """A has the `expected` columns (features, classes, folds) that `fitted` was fitted with."""
    if A.shape[1] != expected:
        raise ValueError(f"{name} has {A.shape[1]} {unit}, but {fitted} was fitted with {expected}")


def check_n_features(estimator, X: np.ndarray) -> None:
    """At predict / transform time X must have as many columns as at fit time."""
    check_width(X, estimator.n_features_in_, "X", type(estimator).__name__, "features")


def check_int(value, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    """value as a Python int in [minimum, maximum] (bools refused: True is not a count)."""
    check_value("", name, value, positive_int(minimum, maximum))
    return int(value)


def check_random_state(random_state) -> np.random.Generator:
    """A numpy Generator from an int seed, a Generator, or None (fresh entropy: not reproducible)."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    check_value("", "random_state", random_state, RANDOM_STATE)
    return np.random.default_rng(random_state)


def check_1d(values, name: str, n_samples: int | None = None) -> np.ndarray:
    """values as a non-empty 1-D array (dtype kept: labels and group ids may be strings)."""
    arr = check_shape(np.asarray(values), 1, name, "one value per sample")
    if n_samples is not None and arr.shape[0] != n_samples:
        check_rows(**{"the data": range(n_samples), name: arr})
    return arr


def check_binary_labels(y, name: str = "y", n_samples: int | None = None) -> np.ndarray:
    """y as a boolean "is positive" mask; y must hold labels {0, 1} (bools, ints, floats or objects).
    Strings are refused, even "0" and "1": numpy would otherwise compare them silently as unequal."""
    y = check_1d(y, name, n_samples)
    if y.dtype.kind == "b":
        return y
    comparable = y.dtype.kind in "iufO"  # strings never equal 0 or 1: every one of them is refused
    is_one = y == 1 if comparable else np.zeros(y.shape, dtype=bool)
    bad = ~(is_one | (y == 0)) if comparable else np.ones(y.shape, dtype=bool)
    if bad.any():
        try:
            shown = np.unique(y[bad])[:5].tolist()
        except TypeError:  # object arrays mixing types cannot be sorted
            shown = list(dict.fromkeys(y[bad].tolist()))[:5]
        raise ValueError(
            f"{name} must be binary with labels {{0, 1}} (1 = positive), but contains {shown} (dtype {y.dtype}); "
            "encode the positive class as 1 and everything else as 0"
        )
    return np.asarray(is_one, dtype=bool)


def safe_divide(numerator, denominator):
    """numerator / denominator as float64 with nan ("undefined") where the denominator is 0, never a silent 0.
    A Python float when both inputs are scalars, else an array."""
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    out = np.full(np.broadcast_shapes(num.shape, den.shape), np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return float(out) if out.ndim == 0 else out


def to_python(value):
    """numpy scalars as plain Python values (for messages, JSON and MLflow)."""
    return value.item() if isinstance(value, np.generic) else value


def check_scores(scores, name: str = "scores") -> np.ndarray:
    """scores as a finite 1-D float64 array (one real score per sample)."""
    arr = np.asarray(scores)
    hint = f"; for predict_proba output pass {name}[:, 1]" if arr.ndim == 2 and arr.shape[1] == 2 else ""
    check_shape(arr, 1, name, f"one score per sample{hint}")
    return check_array(arr, ndim=1, name=name)


def check_unit_interval(p: np.ndarray, name: str) -> np.ndarray:
    if p.min() < 0.0 or p.max() > 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got values in [{p.min()}, {p.max()}]")
    return p


def check_probabilities(proba, name: str = "proba") -> np.ndarray:
    """proba as a finite 1-D float64 array of positive-class probabilities in [0, 1]."""
    return check_unit_interval(check_scores(proba, name), name)


def check_posteriors(proba, name: str = "proba") -> np.ndarray:
    """(n, K >= 2) class posteriors, rows in [0, 1] summing to 1 within 1e-6; a 1-D array is p(y = 1) of a binary
    task and comes back as its two columns."""
    p = check_unit_interval(check_array(proba, ndim=(1, 2), name=name), name)
    if p.ndim == 1:
        return np.column_stack([1.0 - p, p])
    if p.shape[1] < 2:
        raise ValueError(f"{name} needs one column per class (K >= 2), got shape {p.shape}; pass p(y = 1) as 1-D")
    error = np.abs(p.sum(axis=1) - 1.0)
    if (error > 1e-6).any():
        row = int(np.argmax(error))
        raise ValueError(f"rows of {name} must sum to 1 (posteriors); row {row} sums to {p[row].sum()}")
    return p


def check_class_indices(y, n_classes: int, name: str = "y", of: str = "proba") -> np.ndarray:
    """y as int64 class indices 0..n_classes-1 (the columns of `of`), one per row; 1.0 is class 1, 0.5 no class."""
    y = check_1d(y, name)
    valid = (y >= 0) & (y < n_classes) & (y == np.round(y)) if y.dtype.kind in "biuf" else np.zeros(y.shape, bool)
    if not valid.all():
        shown = np.unique(y[~valid])[:5].tolist()
        raise ValueError(f"{name} must hold class indices 0..{n_classes - 1} (the columns of {of}), got {shown}")
    return y.astype(np.int64)


def check_column_indices(indices, n_columns: int, name: str) -> list[int]:
    """indices (one or a sequence) as a list of int column indices of a matrix with n_columns columns."""
    items = [indices] if np.isscalar(indices) else list(indices)
    integral = all(isinstance(c, (int, np.integer)) and not isinstance(c, (bool, np.bool_)) for c in items)
    if not integral or not all(0 <= c < n_columns for c in items):
        raise ValueError(f"{name} must be column indices in [0, {n_columns}) of X, got {indices!r}")
    return [int(c) for c in items]


def lookup(registry, key, what: str):
    """registry[key], or a ValueError naming what was asked for and what there is."""
    try:
        return registry[key]
    except (KeyError, TypeError):
        raise ValueError(f"unknown {what} {key!r}; choose from {sorted(registry)}") from None


def check_groups(groups, n_samples: int, name: str = "groups") -> np.ndarray:
    """groups as a 1-D array of hashable, mutually sortable values with no missing entries."""
    g = check_1d(groups, name, n_samples)
    missing = is_missing(g)
    if missing.any():
        raise ValueError(
            f"{name} contains {int(missing.sum())} missing values (None/NaN); give them an explicit category, "
            "a fairness report must not drop rows silently"
        )
    return g
