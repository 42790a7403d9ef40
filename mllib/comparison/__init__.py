"""Statistical comparison of two models on the same data: which differences are larger than chance.

Notes: seed 004, D4:389-409 (choosing between models by a validation score) and the standard tests: the corrected
resampled t-test of Nadeau and Bengio (2003) for k-fold scores, McNemar's test (1947) for two classifiers' decisions
on one test set, the paired t-test for two regressors' errors on one test set, DeLong's test for two ROC AUCs of the
same rows, and the Benjamini-Hochberg procedure for many tests at once.

Sections cited: Ghent ML notes (seed 004): 3.1 Error Functions for Model Selection (389)"""

from .delong import delong_test, placements
from .multiple import benjamini_hochberg, bh_adjusted
from .significance import corrected_resampled_t_test, mcnemar_test, paired_t_test

__all__ = [
    "corrected_resampled_t_test",
    "mcnemar_test",
    "paired_t_test",
    "delong_test",
    "placements",
    "benjamini_hochberg",
    "bh_adjusted",
]
