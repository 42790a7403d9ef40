"""Stage 6, assess: how much to trust the cross-validated score of the chosen model (pipeline/assessment.py):
the leakage estimate (the same configuration scored by a row-level CV, beside the grouped CV of the search), nested
CV around the whole search (its unbiased estimate and optimism), the learning curve with its diagnosis and a
validation curve of one hyperparameter. The no-skill baselines are scored by train and evaluate."""

from __future__ import annotations

from pipeline import build, folds, paths
from pipeline.assessment import (
    diagnosis,
    inflation,
    leakage_sentence,
    learning_curves,
    nested_scores,
    row_level_scores,
    validation_sweep,
)
from pipeline.config import load_params
from pipeline.errors import run_stage
from pipeline.frames import feature_columns, raw_matrix
from pipeline.io import read_json, read_parquet, write_json
from pipeline.task import Target
from pipeline.training import candidate_params, load_fold_data


def main() -> None:
    params = load_params()
    data, cfg, seed = params["data"], params["assess"], params["seed"]
    target = Target.read(paths.TARGET)
    trained, search = read_json(paths.TRAIN_METRICS, "train"), read_json(paths.SEARCH_REPORT, "train")
    scorer = build.scorer("search.scoring", trained["scoring"], target.task)
    name = trained["model"]
    sweep = cfg["validation_curve"].get(name)
    if sweep:
        build.check_hyperparameter_names(f"assess.validation_curve.{name}", name, sweep)
    train = read_parquet(paths.TRAIN, "split")
    y = target.encode(train[data["target"]])
    groups = train[data["group"]].to_numpy() if data["group"] else None
    splits = folds.splits_of(read_parquet(paths.FOLDS, "split"))
    fold_data = load_fold_data(y, splits, groups)
    matrices = [
        read_parquet(paths.fold_features(k), "features").drop(columns=[paths.ROW_ID]).to_numpy()
        for k in range(len(splits))
    ]

    def make_model(**hyperparameters):
        return build.model(name, params["model"], seed, **{**trained["best_params"], **hyperparameters})

    report = {"scoring": scorer.name, "model": name, "best_params": trained["best_params"]}
    if data["group"] and cfg["leakage"]:
        numeric, categorical = feature_columns(train.columns, data)
        row_scores = row_level_scores(
            raw_matrix(train, numeric, categorical),
            y,
            lambda: build.feature_transformer(params["features"], numeric, categorical, seed),
            make_model,
            scorer,
            params["split"]["n_splits"],
            seed,
            target.regression,
        )
        grouped = search["candidates"][search["best_index"]]["valid_scores"]
        report["leakage"] = inflation(row_scores, grouped, scorer.greater_is_better)
        report["leakage"]["statement"] = leakage_sentence(report["leakage"], scorer.name, data["group"])
        print(f"assess: leakage estimate: {report['leakage']['statement']}")
    else:
        report["leakage"] = {
            "statement": "not estimated: "
            + ("data.group is null (rows are independent)" if not data["group"] else "assess.leakage is false")
        }
    report["nested"] = None
    if cfg["nested"]:
        report["nested"] = nested_scores(
            matrices,
            y,
            groups,
            splits,
            make_model,
            candidate_params(params["search"], name, seed),
            scorer,
            cfg["inner_splits"],
            seed,
            target.regression,
        )
        print(
            f"assess: nested CV {scorer.name} {report['nested']['outer_mean']:.4f} ± "
            f"{report['nested']['outer_std']:.4f}"
            f" (inner best {report['nested']['inner_best_mean']:.4f}, optimism {report['nested']['optimism']:.4f})"
        )
    else:
        print("assess: nested CV is off (assess.nested: false)")
    report["learning_curve"], rows = None, []
    if cfg["learning_curve"]:
        curve = learning_curves(matrices, y, splits, make_model, scorer, cfg["train_fractions"], seed)
        report["learning_curve"] = {**curve, "diagnosis": diagnosis(curve, scorer.greater_is_better)}
        print(
            f"assess: learning curve ({scorer.name}) validation "
            + ", ".join(f"{f:g}: {v:.4f}" for f, v in zip(curve["fractions"], curve["valid_mean"]))
            + f"; {report['learning_curve']['diagnosis']['verdict']}"
        )
        rows = [
            {"fraction": f, "rows": n, "train": t, "valid": v}
            for f, n, t, v in zip(curve["fractions"], curve["train_rows"], curve["train_mean"], curve["valid_mean"])
        ]
    [(parameter, values)] = sweep.items() if sweep else [(None, None)]
    sweep_rows = (
        validation_sweep(make_model(), trained["best_params"], parameter, values, fold_data, scorer) if sweep else []
    )
    report["validation_curve"] = (
        {"parameter": parameter, "values": values}
        if sweep
        else {"statement": f"not run: assess.validation_curve has no entry for {name}"}
    )
    write_json(report, paths.ASSESSMENT)
    write_json(rows, paths.LEARNING_CURVE)
    write_json(sweep_rows, paths.SWEEP_CURVE)


if __name__ == "__main__":
    run_stage(main)
