"""Classical (Torgerson) multidimensional scaling, with Gower's formula to place new points.

Seed 001, lines 244-257: find points y_i in 1-3 dimensions whose distances d_ij preserve the dissimilarities
delta_ij (judged by the stress sum (d_ij - delta_ij)^2 / sum delta_ij^2). Classical MDS solves this in closed form:
double-centre the squared dissimilarities, B = -1/2 J D^2 J with J = I - 11^T/n, and take Y = V_k Lambda_k^{1/2} from
the k largest eigenpairs of B (eigh). For Euclidean dissimilarities B is the Gram matrix of the centred data, so the
embedding preserves all distances when k >= the data's rank, and equals the PCA scores up to sign.
A new point with squared dissimilarities a (n,) to the training points is placed by Gower's (landmark-MDS) formula
y = 1/2 Lambda_k^{-1/2} V_k^T (colmean(D^2) - a), which reproduces Y exactly on the training points.
Memory is O(n^2): fit on at most a few thousand rows.

Sections cited: CS 276 course review (seed 001): 3.4 Multi-dimentional Scaling (MDS) (255)"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from ..base import BaseEstimator, TransformerMixin, check_array, check_fitted_X, check_within_data
from ..base.constraints import Options, check_hyperparameters, positive_int

DISSIMILARITIES = ("euclidean", "precomputed")


def _squared_euclidean(A, B):
    D = np.einsum("ij,ij->i", A, A)[:, None] - 2.0 * (A @ B.T) + np.einsum("ij,ij->i", B, B)
    return np.maximum(D, 0.0)


def stress(D_embedded, D_original):
    """Normalised stress sum (d_ij - delta_ij)^2 / sum delta_ij^2 of two distance matrices (seed 001, line 255)."""
    D_embedded, D_original = np.asarray(D_embedded, float), np.asarray(D_original, float)
    return float(np.sum((D_embedded - D_original) ** 2) / np.sum(D_original**2))


class ClassicalMDS(TransformerMixin, BaseEstimator):
    """Classical MDS: the embedding whose inner products best match the double-centred squared dissimilarities.
    Only eigenvalues > 0 carry a Euclidean embedding: asking for more components than B has positive eigenvalues is
    an error.

    Parameters
    ----------
    n_components : int, default 2
        Dimensions of the embedding.
    dissimilarity : {"euclidean", "precomputed"}, default "euclidean"
        "euclidean": fit / transform take feature rows (the training rows are kept to measure new points against them);
        "precomputed": fit takes an (n, n) symmetric dissimilarity matrix, transform an (m, n) matrix of dissimilarities
        from new points to the n training points.

    Attributes
    ----------
    embedding_ : ndarray of shape (n, k)
        The training points' coordinates.
    eigenvalues_ : ndarray of shape (k,)
        The k largest eigenvalues of B, decreasing.
    eigenvectors_ : ndarray of shape (n, k)
        Their eigenvectors.
    sq_dissimilarity_mean_ : ndarray of shape (n,)
        The column means of D^2.
    X_fit_ : ndarray
        The training rows (euclidean only).
    """

    _constraints = {"dissimilarity": Options(DISSIMILARITIES), "n_components": positive_int()}  # at most n: at fit

    def __init__(self, n_components: int = 2, dissimilarity: str = "euclidean"):
        self.n_components = n_components
        self.dissimilarity = dissimilarity

    def fit(self, X, y=None):
        check_hyperparameters(self)
        X = check_array(X)
        if self.dissimilarity == "euclidean":
            D2 = _squared_euclidean(X, X)
        else:
            if X.shape[0] != X.shape[1] or not np.allclose(X, X.T) or (X < 0).any():
                raise ValueError("a precomputed dissimilarity matrix must be square, symmetric and non-negative")
            D2 = X**2
        n = D2.shape[0]
        check_within_data(self, "n_components", n, "n_samples")
        col_mean = D2.mean(axis=0)
        B = -0.5 * (D2 - col_mean[None, :] - col_mean[:, None] + col_mean.mean())
        values, vectors = linalg.eigh(B, subset_by_index=[n - self.n_components, n - 1], check_finite=False)
        values, vectors = values[::-1], vectors[:, ::-1]
        if values[-1] <= n * np.finfo(np.float64).eps * max(values[0], 0.0):
            raise ValueError(
                f"B has fewer than n_components = {self.n_components} positive eigenvalues; the "
                "dissimilarities embed Euclidean-ly in fewer dimensions: lower n_components"
            )
        # eigenvectors are defined up to sign: make the largest-magnitude entry positive for a reproducible output
        signs = np.sign(vectors[np.argmax(np.abs(vectors), axis=0), np.arange(vectors.shape[1])])
        vectors = vectors * signs
        self.n_features_in_ = X.shape[1]
        self.eigenvalues_, self.eigenvectors_ = values, vectors
        self.embedding_ = vectors * np.sqrt(values)
        self.sq_dissimilarity_mean_ = col_mean
        if self.dissimilarity == "euclidean":
            self.X_fit_ = X
        return self

    def fit_transform(self, X, y=None):
        return self.fit(X).embedding_

    def transform(self, X):
        """Coordinates of new points (rows, or dissimilarities to the training points if precomputed)."""
        X = check_fitted_X(self, X)
        D2 = _squared_euclidean(X, self.X_fit_) if self.dissimilarity == "euclidean" else X**2
        return 0.5 * (self.sq_dissimilarity_mean_ - D2) @ self.eigenvectors_ / np.sqrt(self.eigenvalues_)

    def get_feature_names_out(self, input_features=None):
        return [f"mds{k}" for k in range(self.eigenvalues_.size)]
