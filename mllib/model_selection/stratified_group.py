"""Stratified-grouped assignment: whole groups to folds, class proportions per fold as equal as possible.

Rule: groups are never split (independence) and every fold should have the overall class
proportions (identical distribution); n_folds <= n_groups and <= the smallest class count
(seed 004, D4:545-547; catalogue 2.4 and anchors "Stratified + grouped").

Algorithm (`stratified_group_assignment`):
1. greedy: groups in decreasing size order (ties broken by a seeded shuffle when shuffle=True), each to
   the fold that minimises the spread (std over folds, averaged over classes) of
   n_fold,class / (fraction_fold * n_class), ties to the fold least filled relative to its target.
   The same greedy also runs from sklearn's order (decreasing std of the group's class counts) and,
   for <= restart_max_groups groups, from n_restarts random orders (seeded; fixed seed 0 if shuffle=False);
2. local search from each start: apply the best single-group move, else the best pairwise swap, while it
   lowers (max |class proportion in fold - overall proportion|, sum of squared deviations)
   lexicographically; every fold keeps >= 1 group and its row count stays within the size band
   max(size deviation of the size-ordered and std-ordered greedy, size_tolerance * smallest target)
   of its target; at most max_iter steps;
3. the best local optimum is returned.
On 200 random problems (tests/mllib/model_selection/test_stratified_group.py) the largest
class-proportion deviation is never worse than sklearn's StratifiedGroupKFold(shuffle=True), with
similar fold-size balance; benchmarks/bench_splitters.py measures both, also on the default data grouped by person.

Sections cited: Ghent ML notes (seed 004): 3.4 Robust Validation Strategies (545, 547)"""

from __future__ import annotations

import numpy as np

from mllib.base import check_int, check_random_state, to_python

from ._checks import check_enough, column, encode
from .splitters import KFoldFamily, RepeatedKFold, check_min_class_count, check_n_groups

__all__ = ["stratified_group_assignment", "StratifiedGroupKFold", "fold_balance"]

_EPS = 1e-12
_MOVE_BLOCK = 65_536  # groups whose single moves are costed at once in the local search


def _check_fractions(fractions) -> np.ndarray:
    fr = np.asarray(fractions, dtype=np.float64)
    if fr.ndim != 1 or fr.size < 2 or not np.isfinite(fr).all() or (fr <= 0).any():
        raise ValueError(f"fractions must be >= 2 positive finite numbers (one per fold / part), got {fractions!r}")
    return fr / fr.sum()


def _greedy(M: np.ndarray, fr: np.ndarray, order: np.ndarray) -> np.ndarray:
    from ._greedy import greedy_folds  # numba loads where folds are assigned, not in every stage that splits

    T = fr[:, None] * M.sum(0)[None, :]  # target count of each class in each fold
    shares = M[:, None, :] / T[None]  # (G, K, C): change of a fold's class shares if g goes to it
    return greedy_folds(shares, M.sum(1), fr * M.sum(), order.astype(np.int64))


def _objective(M, fold, K, p):
    N = np.zeros((K, M.shape[1]))
    np.add.at(N, fold, M)
    dev = N / N.sum(1, keepdims=True) - p
    return float(np.abs(dev).max()), float((dev**2).sum())


def _size_deviation(M, fold, S) -> float:
    return float(np.abs(np.bincount(fold, weights=M.sum(1), minlength=S.size) - S).max())


def _pick(c1: np.ndarray, c2: np.ndarray):
    """Index of the lexicographically smallest (c1, c2), or None if nothing is feasible (all inf)."""
    if c1.size == 0 or not np.isfinite(c1).any():
        return None
    i = int(np.argmin(np.where(c1 <= c1.min() + _EPS, c2, np.inf)))
    return i, float(c1[i]), float(c2[i])


def _improves(n1, n2, obj1, obj2) -> bool:
    return n1 < obj1 - _EPS or (n1 <= obj1 and n2 < obj2 - max(_EPS, 1e-9 * obj2))


