"""Explicit feature maps (basis expansions) phi(x), so that a linear model f(x) = phi(x)^T beta is non-linear in x.

Seed 002, lines 360-417 (2:5-2:8): polynomial features (378-383), piece-wise features with knots xi (391-397),
radial basis functions phi_j(x) = exp(-||x - c_j||^2 / 2) around centres c_j, with "all training inputs as centres"
as the special case (401-417). What the notes leave open is fixed here and fitted on the training rows only:
the knots are quantiles of each training column, the RBF centres are training rows, and the RBF width is a
parameter (phi_j(x) = exp(-||x - c_j||^2 / (2 width^2)); the notes' formula is width 1).

Sections cited: Machine Learning lecture notes (seed 002): Example: Polynomial features (378); Example: Piece-wise
    features (391); Example: Radial Basis Functions (RBF) (401)"""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement

import numpy as np
from scipy.spatial.distance import cdist

from ..base import BaseEstimator, TransformerMixin, check_array, check_fitted_X, check_is_fitted, check_random_state
from ..base.constraints import BOOLEAN, OPTIONAL, POSITIVE, RANDOM_STATE, Options, check_hyperparameters, positive_int


class PolynomialFeatures(TransformerMixin, BaseEstimator):
    """All monomials of total degree <= degree, in scikit-learn's order: the bias 1, then degree 1 (x_0 .. x_{d-1}),
    then degree 2 (x_0^2, x_0 x_1, ..., x_{d-1}^2), ..., each degree in lexicographic order of the index tuples
    (seed 002, lines 378-383: 1 + d + d(d+1)/2 columns for degree 2).

    Parameters
    ----------
    degree : int, default 2
        Largest total degree.
    interaction_only : bool, default False
        Only products of distinct columns (no powers x_j^2, ...).
    include_bias : bool, default True
        Put the constant 1 column first.

    Attributes
    ----------
    powers_ : ndarray of shape (n_output, n_features)
        The exponent of each input in each output column.
    """

    _constraints = {"degree": positive_int(), "interaction_only": BOOLEAN, "include_bias": BOOLEAN}

    def __init__(self, degree: int = 2, interaction_only: bool = False, include_bias: bool = True):
        self.degree = degree
        self.interaction_only = interaction_only
        self.include_bias = include_bias

    def fit(self, X, y=None):
        check_hyperparameters(self)
        degree = self.degree
        X = check_array(X)
        d = X.shape[1]
        self.n_features_in_ = d
        choose = combinations if self.interaction_only else combinations_with_replacement
        terms = [()] if self.include_bias else []
        for k in range(1, degree + 1):
            terms.extend(choose(range(d), k))
        powers = np.zeros((len(terms), d), dtype=np.int64)
        for row, term in enumerate(terms):
            np.add.at(powers[row], list(term), 1)
        self.powers_ = powers
        return self

    def transform(self, X):
        X = check_fitted_X(self, X)
        out = np.empty((X.shape[0], self.powers_.shape[0]))
        for col, p in enumerate(self.powers_):
            used = np.flatnonzero(p)
            out[:, col] = np.prod(X[:, used] ** p[used], axis=1) if used.size else 1.0
        return out

    def get_feature_names_out(self, input_names):
        check_is_fitted(self)
        names = list(input_names)
        out = []
        for p in self.powers_:
            used = np.flatnonzero(p)
            out.append(" ".join(names[j] if p[j] == 1 else f"{names[j]}^{p[j]}" for j in used) if used.size else "1")
        return out


