"""Minimal cost-complexity (weakest-link) pruning (seed 000, lines 2706-2749; seed 002, lines 1600-1629;
catalogue 000 I3).

C_alpha(T) = sum_{leaves m} N_m Q_m(T) + alpha |T|, here with R(t) = (w_t / w_root) i(t) per node. For an internal
node t with branch T_t, g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1) is the alpha at which collapsing t stops
costing; repeatedly collapsing the node of smallest g gives the nested sequence T_0 > T_1 > ... > root, and
the subtree for a given alpha is the last one whose g <= alpha. alpha is chosen by cross-validation.

Sections cited:
- ML 1 lecture notes (seed 000): Pruning (2706)
- Machine Learning lecture notes (seed 002): Growing the decision tree (1600)"""

from __future__ import annotations

import numpy as np

from ..base import clone


def _parents(left, right) -> np.ndarray:
    parent = np.full(left.size, -1, dtype=np.int64)
    internal = np.flatnonzero(left >= 0)
    parent[left[internal]] = internal
    parent[right[internal]] = internal
    return parent


def _weakest_link_sequence(tree: dict, stop_alpha: float = np.inf):
    """Yield (effective alpha, R(T) after collapsing, in_tree) along the pruning sequence, collapsing while the
    effective alpha is <= stop_alpha; in_tree marks the current subtree's nodes (one array, updated in place as the
    sequence goes on). Ties go to the lowest node index (as scikit-learn)."""
    left, right = tree["left"], tree["right"]
    r_node = tree["cover"] * tree["impurity"] / tree["cover"][0]
    parent = _parents(left, right)
    is_leaf = left < 0
    # R(T_t) and leaf counts per branch: accumulate leaves upwards (children have larger pre-order indices)
    r_branch = np.where(is_leaf, r_node, 0.0)
    n_leaves = is_leaf.astype(np.int64)
    for node in range(left.size - 1, 0, -1):
        r_branch[parent[node]] += r_branch[node]
        n_leaves[parent[node]] += n_leaves[node]
    branch_end = np.arange(left.size) + 2 * n_leaves - 1  # a binary branch of m leaves has 2m - 1 nodes
    candidate = ~is_leaf
    in_tree = np.ones(left.size, dtype=bool)
    while candidate[0]:
        idx = np.flatnonzero(candidate)
        g = (r_node[idx] - r_branch[idx]) / (n_leaves[idx] - 1)
        k = int(np.argmin(g))
        alpha, t = float(g[k]), int(idx[k])
        if alpha > stop_alpha:
            return
        # drop t's descendants: they occupy the pre-order range after t up to the end of its branch
        in_tree[t + 1 : branch_end[t]] = False
        candidate[t : branch_end[t]] = False
        removed, r_diff = n_leaves[t] - 1, r_node[t] - r_branch[t]
        n_leaves[t], r_branch[t] = 1, r_node[t]
        a = parent[t]
        while a >= 0:
            n_leaves[a] -= removed
            r_branch[a] += r_diff
            a = parent[a]
        yield alpha, float(r_branch[0]), in_tree


def pruning_path(tree: dict) -> dict:
    """{"ccp_alphas", "impurities"}: alpha = 0 with the full tree's R(T), then one entry per collapse."""
    alphas, impurities = [0.0], [float(np.sum((tree["cover"] * tree["impurity"])[tree["left"] < 0]) / tree["cover"][0])]
    for alpha, r_tree, _ in _weakest_link_sequence(tree):
        alphas.append(alpha)
        impurities.append(r_tree)
    return {"ccp_alphas": np.asarray(alphas), "impurities": np.asarray(impurities)}


def prune(tree: dict, ccp_alpha: float) -> dict:
    """The subtree of `tree` (node arrays as in cart.py) for this alpha, renumbered in pre-order."""
    left, right = tree["left"], tree["right"]
    in_tree = np.ones(left.size, dtype=bool)
    for _, _, in_tree in _weakest_link_sequence(tree, ccp_alpha):
        pass  # run the sequence to its end: in_tree is then the subtree for ccp_alpha
    keep = np.flatnonzero(in_tree)  # increasing indices keep the pre-order
    new_index = np.full(left.size, -1, dtype=np.int64)
    new_index[keep] = np.arange(keep.size)
    leaf = (left[keep] < 0) | ~in_tree[np.maximum(left[keep], 0)]  # collapsed nodes lost their children
    out = {k: v[keep].copy() for k, v in tree.items()}
    out["left"] = np.where(leaf, -1, new_index[np.maximum(left[keep], 0)])
    out["right"] = np.where(leaf, -1, new_index[np.maximum(right[keep], 0)])
    out["feature"] = np.where(leaf, -1, tree["feature"][keep])
    out["threshold"] = np.where(leaf, -2.0, tree["threshold"][keep])
    return out


def choose_ccp_alpha(estimator, X, y, cv=5, scoring=None, groups=None) -> dict:
    """Choose ccp_alpha for a decision tree by cross-validation over its pruning path.

    With a_1 < ... < a_m the distinct positive path alphas, subtree T_k is optimal on [a_k, a_{k+1}) and a_m
    collapses the root (a constant model). Candidates: 0 (the full tree) and the geometric means
    sqrt(a_k a_{k+1}), k < m, one inside each interval (Breiman et al.): every subtree of the path but the root.
    scoring: a scorer or name from mllib.metrics (default: accuracy for classifiers, mean squared error for
    regressors); cv and groups as in mllib.model_selection.GridSearch.
    Returns {"best_alpha", "alphas", "mean_scores", "search"}.
    """
    from ..model_selection import GridSearch

    a = np.unique(estimator.cost_complexity_pruning_path(X, y)["ccp_alphas"])
    a = a[a > 0]
    candidates = np.concatenate([[0.0], np.sqrt(a[:-1] * a[1:])])
    if scoring is None:
        scoring = "accuracy" if getattr(estimator, "_estimator_type", "") == "classifier" else "mean_squared_error"
    search = GridSearch(clone(estimator), {"ccp_alpha": [float(v) for v in candidates]}, scoring=scoring, cv=cv)
    search.fit(X, y, groups=groups)
    means = np.array([r["mean_valid_score"] for r in search.results_])
    return {
        "best_alpha": float(search.best_params_["ccp_alpha"]),
        "alphas": candidates,
        "mean_scores": means,
        "search": search,
    }
