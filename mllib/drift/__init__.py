"""Data drift: is a new sample drawn like the reference one? Per-column two-sample tests (Kolmogorov-Smirnov and the
Wasserstein distance for numbers, the chi-squared test of homogeneity for categories, the population stability
index beside either) and the classifier two-sample test (a domain classifier's held-out AUC) for drift in
combinations of columns. Many columns at once: mllib.comparison's Benjamini-Hochberg procedure.

Modules: univariate.py (one column's tests), domain.py (the classifier test).

Not in the notes (catalogue: [STD])."""

from .domain import domain_classifier_test
from .univariate import (
    chi_squared_test,
    ks_test,
    missing_share_test,
    population_stability_index,
    wasserstein_distance,
)

__all__ = [
    "ks_test",
    "wasserstein_distance",
    "chi_squared_test",
    "missing_share_test",
    "population_stability_index",
    "domain_classifier_test",
]