def _local_search(M, fr, fold, max_iter, band, max_pairs=200_000):
    """First try the best single-group move; if none improves, the best pairwise swap; repeat."""
    G, C = M.shape
    K = fr.size
    sz = M.sum(1)
    n = sz.sum()
    p = M.sum(0) / n
    S = fr * n
    fold = fold.copy()
    N = np.zeros((K, C))
    np.add.at(N, fold, M)
    ks = np.arange(K)
    for _ in range(max_iter):
        nf = N.sum(1)
        cnt = np.bincount(fold, minlength=K)
        dev = N / nf[:, None] - p
        fdev = np.abs(dev).max(1)
        sq = (dev**2).sum(1)
        obj1, obj2 = float(fdev.max()), float(sq.sum())

        # single-group moves g: a -> b (the source fold keeps at least one group; sizes stay in the band), costed
        # for a block of groups at a time: the (groups, K, C) arrays of every group at once held 2 GB at 4.6 million
        # groups; each entry's arithmetic is the same either way
        m1, m2 = np.empty((G, K)), np.empty((G, K))
        # the largest deviation among the folds a move leaves alone, per (source, destination)
        untouched = (ks[None, None] != ks[:, None, None]) & (ks[None, None] != ks[None, :, None])
        other_of = np.where(untouched, fdev[None, None], 0.0).max(-1)
        for start in range(0, G, _MOVE_BLOCK):
            rows = slice(start, min(start + _MOVE_BLOCK, G))
            a, Mg, sg = fold[rows], M[rows], sz[rows]
            na, nb = nf[a] - sg, nf[None] + sg[:, None]
            ok = (ks[None] != a[:, None]) & (cnt[a] > 1)[:, None]
            ok &= (np.abs(na - S[a]) <= band)[:, None] & (np.abs(nb - S[None]) <= band)
            with np.errstate(invalid="ignore", divide="ignore"):
                da = (N[a] - Mg) / na[:, None] - p
            db = (N[None] + Mg[:, None]) / nb[..., None] - p
            block1 = np.maximum(np.maximum(np.abs(da).max(1)[:, None], np.abs(db).max(2)), other_of[a])
            block2 = obj2 - sq[a][:, None] - sq[None] + (da**2).sum(1)[:, None] + (db**2).sum(2)
            m1[rows], m2[rows] = np.where(ok, block1, np.inf), np.where(ok, block2, np.inf)
        pick = _pick(m1.ravel(), m2.ravel())
        if pick is not None and _improves(pick[1], pick[2], obj1, obj2):
            g, b = divmod(pick[0], K)
            N[fold[g]] -= M[g]
            N[b] += M[g]
            fold[g] = b
            continue

        # pairwise swaps g (fold a) <-> h (fold b); only those touching the worst fold when there are many
        if (G * G - int((cnt**2).sum())) // 2 <= max_pairs:
            gi, hi = np.nonzero(fold[:, None] < fold[None, :])
        else:
            worst = int(np.argmax(fdev))
            in_w, out_w = np.flatnonzero(fold == worst), np.flatnonzero(fold != worst)
            if in_w.size * out_w.size > max_pairs:
                break
            gi, hi = np.repeat(in_w, out_w.size), np.tile(out_w, in_w.size)
        a, b = fold[gi], fold[hi]
        delta = M[hi] - M[gi]
        dsz = sz[hi] - sz[gi]
        na, nb = nf[a] + dsz, nf[b] - dsz
        ok = (np.abs(na - S[a]) <= band) & (np.abs(nb - S[b]) <= band) & np.any(delta != 0, axis=1)
        da = (N[a] + delta) / na[:, None] - p
        db = (N[b] - delta) / nb[:, None] - p
        other = np.where((ks[None] != a[:, None]) & (ks[None] != b[:, None]), fdev[None], 0.0).max(1)
        s1 = np.maximum(np.maximum(np.abs(da).max(1), np.abs(db).max(1)), other)
        s2 = obj2 - sq[a] - sq[b] + (da**2).sum(1) + (db**2).sum(1)
        pick = _pick(np.where(ok, s1, np.inf), np.where(ok, s2, np.inf))
        if pick is None or not _improves(pick[1], pick[2], obj1, obj2):
            break
        g, h = gi[pick[0]], hi[pick[0]]
        fa, fb = fold[g], fold[h]
        N[fa] += M[h] - M[g]
        N[fb] += M[g] - M[h]
        fold[g], fold[h] = fb, fa
    return fold


def stratified_group_assignment(
    y,
    groups,
    fractions,
    random_state=None,
    *,
    shuffle=True,
    max_iter=300,
    size_tolerance=0.05,
    n_restarts=4,
    restart_max_groups=300,
) -> np.ndarray:
    """Fold index (0..len(fractions)-1) of every ROW, whole groups per fold, fold sizes ~ fractions * n.

    y: class label per row (None: no stratification, sizes only); groups: group id per row;
    fractions: target share of rows per fold (equal for k-fold, [1 - t, t] for a hold-out);
    random_state (with shuffle=True) breaks ties between equal-sized groups and seeds the random restarts;
    shuffle=False makes the result independent of random_state.
    Raises if there are fewer groups than folds. See the module docstring for the algorithm.
    """
    groups = column(groups, "groups")
    n = groups.shape[0]
    if n == 0:
        raise ValueError("cannot assign an empty data set (0 rows)")
    y = np.zeros(n, dtype=np.int64) if y is None else column(y, "y", n)
    fr = _check_fractions(fractions)
    K = fr.size
    _, y_codes = encode(y)
    g_values, g_codes = encode(groups)
    G, C = g_values.size, int(y_codes.max()) + 1
    check_enough(
        G, K, "groups", f"{K} folds/parts", "lower split.n_splits (or the number of parts) or use a different strategy"
    )
    M = np.bincount(g_codes * C + y_codes, minlength=G * C).reshape(G, C).astype(np.float64)
    rng = check_random_state(random_state)
    perm = rng.permutation(G) if shuffle else np.arange(G)
    by_size = perm[np.argsort(-M[perm].sum(1), kind="stable")]
    by_std = perm[np.argsort(-M[perm].std(1), kind="stable")]
    p = M.sum(0) / n
    S = fr * n
    restart_rng = rng if shuffle else np.random.default_rng(0)
    n_random = n_restarts if G <= restart_max_groups else 0
    orders = [by_size, by_std] + [restart_rng.permutation(G) for _ in range(n_random)]
    starts = [_greedy(M, fr, order) for order in orders]
    # allowed fold-size deviation for the local search: what the two deterministic greedy starts reach
    # (by size, and sklearn's order by class-count std), at least size_tolerance * smallest target
    band = max(_size_deviation(M, starts[0], S), _size_deviation(M, starts[1], S), size_tolerance * float(S.min()))
    best, best_key = starts[0], _objective(M, starts[0], K, p)
    for fold in starts:
        fold = _local_search(M, fr, fold, max_iter, band)
        if _size_deviation(M, fold, S) > band + 1e-9 or np.bincount(fold, minlength=K).min() == 0:
            continue  # a random start that could not reach the size band
        key = _objective(M, fold, K, p)
        if key[0] < best_key[0] - _EPS or (key[0] <= best_key[0] + _EPS and key[1] < best_key[1] - _EPS):
            best, best_key = fold, key
    return best[g_codes]


