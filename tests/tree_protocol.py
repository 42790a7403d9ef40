"""The shared tree protocol (tree_ensemble() of CART trees, forests, AdaBoost and gradient boosting) read naively, in
numpy: the oracle the compiled traversals are tested against. Imported by tests as `from tree_protocol import ...`
(tests/ is on sys.path, as for conftest)."""

import numpy as np


def leaves(tree: dict, X: np.ndarray) -> np.ndarray:
    """The leaf each row of X reaches: from node 0, left when x[feature] <= threshold, until left == -1."""
    node = np.zeros(X.shape[0], dtype=np.int64)
    while True:
        i = np.flatnonzero(tree["left"][node] >= 0)
        if i.size == 0:
            return node
        go_left = X[i, tree["feature"][node[i]]] <= tree["threshold"][node[i]]
        node[i] = np.where(go_left, tree["left"][node[i]], tree["right"][node[i]])


def ensemble_output(ens: dict, X: np.ndarray) -> np.ndarray:
    """offset + sum_t scale_t value_t[leaf_t(x)], shape (n, n_outputs)."""
    out = np.tile(np.asarray(ens["offset"], dtype=np.float64), (X.shape[0], 1))
    for tree, scale in zip(ens["trees"], ens["scale"]):
        out += scale * tree["value"][leaves(tree, X)]
    return out
