"""MLP beside scikit-learn's MLPClassifier: person-grouped 5-fold CV on the default data, single thread.

Same settings both sides: mini-batches of 200, L2 alpha 1e-4, learning rate 1e-3 (Adam) or 1e-2 (SGD with
momentum 0.9), a fixed number of epochs (early stopping off, tol 0 and n_iter_no_change = max_iter, so both
run every epoch). The goal row is one hidden layer of 64 ReLU units with Adam (issue 6: AUC >= 0.74, and
time per epoch <= 1.5 x scikit-learn's); 20 epochs is where both libraries' validation AUC peaks (it
declines slowly after, by overfitting). The second row checks a deeper tanh net with SGD + momentum.
Run: .venv/bin/python benchmarks/bench_mlp.py [epochs]
"""

from __future__ import annotations

import sys
import warnings

from common import compare, load_folds, write_table

EPOCHS = int(sys.argv[1]) if len(sys.argv) > 1 else 20


def main() -> None:
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier as SkMLP

    from mllib.neural import MLPClassifier

    warnings.simplefilter("ignore", ConvergenceWarning)  # running all max_iter epochs is the point here
    folds = load_folds()
    common = dict(
        batch_size=200,
        alpha=1e-4,
        max_iter=EPOCHS,
        tol=0.0,
        n_iter_no_change=EPOCHS,
        early_stopping=False,
        random_state=0,
    )
    configs = {
        f"mlp (64,) relu adam lr 1e-3, {EPOCHS} epochs": dict(
            hidden_layer_sizes=(64,), activation="relu", solver="adam", lr=1e-3
        ),
        f"mlp (64, 64) tanh sgd momentum 0.9 lr 1e-2, {EPOCHS} epochs": dict(
            hidden_layer_sizes=(64, 64), activation="tanh", solver="sgd", lr=1e-2, momentum=0.9
        ),
    }
    fitted = {name: {"mllib": [], "sklearn": []} for name in configs}

    def factories(name, cfg):
        cfg = dict(cfg)
        lr = cfg.pop("lr")

        def ours():
            fitted[name]["mllib"].append(MLPClassifier(learning_rate=lr, **cfg, **common))
            return fitted[name]["mllib"][-1]

        def reference():
            extra = dict(learning_rate="constant", nesterovs_momentum=False) if cfg["solver"] == "sgd" else {}
            fitted[name]["sklearn"].append(SkMLP(learning_rate_init=lr, **cfg, **extra, **common))
            return fitted[name]["sklearn"][-1]

        return ours, reference

    rows = compare({name: factories(name, cfg) for name, cfg in configs.items()}, folds)
    for row in rows:
        epochs = {lib: sum(m.n_iter_ for m in models) for lib, models in fitted[row["model"]].items()}
        row["epochs_mllib"], row["epochs_sklearn"] = epochs["mllib"], epochs["sklearn"]
        row["per_epoch_ratio"] = round((row["s_mllib"] / epochs["mllib"]) / (row["s_sklearn"] / epochs["sklearn"]), 2)
        print(row, flush=True)
    write_table(rows, "mlp.md")


if __name__ == "__main__":
    main()
