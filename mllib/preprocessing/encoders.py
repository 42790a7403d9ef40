"""One-hot encoding: one 0/1 column per category, with the category list fixed at fit time.

Seed 004, D4:803 (OrdinalEncoder / OneHotEncoder) and seed 003, D3:101-110 (labels -> one-hot float matrix;
the category list is declared, so a category absent from a fold still gets its column).
"""
from __future__ import annotations

import numpy as np

from ..base import BaseEstimator, TransformerMixin, check_array, check_is_fitted, check_n_features, is_missing

UNKNOWN_POLICIES = ("ignore", "error")


class OneHotEncoder(TransformerMixin, BaseEstimator):
    """Encode each column's categories as indicator columns `<name>=<category>`.

    categories: "auto" (sorted values seen at fit) or a list with one list of categories per column.
    handle_unknown: "ignore" encodes a category unseen at fit as all zeros; "error" raises.
    Missing values must be imputed first (they are not a category).
    """

    def __init__(self, categories="auto", handle_unknown: str = "ignore"):
        self.categories = categories
        self.handle_unknown = handle_unknown

    def _validate(self, X):
        if self.handle_unknown not in UNKNOWN_POLICIES:
            raise ValueError(f"handle_unknown must be one of {UNKNOWN_POLICIES}, got {self.handle_unknown!r}")
        X = check_array(X, dtype=None)
        if is_missing(X).any():
            col = int(np.flatnonzero(is_missing(X).any(axis=0))[0])
            raise ValueError(f"column {col} has missing values; impute categorical columns before one-hot encoding")
        return X

    def fit(self, X, y=None):
        X = self._validate(X)
        self.n_features_in_ = X.shape[1]
        if isinstance(self.categories, str):
            if self.categories != "auto":
                raise ValueError(f"categories must be 'auto' or a list of lists, got {self.categories!r}")
            self.categories_ = [np.unique(X[:, j]) for j in range(X.shape[1])]
        else:
            if len(self.categories) != X.shape[1]:
                raise ValueError(f"categories lists {len(self.categories)} columns but X has {X.shape[1]}")
            self.categories_ = [np.asarray(c, dtype=object if X.dtype.kind == "O" else None) for c in self.categories]
            for j, cats in enumerate(self.categories_):
                unseen = np.setdiff1d(X[:, j], cats)
                if unseen.size:
                    raise ValueError(f"column {j} has values {unseen[:5].tolist()} not in the declared categories")
        return self

    def transform(self, X):
        check_is_fitted(self)
        X = self._validate(X)
        check_n_features(self, X)
        blocks = []
        for j, cats in enumerate(self.categories_):
            indicator = X[:, j][:, None] == cats[None, :]
            unknown = ~indicator.any(axis=1)
            if unknown.any() and self.handle_unknown == "error":
                values = np.unique(X[unknown, j])[:5].tolist()
                raise ValueError(f"column {j} has categories {values} unseen at fit time (handle_unknown='error')")
            blocks.append(indicator.astype(np.float64))
        return np.hstack(blocks) if blocks else np.empty((X.shape[0], 0))

    def get_feature_names_out(self, input_names):
        check_is_fitted(self)
        return [f"{name}={cat}" for name, cats in zip(input_names, self.categories_) for cat in cats.tolist()]