class StratifiedGroupKFold(KFoldFamily):
    """k folds of whole groups with class proportions as equal as possible (D4:547). Requires y and groups,
    n_splits <= n_groups and n_splits <= smallest class count (raises). Uses `stratified_group_assignment` with
    equal fractions.

    Parameters
    ----------
    n_splits : int, default 5
        Number of folds k.
    shuffle : bool, default False
        Let the seed break ties between equal-sized groups and drive the random restarts (a seed can still give the same
        folds as another when one assignment is clearly best).
    random_state : int, Generator or None, default None
        Seeds the tie-breaking and restarts (fixed seed 0 when shuffle is False).
    """

    _needs_y = True
    _needs_groups = True

    def _fold_ids(self, n, y, groups, rng):
        k = check_int(self.n_splits, "n_splits", 2)
        name = type(self).__name__
        check_n_groups(k, np.unique(groups).size, name)
        check_min_class_count(k, y, name)
        return stratified_group_assignment(y, groups, np.full(k, 1.0 / k), rng, shuffle=bool(self.shuffle))


class RepeatedStratifiedGroupKFold(RepeatedKFold):
    """n_repeats independent shuffled StratifiedGroupKFold runs.

    Parameters
    ----------
    n_splits : int, default 5
        Folds per repeat.
    n_repeats : int, default 10
        Number of repeats.
    random_state : int, Generator or None, default None
        Seeds the repeats (each its own shuffle).
    """

    _base = StratifiedGroupKFold
    _needs_y = True
    _needs_groups = True


def fold_balance(y, groups, fold) -> dict:
    """Per-fold rows, groups, class counts and proportions, and the class-proportion deviation.

    Returns {"classes", "overall_proportions", "n_rows", "n_groups", "n_groups_in_several_folds",
    "folds": [{"fold", "n_rows", "n_groups", "class_counts", "class_proportions", "max_abs_deviation"}],
    "max_abs_deviation"}; class lists follow "classes"; max_abs_deviation = max over folds and classes of
    |proportion of the class in the fold - its overall proportion| (the metric compared with sklearn).
    groups may be None (n_groups entries are then None). Plain Python types, ready for JSON / MLflow.
    """
    y = column(y, "y")
    n = y.shape[0]
    fold = column(fold, "fold", n)
    classes, yc = encode(y)
    fvals, fc = encode(fold)
    C, F = classes.size, fvals.size
    N = np.bincount(fc * C + yc, minlength=F * C).reshape(F, C)
    nf = N.sum(1)
    p = N.sum(0) / n
    P = N / nf[:, None]
    dev = np.abs(P - p).max(1)
    if groups is not None:
        groups = column(groups, "groups", n)
        gvals, gc = encode(groups)
        G = gvals.size
        pairs = np.unique(fc * G + gc)
        groups_per_fold = np.bincount(pairs // G, minlength=F)
        n_groups, several = int(G), int((np.bincount(pairs % G, minlength=G) > 1).sum())
    else:
        groups_per_fold, n_groups, several = [None] * F, None, None
    folds = [
        {
            "fold": to_python(fvals[f]),
            "n_rows": int(nf[f]),
            "n_groups": None if groups is None else int(groups_per_fold[f]),
            "class_counts": N[f].astype(int).tolist(),
            "class_proportions": P[f].tolist(),
            "max_abs_deviation": float(dev[f]),
        }
        for f in range(F)
    ]
    return {
        "classes": [to_python(c) for c in classes],
        "overall_proportions": p.tolist(),
        "n_rows": int(n),
        "n_groups": n_groups,
        "n_groups_in_several_folds": several,
        "folds": folds,
        "max_abs_deviation": float(dev.max()),
    }
