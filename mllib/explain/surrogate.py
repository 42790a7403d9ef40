"""Global surrogate: a shallow CART tree fitted to the model's own outputs, read as rules (seed 004, D4:2017: global
explanations give insight into the model's overall behaviour). The tree explains the model only as far as it
mimics it, so its fidelity (agreement with the model's decisions, or R^2 against the model's outputs) is measured on
rows neither was fitted on and reported with it; a low-fidelity surrogate explains nothing.

Sections cited: Ghent ML notes (seed 004): 11.2 Model Explainability (2017)"""

from __future__ import annotations

import numpy as np

from ..base import check_int
from ..tree import DecisionTreeClassifier, DecisionTreeRegressor


def _rules(tree, feature_names: list[str], labels) -> list[dict]:
    """One rule per leaf: the conditions on its path (left branch: feature <= threshold) as text and as
    {feature, op, threshold} splits (for a reader who maps the features back to other units), what it predicts, its
    rows."""
    rules, stack = [], [(0, [])]
    while stack:
        node, path = stack.pop()
        left, right = tree.children_left_[node], tree.children_right_[node]
        if left < 0:
            value = tree.value_[node]
            prediction = labels[int(np.argmax(value))] if labels is not None else float(value[0])
            rules.append({"conditions": [f"{s['feature']} {s['op']} {s['threshold']:.6g}" for s in path],
                          "splits": path, "prediction": prediction,
                          "rows": int(tree.n_node_samples_[node])})  # fmt: skip
            continue
        name, threshold = feature_names[tree.feature_[node]], float(tree.threshold_[node])
        stack.append((right, path + [{"feature": name, "op": ">", "threshold": threshold}]))
        stack.append((left, path + [{"feature": name, "op": "<=", "threshold": threshold}]))
    return rules


def global_surrogate(
    X_fit, output_fit, X_eval, output_eval, feature_names, classification: bool, max_depth: int = 3, random_state=0
) -> dict:
    """A depth-limited tree fitted on (X_fit, the model's outputs on X_fit); its fidelity on X_eval.

    output_fit, output_eval: the model's decisions (class labels, classification) or predictions (regression) on
    X_fit and X_eval. Returns {"tree", "fidelity", "fidelity_metric" ("agreement" | "r2"), "depth", "n_leaves",
    "rules"}: fidelity is the share of X_eval rows where tree and model decide alike, or the R^2 of the tree's
    predictions against the model's.
    """
    check_int(max_depth, "max_depth", 1)
    target_fit, target_eval = np.asarray(output_fit), np.asarray(output_eval)
    if classification and np.unique(target_fit).size == 1:  # the model decides one class everywhere: one leaf
        only = target_fit[0].item() if hasattr(target_fit[0], "item") else target_fit[0]
        return {
            "tree": None,
            "fidelity": float(np.mean(target_eval == only)),
            "fidelity_metric": "agreement",
            "depth": 0,
            "n_leaves": 1,
            "rules": [{"conditions": [], "splits": [], "prediction": only, "rows": int(target_fit.size)}],
        }
    if classification:
        tree = DecisionTreeClassifier(max_depth=max_depth, random_state=random_state).fit(X_fit, target_fit)
        fidelity, metric = float(np.mean(tree.predict(X_eval) == target_eval)), "agreement"
        labels = tree.classes_.tolist()
    else:
        target_fit, target_eval = target_fit.astype(np.float64), target_eval.astype(np.float64)
        tree = DecisionTreeRegressor(max_depth=max_depth, random_state=random_state).fit(X_fit, target_fit)
        residual = np.sum((target_eval - tree.predict(X_eval)) ** 2)
        total = np.sum((target_eval - target_eval.mean()) ** 2)
        fidelity, metric = (float(1.0 - residual / total) if total > 0 else float(residual == 0)), "r2"
        labels = None
    return {
        "tree": tree,
        "fidelity": fidelity,
        "fidelity_metric": metric,
        "depth": tree.get_depth(),
        "n_leaves": tree.get_n_leaves(),
        "rules": _rules(tree, list(feature_names), labels),
    }
