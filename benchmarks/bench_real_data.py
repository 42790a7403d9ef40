"""The real-data corpus (tests/real_data.py) through the whole pipeline beside three peers, file by file.

Each file is brought as a user would: exported from the package that ships it, params.yaml's `data` section edited
(nothing else), `dvc repro` in a scratch DVC project (every stage to the MLflow run), timed with its CPU, wall time
and the peak RSS of its largest process. The pipeline's figure is its deployed test headline (test.json: the model
its default chose, after the calibration map `calibration.method: auto` chose), whatever the default model is.

The peers are fitted on the same training rows and scored on the same test rows (read from the project's
data/processed), in a subprocess, single-threaded:
- linear: the same preprocessing (median imputation with missing indicators and scaling for numeric columns;
  most-frequent imputation and one-hot encoding with rare levels pooled for categorical ones, min_frequency 10,
  max_categories 50) and the pipeline's linear default (logistic regression, multinomial for more than two classes,
  C = 1 / (2 lam); ridge regression, alpha = lam, on the standardized target) searched over params.yaml's grid on the
  project's own CV splits by the same score, refitted on every training row;
- scikit-learn's HistGradientBoostingClassifier / Regressor and LightGBM's LGBMClassifier / LGBMRegressor
  (verbose=-1, n_jobs=1), both with default settings, fed the linear model's preprocessed matrix (the same
  ColumnTransformer fitted on the training rows: categories one-hot encoded, no native categorical handling).
While the pipeline's model is linear, its own scores' test figure (test.json calibration.ranking.model for classes)
is compared with the linear peer's too (the agreement of mllib with scikit-learn, with the lam each chose).

Run: .venv/bin/python benchmarks/bench_real_data.py [names...]   (writes benchmarks/results/real_data.md; with names,
     only those files' rows are replaced)
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from bench_pipeline import commit_all, copy_code, timed
from common import ROOT, write_table

sys.path.insert(0, str(ROOT / "tests"))
from real_data import BY_NAME, CORPUS, export  # noqa: E402

HEADLINE = {"binary": "roc_auc", "multiclass": "roc_auc_ovr", "regression": "r2"}
TOLERANCE = {"binary": 0.01, "multiclass": 0.01, "regression": 0.02}  # the agreement bounds
LINEAR = ("logistic_regression", "ridge")  # the pipeline's linear defaults, the linear peer's models


def project_for(dataset, root: Path) -> Path:
    """A scratch DVC project holding the file and the repository's params.yaml with only `data` changed."""
    import yaml

    export(root / "data/raw", [dataset.name])
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["data"] = dataset.data_section(f"data/raw/{dataset.name}.csv")
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    copy_code(root)
    return commit_all(root)


