"""The real-data corpus (tests/real_data.py) through the whole pipeline beside a scikit-learn script, file by file.

Each file is brought as a user would: exported from the package that ships it, params.yaml's `data` section edited
(nothing else), `dvc repro` in a scratch DVC project (every stage to the MLflow run), timed with its CPU, wall time
and the peak RSS of its largest process. The script then fits scikit-learn on the same training and test rows and the
same CV splits (read from the project's data/processed): the same preprocessing (median imputation with missing
indicators and scaling for numeric columns; most-frequent imputation and one-hot encoding with rare levels pooled
for categorical ones, min_frequency 10, max_categories 50), the same default model (logistic regression,
multinomial for more than two classes, C = 1 / (2 lam); ridge regression, alpha = lam, on the standardized target)
searched over the same grid by the same score, refitted on every training row and scored once on test. The comparison
is of the models: the pipeline's model test figure is that of its own scores (test.json calibration.ranking.model);
the deployed predictor's, after the calibration map that calibration.method auto chose, is beside it (a monotone map
leaves AUC unchanged; isotonic's ties and histogram binning's bins can move it).

Run: .venv/bin/python benchmarks/bench_real_data.py [names...]   (writes benchmarks/results/real_data.md)
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


def project_for(dataset, root: Path) -> Path:
    """A scratch DVC project holding the file and the repository's params.yaml with only `data` changed."""
    import yaml

    export(root / "data/raw", [dataset.name])
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["data"] = dataset.data_section(f"data/raw/{dataset.name}.csv")
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    copy_code(root)
    return commit_all(root)


def sklearn_job(project: Path) -> dict:
    """scikit-learn on the project's own rows and splits (module docstring); writes and returns its chosen lam, CV and
    test headline (project/reference.json)."""
    import numpy as np
    import pandas as pd
    import yaml
    from sklearn.compose import ColumnTransformer, TransformedTargetRegressor
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
    excluded = {"_row_id", data["target"], data["group"], *data["drop"]}
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
            return roc_auc_score(y_true, fitted.decision_function(X))
        return roc_auc_score(y_true, fitted.predict_proba(X), multi_class="ovr", average="macro")

    k = sum(c.startswith("valid_") for c in membership.columns)
    splits = [
        (np.flatnonzero(membership[f"train_{i}"] > 0), np.flatnonzero(membership[f"valid_{i}"])) for i in range(k)
    ]
    grid = params["search"]["grid"]["ridge" if task == "regression" else "logistic_regression"]["lam"]
    cv = {
        lam: float(np.mean([score(y[va], make(lam).fit(train.iloc[tr][features], y[tr]), train.iloc[va][features])
                            for tr, va in splits]))
        for lam in grid
    }  # fmt: skip
    best = max(grid, key=lambda lam: cv[lam])
    result = {
        "lam": best,
        "cv": cv[best],
        "test": float(score(y_test, make(best).fit(train[features], y), test[features])),
    }
    (project / "reference.json").write_text(json.dumps(result))
    return result


def run(dataset) -> dict:
    python = str(ROOT / ".venv" / "bin" / "python")
    with tempfile.TemporaryDirectory() as scratch:
        project = project_for(dataset, Path(scratch))
        cpu, wall, peak = timed(["dvc", "repro"], cwd=project)
        _, script_wall, _ = timed([python, str(Path(__file__)), "--sklearn-job", str(project)])
        reference = json.loads((project / "reference.json").read_text())

        def read(path):
            return json.loads((project / path).read_text())

        validation, split, cleaning = (read(f"reports/{n}.json") for n in ("validation", "split", "cleaning"))
        test, train, calibration = (read(f"reports/metrics/{n}.json") for n in ("test", "train", "calibration"))
        task = validation["task"]
        metric = HEADLINE[task]
        ranking = test.get("calibration", {}).get("ranking")  # classification: the model's own scores and the map's
        ours = ranking["model"] if ranking else test[metric]
        difference = ours - reference["test"]
        return {
            "file": dataset.name,
            "rows x columns": f"{validation['rows_in']} x {validation['columns']}",
            "task (inferred)": task + (f", {len(validation['classes'])} classes" if task == "multiclass" else ""),
            "split (auto)": f"{split['strategy']} ({split['rows']['train']} / {split['rows']['test']})",
            "metric": metric,
            "model test": f"{ours:.4f}",
            "scikit-learn test": f"{reference['test']:.4f}",
            "difference": f"{difference:+.4f}",
            "within bound": "yes" if abs(difference) <= TOLERANCE[task] else "NO",
            "chosen lam (ours / sklearn)": f"{train['best_params'].get('lam')} / {reference['lam']}",
            "map deployed (auto)": calibration["method"] if task != "regression" else "(intervals)",
            "deployed test": f"{test[metric]:.4f}",
            "rows removed": cleaning["rows_in"] - cleaning["rows_out"] + validation["rows_quarantined"],
            "pipeline wall s": f"{wall:.1f}",
            "pipeline CPU s": f"{cpu:.1f}",
            "peak RSS MB": f"{peak:.0f}",
            "script wall s": f"{script_wall:.1f}",
        }


def main() -> None:
    names = [a for a in sys.argv[1:] if not a.startswith("-")]
    datasets = [BY_NAME[n] for n in names] if names else CORPUS
    rows = []
    for dataset in datasets:
        print(f"== {dataset.name}", flush=True)
        rows.append(run(dataset))
        print(rows[-1], flush=True)
    write_table(
        rows,
        "real_data.md",
        before=(
            "# The real-data corpus beside scikit-learn\n\n"
            "Each public file (tests/real_data.py) brought by editing only `data` in params.yaml, `dvc repro` in a "
            "scratch project (all 12 stages to the MLflow run; numba's cache warm), and a scikit-learn script on the "
            "same train / test rows and CV splits with the same preprocessing, model and grid "
            "(benchmarks/bench_real_data.py). Bounds: 0.01 AUC, 0.02 R^2, on the model's own test scores; the deployed "
            "test figure is after the calibration map `calibration.method: auto` chose. Wall and CPU of the whole "
            "`dvc repro`; peak RSS of its largest process; the script's wall time includes its imports.\n\n"
        ),
    )


if __name__ == "__main__":
    if "--sklearn-job" in sys.argv:
        sklearn_job(Path(sys.argv[sys.argv.index("--sklearn-job") + 1]))
    else:
        main()
