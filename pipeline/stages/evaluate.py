"""The evaluate stage: the test set, used once (seed 004, D4:200, 543), through the deployed predictor
(models/predictor: features -> model -> calibrator -> decision rule), so these are the decisions fairness,
explain and the served model make too. Metrics, curves, the reject option, every figure's bootstrap interval and the
rule beside the no-skill rule (what the promotion gate reads) are pipeline/steps/evaluation.py's.

Sections cited: Ghent ML notes (seed 004): 1.5 Model Selection: hyperparameter analysis (200)"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pipeline.core import build, paths
from pipeline.core.config import load_params
from pipeline.core.errors import run_stage
from pipeline.core.evaluation_records import ComparisonOnTest
from pipeline.core.io import read_parquet, read_predictor, write_csv, write_json, write_parquet
from pipeline.core.json_types import JSON
from pipeline.core.partitions import data_mode
from pipeline.core.records import FeaturesReport, TrainMetrics
from pipeline.core.summaries import sensitive_groupings
from pipeline.core.task import Target
from pipeline.steps import drift
from pipeline.steps.comparison import test_gains
from pipeline.steps.evaluation import with_intervals
from pipeline.steps.evaluation_files import plot_files, test_summary
from pipeline.steps.measures import measure
from pipeline.steps.row_outputs import test_outputs

if TYPE_CHECKING:
    from mllib.base import BaseEstimator


def comparison_on_test(
    params: JSON,
    target: Target,
    trained: TrainMetrics,
    y_train: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray | None,
    model: BaseEstimator,
) -> ComparisonOnTest | None:
    """The chosen model's test score minus each other compared model's, with paired bootstrap intervals drawn as the
    test figures' are (whole data.group clusters, else within strata)."""
    data = params["data"]
    groups_train = (
        read_parquet(paths.TRAIN, "split", columns=[data["group"]])[data["group"]].to_numpy() if data["group"] else None
    )
    scorer = build.scorer("search.scoring", trained.scoring, target)
    return test_gains(
        params["model"],
        params["seed"],
        trained,
        scorer,
        y_train,
        groups_train,
        y,
        model,
        lambda figures_of, n: with_intervals(figures_of, n, params, clusters=groups, strata=target.strata(y)),
    )


def main() -> None:
    params = load_params()
    data = params["data"]
    target = Target.read(paths.TARGET)
    predictor = read_predictor(paths.PREDICTOR)
    test, outputs = test_outputs(data_mode(params, paths.TRAIN), params, target, predictor)
    y = target.encode(test[data["target"]])
    y_train = target.encode(read_parquet(paths.TRAIN, "split", columns=[data["target"]])[data["target"]])  # baseline
    trained = TrainMetrics.read()
    groups = test[data["group"]].to_numpy() if data["group"] else None  # the intervals draw a group's rows together
    groupings = sensitive_groupings(test, data["sensitive"])
    metrics, plots, row_columns = measure(target, params, predictor, outputs, y, y_train, trained, groups, groupings)
    write_parquet(pd.DataFrame({paths.ROW_ID: test[paths.ROW_ID], **row_columns}), paths.TEST_PREDICTIONS)
    print(test_summary(target, predictor, metrics))
    for path, content in plot_files(target, plots).items():
        if isinstance(content, pd.DataFrame):
            write_csv(content, path)
        else:
            write_json(content, path)
    metrics["comparison"] = comparison_on_test(params, target, trained, y_train, y, groups, predictor.model)
    inputs = FeaturesReport.read()
    numeric, categorical = inputs.numeric, inputs.categorical
    group = [data["group"]] if data["group"] else []
    columns = [*numeric, *categorical, *group]
    train, test = (read_parquet(path, "split", columns=columns) for path in (paths.TRAIN, paths.TEST))
    time = inputs.time.column if inputs.time else None
    metrics["drift"] = drift.compare(
        train, test, numeric, categorical, params["monitor"], params["seed"], "test rows", data["group"], time=time
    )
    record = target.test_record.of(metrics)
    print(f"evaluate: drift: {record.drift.statement}")
    record.write()


if __name__ == "__main__":
    run_stage(main)