def peers_job(project: Path) -> dict:
    """The three peers on the project's own rows and splits (module docstring); writes and returns, per peer, its test
    headline and the seconds of its fits and scores (the linear peer's: its search over the CV splits and the refit),
    with the lam and CV score the linear peer chose (project/reference.json)."""
    import time

    import lightgbm
    import numpy as np
    import pandas as pd
    import yaml
    from sklearn.compose import ColumnTransformer, TransformedTargetRegressor
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.metrics import r2_score, roc_auc_score
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    params = yaml.safe_load((project / "params.yaml").read_text())
    data = params["data"]
    task = json.loads((project / "reports/validation.json").read_text())["task"]
    classes = json.loads((project / "data/processed/target.json").read_text())["classes"]
    train = pd.read_parquet(project / "data/processed/train.parquet")
    test = pd.read_parquet(project / "data/processed/test.parquet")
    membership = pd.read_parquet(project / "data/processed/folds.parquet")
    excluded = {"_row_id", data["target"], data["group"], data["time"], *data["drop"]}  # time is never a feature
    features = [c for c in train.columns if c not in excluded]
    categorical = [c for c in features if c in data["categorical"]]
    numeric = [c for c in features if c not in categorical]
    for frame in (train, test):  # categories as text, as the pipeline reads them
        for c in categorical:
            frame[c] = frame[c].map(lambda v: v if pd.isna(v) else str(v)).astype(object)

    def encode(values):
        if task == "regression":
            return values.to_numpy(dtype=float)
        spelled = [str(int(v)) if isinstance(v, float) and float(v).is_integer() else str(v) for v in values]
        return np.array([classes.index(s) if s in classes else classes.index(int(s)) for s in spelled])

    y, y_test = encode(train[data["target"]]), encode(test[data["target"]])

    def make(lam):
        numeric_steps = [("impute", SimpleImputer(strategy="median", add_indicator=True)), ("scale", StandardScaler())]
        categorical_steps = [
            ("impute", SimpleImputer(strategy="most_frequent")),
            ("encode", OneHotEncoder(handle_unknown="infrequent_if_exist", min_frequency=10, max_categories=50)),
        ]
        prep = ColumnTransformer(
            [("numeric", Pipeline(numeric_steps), numeric), ("categorical", Pipeline(categorical_steps), categorical)]
        )
        if task == "regression":
            model = TransformedTargetRegressor(Ridge(alpha=lam), transformer=StandardScaler())
        else:
            model = LogisticRegression(C=1 / (2 * lam), max_iter=10_000, tol=1e-10)
        return Pipeline([("prep", prep), ("model", model)])

    def score(y_true, fitted, X):
        if task == "regression":
            return r2_score(y_true, fitted.predict(X))
        if task == "binary":
            scores = fitted.decision_function(X) if hasattr(fitted, "decision_function") else fitted.predict_proba(X)
            return roc_auc_score(y_true, scores if scores.ndim == 1 else scores[:, 1])
        return roc_auc_score(y_true, fitted.predict_proba(X), multi_class="ovr", average="macro")

    k = sum(c.startswith("valid_") for c in membership.columns)
    splits = [
        (np.flatnonzero(membership[f"train_{i}"] > 0), np.flatnonzero(membership[f"valid_{i}"])) for i in range(k)
    ]
    grid = params["search"]["grid"]["ridge" if task == "regression" else "logistic_regression"]["lam"]
    start = time.perf_counter()
    cv = {
        lam: float(np.mean([score(y[va], make(lam).fit(train.iloc[tr][features], y[tr]), train.iloc[va][features])
                            for tr, va in splits]))
        for lam in grid
    }  # fmt: skip
    best = max(grid, key=lambda lam: cv[lam])
    linear = make(best).fit(train[features], y)
    result = {"lam": best, "cv": cv[best], "linear": float(score(y_test, linear, test[features]))}
    result["linear_s"] = time.perf_counter() - start

    def dense(X):
        return X.toarray() if hasattr(X, "toarray") else np.asarray(X)

    prep = linear.named_steps["prep"]  # fitted on the training rows
    X, X_test = dense(prep.transform(train[features])), dense(prep.transform(test[features]))
    regression = task == "regression"
    trees = {
        "hgb": HistGradientBoostingRegressor() if regression else HistGradientBoostingClassifier(),
        "lightgbm": (lightgbm.LGBMRegressor if regression else lightgbm.LGBMClassifier)(verbose=-1, n_jobs=1),
    }
    for name, model in trees.items():
        start = time.perf_counter()
        result[name] = float(score(y_test, model.fit(X, y), X_test))
        result[f"{name}_s"] = time.perf_counter() - start
    (project / "reference.json").write_text(json.dumps(result))
    return result


PEERS = {"linear": "linear", "hgb": "HGB", "lightgbm": "LightGBM"}


def cv_gain(train: dict) -> str:
    """The chosen model's mean CV score minus the linear model's on the same folds, with the standard error of the
    paired difference (train.json comparison); where the linear model is kept, the best model's gain over it, which
    the one-SE rule found within one standard error."""
    comparison = train.get("comparison")
    if not comparison:
        return "(no comparison)"
    gain = comparison.get("gain_over_simplest")
    if gain:
        return f"{gain['gain']:+.4f} ({gain['standard_error']:.4f})"
    if comparison["best"] == comparison["chosen"]:
        return "linear is the best"
    test = next(m["versus_best"] for m in comparison["models"] if m["model"] == comparison["chosen"])
    return f"kept: {comparison['best']} {test['mean_difference']:+.4f} ({test['standard_error']:.4f})"


