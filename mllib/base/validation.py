"""Input validation at the edges of every estimator: clear errors for shapes, dtypes, NaN/inf, labels."""

from __future__ import annotations

import numpy as np


def is_missing(X) -> np.ndarray:
    """Boolean mask of missing entries: NaN in float arrays, None or NaN in object arrays."""
    X = np.asarray(X)
    if X.dtype.kind == "f":
        return np.isnan(X)
    if X.dtype.kind == "O":  # two element-wise comparisons in numpy's loop: 3x faster than a Python callback
        return np.asarray(X == None) | np.asarray(X != X)  # noqa: E711 (element-wise), NaN != NaN
    return np.zeros(X.shape, dtype=bool)


def check_array(X, *, dtype=np.float64, allow_nan: bool = False, ensure_2d: bool = True, name: str = "X") -> np.ndarray:
    """Return X as a C-contiguous array of `dtype` (None keeps the dtype), checking shape and finiteness."""
    try:
        X = np.asarray(X, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} cannot be converted to {np.dtype(dtype).name}: {exc}") from None
    if ensure_2d and X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got shape {X.shape}")
    if X.shape[0] == 0:
        raise ValueError(f"{name} has no rows")
    if X.dtype.kind == "f":
        bad = ~np.isfinite(X)
        if allow_nan:
            bad &= ~np.isnan(X)
        if bad.any():
            rows, cols = np.nonzero(bad if bad.ndim == 2 else bad[:, None])
            what = "NaN or inf" if not allow_nan else "inf"
            raise ValueError(
                f"{name} contains {what} ({bad.sum()} entries, first at row {rows[0]}, column {cols[0]}); "
                "impute or drop them before this estimator"
            )
    return np.ascontiguousarray(X)


def check_X_y(X, y, *, allow_nan: bool = False, y_numeric: bool = False) -> tuple[np.ndarray, np.ndarray]:
    X = check_array(X, allow_nan=allow_nan)
    y = np.asarray(y, dtype=np.float64 if y_numeric else None)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
    if y_numeric and not np.isfinite(y).all():
        raise ValueError("y contains NaN or inf")
    return X, y


def check_sample_weight(sample_weight, n_samples: int) -> np.ndarray:
    """Weights as a float array of length n_samples (ones when None); non-negative with a positive sum."""
    if sample_weight is None:
        return np.ones(n_samples)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n_samples,):
        raise ValueError(f"sample_weight must have shape ({n_samples},), got {w.shape}")
    if not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise ValueError("sample_weight must be finite, non-negative and not all zero")
    return w


def check_n_features(estimator, X: np.ndarray) -> None:
    """At predict / transform time X must have as many columns as at fit time."""
    if X.shape[1] != estimator.n_features_in_:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(estimator).__name__} was fitted with {estimator.n_features_in_}"
        )


def check_int(value, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    """value as a Python int in [minimum, maximum] (bools refused: True is not a count)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, np.integer))
        or value < minimum
        or (maximum is not None and value > maximum)
    ):
        rule = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
        raise ValueError(f"{name} must be an integer {rule}, got {value!r}")
    return int(value)


def check_random_state(random_state) -> np.random.Generator:
    """A numpy Generator from an int seed, a Generator, or None (fresh entropy: not reproducible)."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return np.random.default_rng(random_state)
    raise ValueError(f"random_state must be an int, a numpy Generator or None, got {random_state!r}")


def check_1d(values, name: str, n_samples: int | None = None) -> np.ndarray:
    """values as a non-empty 1-D array (dtype kept: labels and group ids may be strings)."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one value per sample), got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    if n_samples is not None and arr.shape[0] != n_samples:
        raise ValueError(f"{name} has {arr.shape[0]} entries, expected {n_samples}")
    return arr


def check_binary_labels(y, name: str = "y", n_samples: int | None = None) -> np.ndarray:
    """y as a boolean "is positive" mask; y must hold labels {0, 1} (bools, ints, floats or objects).
    Strings are refused, even "0" and "1": numpy would otherwise compare them silently as unequal."""
    y = check_1d(y, name, n_samples)
    if y.dtype.kind == "b":
        return y
    if y.dtype.kind not in "iufO":
        raise ValueError(f"{name} must be binary with labels {{0, 1}} (1 = positive), got dtype {y.dtype}")
    is_one = y == 1
    bad = ~(is_one | (y == 0))
    if bad.any():
        try:
            shown = np.unique(y[bad])[:5].tolist()
        except TypeError:  # object arrays mixing types cannot be sorted
            shown = list(dict.fromkeys(y[bad].tolist()))[:5]
        raise ValueError(
            f"{name} must be binary with labels {{0, 1}} (1 = positive), but contains {shown}; "
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
    if arr.ndim != 1:
        hint = f"; for predict_proba output pass {name}[:, 1]" if arr.ndim == 2 and arr.shape[1] == 2 else ""
        raise ValueError(f"{name} must be 1-D (one score per sample), got shape {arr.shape}{hint}")
    return check_array(arr, ensure_2d=False, name=name)


def check_probabilities(proba, name: str = "proba") -> np.ndarray:
    """proba as a finite 1-D float64 array of positive-class probabilities in [0, 1]."""
    p = check_scores(proba, name)
    if p.min() < 0.0 or p.max() > 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got values in [{p.min()}, {p.max()}]")
    return p


def check_groups(groups, n_samples: int, name: str = "groups") -> np.ndarray:
    """groups as a 1-D array of hashable, mutually sortable values with no missing entries."""
    g = np.asarray(groups)
    if g.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one group value per sample), got shape {g.shape}")
    if g.shape[0] != n_samples:
        raise ValueError(f"{name} has {g.shape[0]} entries, expected {n_samples} (same as y_true)")
    missing = is_missing(g)
    if missing.any():
        raise ValueError(
            f"{name} contains {int(missing.sum())} missing values (None/NaN); give them an explicit category, "
            "a fairness report must not drop rows silently"
        )
    return g
