"""Principal component analysis: the directions w of largest projected variance w^T Sigma w, ||w|| = 1, i.e. the
leading eigenvectors of the population covariance Sigma = (1/N) X~^T X~ of the centred data X~.

Seed 000, lines 1106-1276 (min reconstruction error == max variance; Sigma w = lambda w; multiple components by
deflation, 1258-1266), 1277-1307 (SVD of X~ / sqrt(N): singular values sqrt(lambda_i), the stable route),
1308-1351 (power iteration w <- Sigma w / ||Sigma w|| with deflation in covariance space, "more stable");
seed 002, lines 1105-1201 (z = V_p^T (x - mu), reconstruction x ~ mu + V_p z); seed 004, D4:872-914 (keeping all
components makes PCA invertible; scale before and after). Three solvers give the same components up to rounding:
"svd" of X~, "eigh" of Sigma, "power" iteration with deflation Sigma <- Sigma - lambda w w^T (the notes'
Sigma - w w^T Sigma, symmetric for an eigenvector). Signs are fixed so each component's largest-|loading| entry is
positive. Variances use the divisor N, as the notes (scikit-learn's explained_variance_ uses N - 1).

Sections cited:
- Machine Learning lecture notes (seed 002): Principle Component Analysis (PCA) (1105); Example: Digits (1185)
- Ghent ML notes (seed 004): 5.3.1 Principal Component Analysis: unsupervised (872)"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import linalg

from ..base import (
    BaseEstimator,
    ConvergenceWarning,
    TransformerMixin,
    check_array,
    check_fitted_X,
    check_is_fitted,
    check_random_state,
    check_width,
    check_within_data,
)
from ..base.constraints import (
    BOOLEAN,
    OPTIONAL,
    POSITIVE,
    RANDOM_STATE,
    Interval,
    Options,
    check_hyperparameters,
    positive_int,
)

SOLVERS = ("svd", "eigh", "power")


def _orient(components: np.ndarray) -> np.ndarray:
    """Flip each row so that its largest-|.| entry (the first, on ties) is positive."""
    lead = components[np.arange(components.shape[0]), np.argmax(np.abs(components), axis=1)]
    return components * np.where(lead < 0, -1.0, 1.0)[:, None]


def power_iteration(Sigma: np.ndarray, k: int, tol: float, max_iter: int, rng, total: float, fraction=None):
    """Leading eigenpairs of the symmetric PSD Sigma one at a time, deflating after each (seed 000, 1337-1350).

    Stops after k pairs, or earlier once the eigenvalues found reach `fraction` of `total` (the trace of Sigma).
    When the deflated matrix has no variance left, the remaining directions (eigenvalue 0) complete an orthonormal
    basis. Returns (eigenvalues, components as rows)."""
    d = Sigma.shape[0]
    S = Sigma.copy()
    W, lam = [], []
    while len(W) < k and not (fraction is not None and lam and sum(lam) >= fraction * total):
        if np.trace(S) <= 1e-12 * max(total, np.finfo(float).tiny):
            basis = linalg.null_space(np.array(W)) if W else np.eye(d)
            for column in basis.T[: k - len(W)]:
                W.append(column)
                lam.append(0.0)
            break
        w = rng.standard_normal(d)
        w /= np.linalg.norm(w)
        for _ in range(max_iter):
            v = S @ w
            if W:  # re-orthogonalise against the components found: deflation leaves rounding-level residue
                Wm = np.array(W)
                v -= Wm.T @ (Wm @ v)
            v /= np.linalg.norm(v)
            step = np.linalg.norm(v - w)
            w = v
            if step < tol:
                break
        else:
            warnings.warn(
                f"power iteration for component {len(W)} did not converge in max_iter={max_iter} steps "
                f"(tol={tol}); eigenvalues may be (nearly) repeated: increase max_iter or use solver='svd'",
                ConvergenceWarning,
                stacklevel=3,
            )
        lam_i = float(w @ S @ w)
        S -= lam_i * np.outer(w, w)
        W.append(w)
        lam.append(max(lam_i, 0.0))
    return np.array(lam), np.array(W)


class PCA(TransformerMixin, BaseEstimator):
    """Principal component analysis: the training rows projected on the leading eigenvectors of their covariance.

    Parameters
    ----------
    n_components : int, float or None, default None
        None: all min(N, d) (invertible); an int k; or a float in (0, 1): the smallest k whose components explain at
        least that fraction of the total variance.
    solver : {"svd", "eigh", "power"}, default "svd"
        SVD of the centred data (most stable), eigendecomposition of Sigma, or power iteration with deflation (only the
        components needed).
    whiten : bool, default False
        Divide each score by sqrt(lambda_j), so the training scores have identity covariance (PCA whitening).
    tol : float, default 1e-12
        Power iteration: stop when the step ||w_t - w_{t-1}|| is below tol.
    max_iter : int, default 10000
        Power iteration: iterations per component.
    random_state : int, Generator or None, default 0
        Power iteration: seeds the starting vectors w_0.

    Attributes
    ----------
    mean_ : ndarray
        The column means of the training rows.
    components_ : ndarray of shape (k, d)
        The leading eigenvectors of the covariance, as orthonormal rows.
    explained_variance_ : ndarray
        The eigenvalues lambda_j (divisor N).
    explained_variance_ratio_ : ndarray
        lambda_j / tr Sigma.
    singular_values_ : ndarray
        The singular values of X~: sqrt(N lambda_j).
    n_components_ : int
        k, the number of components kept.
    """

    _constraints = {
        "n_components": [OPTIONAL, positive_int(), Interval(False, 0, 1, "neither")],  # a count, or a variance share
        "solver": Options(SOLVERS),
        "whiten": BOOLEAN,
        "tol": POSITIVE,
        "max_iter": positive_int(),
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        n_components=None,
        solver: str = "svd",
        whiten: bool = False,
        tol: float = 1e-12,
        max_iter: int = 10000,
        random_state=0,
    ):
        self.n_components = n_components
        self.solver = solver
        self.whiten = whiten
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    def _check_params(self, max_k: int):
        check_hyperparameters(self)
        nc = self.n_components
        if nc is None:
            return max_k, None
        if isinstance(nc, (float, np.floating)):
            return max_k, float(nc)
        return check_within_data(self, "n_components", max_k, "min(n_samples, n_features)"), None

    def fit(self, X, y=None):
        X = check_array(X)
        n, d = X.shape
        k, fraction = self._check_params(min(n, d))
        self.n_features_in_ = d
        self.mean_ = X.mean(axis=0)
        Xc = X - self.mean_
        total = float(np.sum(Xc * Xc)) / n
        if self.solver == "svd":
            _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
            variances, components = s**2 / n, Vt
        else:
            Sigma = Xc.T @ Xc / n
            if self.solver == "eigh":
                evals, evecs = linalg.eigh(Sigma)
                variances, components = np.maximum(evals[::-1], 0.0), evecs[:, ::-1].T
            else:
                rng = check_random_state(self.random_state)
                variances, components = power_iteration(Sigma, k, self.tol, self.max_iter, rng, total, fraction)
            variances, components = variances[: min(n, d)], components[: min(n, d)]
        ratio = variances / total if total > 0 else np.zeros_like(variances)
        if fraction is not None:  # smallest k with cumulative ratio >= fraction (all kept if rounding falls short)
            k = min(int(np.searchsorted(np.cumsum(ratio), fraction, side="left")) + 1, variances.size)
        if self.whiten and not (variances[:k] > 1e-12 * max(total, np.finfo(float).tiny)).all():
            raise ValueError(
                "whiten=True but a kept component has zero variance (rank-deficient X); "
                "lower n_components, e.g. to a variance fraction such as 0.999"
            )
        self.components_ = np.ascontiguousarray(_orient(components[:k]))
        self.explained_variance_ = variances[:k]
        self.explained_variance_ratio_ = ratio[:k]
        self.singular_values_ = np.sqrt(variances[:k] * n)
        self.n_components_ = int(k)
        return self

    def transform(self, X):
        X = check_fitted_X(self, X)
        Z = (X - self.mean_) @ self.components_.T
        return Z / np.sqrt(self.explained_variance_) if self.whiten else Z

    def inverse_transform(self, Z):
        """x ~ mu + V_p z (seed 002, lines 1185-1189); exact when all components are kept."""
        check_is_fitted(self)
        Z = check_array(Z, name="Z")
        check_width(Z, self.n_components_, "Z", "PCA", "components")
        if self.whiten:
            Z = Z * np.sqrt(self.explained_variance_)
        return Z @ self.components_ + self.mean_

    def get_feature_names_out(self, input_names=None):
        check_is_fitted(self)
        return [f"pca{j}" for j in range(self.n_components_)]