def run(dataset) -> dict:
    python = str(ROOT / ".venv" / "bin" / "python")
    with tempfile.TemporaryDirectory() as scratch:
        project = project_for(dataset, Path(scratch))
        cpu, wall, peak = timed(["dvc", "repro"], cwd=project)
        timed([python, str(Path(__file__)), "--peers-job", str(project)])
        peers = json.loads((project / "reference.json").read_text())

        def read(path):
            return json.loads((project / path).read_text())

        validation, split, cleaning = (read(f"reports/{n}.json") for n in ("validation", "split", "cleaning"))
        test, train, calibration = (read(f"reports/metrics/{n}.json") for n in ("test", "train", "calibration"))
        task = validation["task"]
        metric = HEADLINE[task]
        deployed = test[metric]
        better = max(PEERS, key=lambda peer: peers[peer])
        difference = deployed - peers[better]
        params = ", ".join(f"{k} {v}" for k, v in sorted((train.get("best_params") or {}).items()))
        if train["model"] in LINEAR:  # mllib's linear model beside scikit-learn's on its own (uncalibrated) scores
            ranking = test.get("calibration", {}).get("ranking")
            ours = ranking["model"] if ranking else test[metric]
            agreement = f"{ours - peers['linear']:+.4f} ({train['best_params'].get('lam')} / {peers['lam']})"
        else:
            agreement = "(not linear)"
        return {
            "file": dataset.name,
            "rows x columns": f"{validation['rows_in']} x {validation['columns']}",
            "task (inferred)": task + (f", {len(validation['classes'])} classes" if task == "multiclass" else ""),
            "split (auto)": f"{split['strategy']} ({split['rows']['train']} / {split['rows']['test']})",
            "metric": metric,
            "pipeline model (chosen)": train["model"] + (f" ({params})" if params else ""),
            "CV gain over linear (SE)": cv_gain(train),
            "map deployed (auto)": calibration["method"] if task != "regression" else "(intervals)",
            "pipeline deployed test": f"{deployed:.4f}",
            "linear test": f"{peers['linear']:.4f}",
            "HGB test": f"{peers['hgb']:.4f}",
            "LightGBM test": f"{peers['lightgbm']:.4f}",
            "better peer": PEERS[better],
            "pipeline - better peer": f"{difference:+.4f}",
            "within bound": "yes" if difference >= -TOLERANCE[task] else "NO",
            "linear: ours - sklearn (lam ours / sklearn)": agreement,
            "rows removed": cleaning["rows_in"] - cleaning["rows_out"] + validation["rows_quarantined"],
            "pipeline wall s": f"{wall:.1f}",
            "pipeline CPU s": f"{cpu:.1f}",
            "peak RSS MB": f"{peak:.0f}",
            "peers s (linear / HGB / LightGBM)": " / ".join(f"{peers[f'{p}_s']:.1f}" for p in PEERS),
        }


def table_rows(path: Path) -> dict[str, dict]:
    """The first table of a results file as {file: {column: cell}} (the rows a run of some files leaves alone)."""
    lines = [line for line in path.read_text().splitlines() if line.startswith("|")] if path.exists() else []
    if not lines:
        return {}
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    columns, body = cells[0], [c for c in cells[2:] if len(c) == len(cells[0])]
    return {row[0]: dict(zip(columns, row)) for row in body}


def main() -> None:
    names = [a for a in sys.argv[1:] if not a.startswith("-")]
    datasets = [BY_NAME[n] for n in names] if names else CORPUS
    rows = {}
    for dataset in datasets:
        print(f"== {dataset.name}", flush=True)
        rows[dataset.name] = run(dataset)
        print(rows[dataset.name], flush=True)
    if names:  # the other files keep their rows of the last run
        rows = {**table_rows(ROOT / "benchmarks" / "results" / "real_data.md"), **rows}
    write_table(
        [rows[d.name] for d in CORPUS if d.name in rows],
        "real_data.md",
        before=(
            "# The real-data corpus: the pipeline beside a linear model, HistGradientBoosting and LightGBM\n\n"
            "Each public file (tests/real_data.py) brought by editing only `data` in params.yaml, `dvc repro` in a "
            "scratch project (all 13 stages to the MLflow run; numba's cache warm), and three peers fitted on the "
            "same training rows and scored on the same test rows (benchmarks/bench_real_data.py): the linear model "
            "(scikit-learn, the pipeline's preprocessing, its linear default searched over its grid on the same CV "
            "splits), HistGradientBoosting and LightGBM with default settings, both fed the linear model's "
            "preprocessed matrix (one-hot categories). The pipeline's figure is its deployed test headline (the "
            "model its default chose, after the calibration map `calibration.method: auto` chose); the better peer "
            "is the best of the three, and the bound (0.01 AUC, 0.02 R^2) is how far below it the pipeline may be. "
            "Wall and CPU of the whole `dvc repro`; peak RSS of its largest process; the peers' seconds are their "
            "fits and test scores (the linear peer's include its search), single-threaded.\n\n"
        ),
    )


if __name__ == "__main__":
    if "--peers-job" in sys.argv:
        peers_job(Path(sys.argv[sys.argv.index("--peers-job") + 1]))
    else:
        main()
