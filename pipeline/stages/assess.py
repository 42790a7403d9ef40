"""Stage 6, assess: how much to trust the cross-validated score of the chosen model (pipeline/assessment.py):
the leakage estimate (the same configuration scored by a row-level CV, beside the grouped CV of the search) and the
learning curve on the grouped splits with its diagnosis. The no-skill baselines are scored by train and evaluate."""
from __future__ import annotations

from pipeline import build, folds, paths
from pipeline.assessment import diagnosis, inflation, leakage_sentence, learning_curves, row_level_scores
from pipeline.config import load_params
from pipeline.errors import run_stage
from pipeline.frames import feature_columns, raw_matrix
from pipeline.io import read_json, read_parquet, write_json
from pipeline.task import Target


def main() -> None:
    params = load_params()
    data, cfg, seed = params["data"], params["assess"], params["seed"]
    target = Target.read(paths.TARGET)
    trained, search = read_json(paths.TRAIN_METRICS, "train"), read_json(paths.SEARCH_REPORT, "train")
    scorer = build.scorer("search.scoring", trained["scoring"], target.task)
    train = read_parquet(paths.TRAIN, "split")
    y = target.encode(train[data["target"]])

    def make_model():
        return build.model(trained["model"], params["model"], seed, **trained["best_params"])

    report = {"scoring": scorer.name, "model": trained["model"], "best_params": trained["best_params"]}
    if data["group"] and cfg["leakage"]:
        numeric, categorical = feature_columns(train.columns, data)
        row_scores = row_level_scores(
            raw_matrix(train, numeric, categorical), y,
            lambda: build.feature_transformer(params["features"], numeric, categorical, seed), make_model, scorer,
            params["split"]["n_splits"], seed, target.regression)
        grouped = search["candidates"][search["best_index"]]["valid_scores"]
        report["leakage"] = inflation(row_scores, grouped, scorer.greater_is_better)
        report["leakage"]["statement"] = leakage_sentence(report["leakage"], scorer.name, data["group"])
        print(f"assess: leakage estimate: {report['leakage']['statement']}")
    else:
        report["leakage"] = {"statement": "not estimated: " + ("data.group is null (rows are independent)"
                                                              if not data["group"] else "assess.leakage is false")}
    if cfg["learning_curve"]:
        splits = folds.splits_of(read_parquet(paths.FOLDS, "split"))
        matrices = [read_parquet(paths.fold_features(k), "features").drop(columns=[paths.ROW_ID]).to_numpy()
                    for k in range(len(splits))]
        curve = learning_curves(matrices, y, splits, make_model, scorer, cfg["train_fractions"], seed)
        report["learning_curve"] = {**curve, "diagnosis": diagnosis(curve, scorer.greater_is_better)}
        print(f"assess: learning curve ({scorer.name}) validation "
              + ", ".join(f"{f:g}: {v:.4f}" for f, v in zip(curve["fractions"], curve["valid_mean"]))
              + f"; {report['learning_curve']['diagnosis']['verdict']}")
        rows = [{"fraction": f, "rows": n, "train": t, "valid": v}
                for f, n, t, v in zip(curve["fractions"], curve["train_rows"], curve["train_mean"], curve["valid_mean"])]
    else:
        report["learning_curve"], rows = None, []
    write_json(report, paths.ASSESSMENT)
    write_json(rows, paths.LEARNING_CURVE)


if __name__ == "__main__":
    run_stage(main)