class RBFFeatures(TransformerMixin, BaseEstimator):
    """phi_j(x) = exp(-||x - c_j||^2 / (2 width^2)), one Gaussian bump per centre c_j (seed 002, lines 401-417).

    Parameters
    ----------
    n_centers : int or None, default 100
        None uses every training row as a centre (the notes' special case, n features); an int k uses k distinct
        training rows drawn at random, all of them if the training set is smaller.
    width : float, default 1.0
        The bump's standard deviation in input units (scale the inputs first: one width serves all columns).
    include_bias : bool, default False
        Put the constant 1 in front (the notes' special case has it; their demos use -rbfBias 0).
    random_state : int, Generator or None, default 0
        Seeds the centres drawn.

    Attributes
    ----------
    centers_ : ndarray of shape (k, n_features)
        The centres c_j.
    """

    _constraints = {
        "n_centers": [OPTIONAL, positive_int()],
        "width": POSITIVE,
        "include_bias": BOOLEAN,
        "random_state": RANDOM_STATE,
    }

    def __init__(self, n_centers: int | None = 100, width: float = 1.0, include_bias: bool = False, random_state=0):
        self.n_centers = n_centers
        self.width = width
        self.include_bias = include_bias
        self.random_state = random_state

    def fit(self, X, y=None):
        check_hyperparameters(self)
        X = check_array(X)
        self.n_features_in_ = X.shape[1]
        n = X.shape[0]
        if self.n_centers is None or self.n_centers >= n:
            self.centers_ = X.copy()
        else:
            rows = np.sort(check_random_state(self.random_state).choice(n, size=int(self.n_centers), replace=False))
            self.centers_ = X[rows]
        return self

    def transform(self, X):
        X = check_fitted_X(self, X)
        phi = np.exp(-cdist(X, self.centers_, "sqeuclidean") / (2.0 * float(self.width) ** 2))
        return np.hstack([np.ones((X.shape[0], 1)), phi]) if self.include_bias else phi

    def get_feature_names_out(self, input_names):
        check_is_fitted(self)
        return (["1"] if self.include_bias else []) + [f"rbf{j}" for j in range(self.centers_.shape[0])]


KINDS = ("hinge", "linear", "constant")


class PiecewiseFeatures(TransformerMixin, BaseEstimator):
    """Per column, knots xi_1 < ... < xi_K at the empirical quantiles 1/(n_knots+1), ..., n_knots/(n_knots+1) of the
    training values (each knot is a training value: the smallest x with F(x) >= q; duplicates, and knots at the
    column's minimum or maximum, are dropped, so a binary column gets none), and one of the notes' bases (seed 002,
    lines 391-397) on the K + 1 pieces (-inf, xi_1], (xi_1, xi_2], ..., (xi_K, inf). The notes write open intervals
    xi_1 < x < xi_2; closing them on the right puts a value at a knot in exactly one piece. Each column gives K + 1
    outputs, in column order.

    Parameters
    ----------
    n_knots : int, default 3
        Knots per column (before duplicates are dropped).
    kind : {"hinge", "linear", "constant"}, default "hinge"
        "hinge" (continuous piece-wise linear): x, (x - xi_1)_+, ..., (x - xi_K)_+; "linear" (piece-wise linear): x * [x
        in piece m] for each piece m; "constant" (piece-wise constant): [x in piece m] for each piece m.

    Attributes
    ----------
    knots_ : list of ndarray
        One sorted array of knots per input column.
    """

    _constraints = {"n_knots": positive_int(), "kind": Options(KINDS)}

    def __init__(self, n_knots: int = 3, kind: str = "hinge"):
        self.n_knots = n_knots
        self.kind = kind

    def fit(self, X, y=None):
        check_hyperparameters(self)
        n_knots = self.n_knots
        X = check_array(X)
        self.n_features_in_ = X.shape[1]
        levels = np.arange(1, n_knots + 1) / (n_knots + 1)
        self.knots_ = []
        for column in X.T:
            knots = np.unique(np.quantile(column, levels, method="inverted_cdf"))
            self.knots_.append(knots[(knots > column.min()) & (knots < column.max())])
        return self

    def transform(self, X):
        X = check_fitted_X(self, X)
        blocks = []
        for x, knots in zip(X.T, self.knots_):
            if self.kind == "hinge":
                blocks.append(np.column_stack([x, np.maximum(x[:, None] - knots[None, :], 0.0)]))
                continue
            piece = np.searchsorted(knots, x, side="left")  # knots[m-1] < x <= knots[m]
            indicator = (piece[:, None] == np.arange(knots.size + 1)[None, :]).astype(np.float64)
            blocks.append(indicator * x[:, None] if self.kind == "linear" else indicator)
        return np.hstack(blocks)

    def get_feature_names_out(self, input_names):
        check_is_fitted(self)
        out = []
        for name, knots in zip(input_names, self.knots_):
            if self.kind == "hinge":
                out += [name] + [f"({name}-{k:.6g})+" for k in knots]
                continue
            edges = [-np.inf, *knots.tolist(), np.inf]
            for lo, hi in zip(edges[:-1], edges[1:]):
                piece = f"[{lo:.6g}<{name}<={hi:.6g}]"
                out.append(f"{name}*{piece}" if self.kind == "linear" else piece)
        return out
