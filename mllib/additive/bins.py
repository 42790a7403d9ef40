"""The bins the additive terms are tables over, cut once at fit.

Main effects: one bin per distinct value when a feature has at most max_bins of them (a one-hot column gets two),
each threshold midway between consecutive values. Otherwise equal-frequency bins that respect ties: a value held by
at least n / max_bins rows (a heavy value: a spike of zeros, a common round number) is a bin of its own, and the other
values fill the remaining bins with about equal row counts, cut only between distinct values. Plain quantiles would
put many of their cuts on a heavy value and collapse them into one, so a column with a spike keeps a fraction of its
bins: a shape function is one table per feature, and its resolution is its bins (on the default data's copies, a
column of 340 distinct values with 34% of its rows at one value kept 56 quantile bins and keeps 196 here).
Pairs use coarser bins (Lou et al. 2013: a pair's n_a x n_b cells each need rows to be estimated), made by merging
consecutive main bins to about equal row counts, at most max_interaction_bins per feature: every pair cell nests in
main bins, and a coarse threshold is a main one. A value x falls in bin #{thresholds < x}, so "bin <= b" is
"x <= thresholds[b]"."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..gradient_boosting.binning import bin_features
from ._kernels import bin_ends


@dataclass(frozen=True)
class Bins:
    """thresholds: every feature's, concatenated; feature j's are thresholds[offsets[j]:offsets[j + 1]]."""

    thresholds: np.ndarray
    offsets: np.ndarray

    @classmethod
    def of_features(cls, per_feature: list[np.ndarray]) -> Bins:
        offsets = np.concatenate([[0], np.cumsum([t.size for t in per_feature])]).astype(np.int64)
        thresholds = np.concatenate(per_feature).astype(np.float64) if per_feature else np.empty(0)
        return cls(thresholds, offsets)

    @property
    def n_bins(self) -> np.ndarray:
        return np.diff(self.offsets) + 1

    def of(self, j: int) -> np.ndarray:
        return self.thresholds[self.offsets[j] : self.offsets[j + 1]]

    def codes(self, X: np.ndarray) -> np.ndarray:
        """Bin codes (n, d) uint8, row-major."""
        return bin_features(X, self.thresholds, self.offsets)


def main_bins(columns, max_bins: int) -> Bins:
    """The main effects' bins of the features' columns (X.T, or any iterable of them, one at a time)."""
    per_feature = []
    for column in columns:
        values, counts = np.unique(column, return_counts=True)
        ends = np.arange(values.size - 1) if values.size <= max_bins else bin_ends(counts, max_bins)
        per_feature.append(0.5 * (values[ends] + values[ends + 1]))
    return Bins.of_features(per_feature)


def coarse_bins(bins: Bins, codes: np.ndarray, max_bins: int) -> tuple[Bins, np.ndarray]:
    """Main bins merged into at most max_bins per feature of about equal row counts, and the coarse codes of `codes`
    (the main codes of the rows they are cut on). A feature with at most max_bins bins keeps them."""
    per_feature, coarse = [], np.empty_like(codes)
    for j, n_bins in enumerate(bins.n_bins):
        if n_bins <= max_bins:
            last_of_bin = np.arange(n_bins - 1)
        else:
            filled = np.cumsum(np.bincount(codes[:, j], minlength=n_bins))
            targets = filled[-1] * np.arange(1, max_bins) / max_bins
            last_of_bin = np.unique(np.minimum(np.searchsorted(filled, targets, side="left"), n_bins - 2))
        per_feature.append(bins.of(j)[last_of_bin])
        # coarse code = #{coarse thresholds < x} = #{merged-bin ends below the row's main bin}
        coarse[:, j] = np.searchsorted(last_of_bin, codes[:, j], side="left")
    return Bins.of_features(per_feature), coarse
