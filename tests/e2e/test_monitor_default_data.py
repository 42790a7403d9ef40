"""The monitor end to end on the whole default data (the RAND file as the repository ships it, every person): its
test rows as a labelled batch pass every check, and the same rows with income moved (and no target) fail with one
line naming the column. The four scenarios of test_pipeline_e2e.py run it on smaller files of each task."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from conftest import REPO
from dvc_project import git_repo, sh, tracked

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("default_data")
    (root / "data/raw").mkdir(parents=True)
    shutil.copy(REPO / "data/raw/randhie.csv.gz", root / "data/raw/randhie.csv.gz")
    shutil.copy(REPO / "params.yaml", root / "params.yaml")
    git_repo(root)
    result = sh(root, "dvc", "repro")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return root


def test_test_rows_pass_and_a_shifted_batch_fails_naming_the_column(project):
    root = project
    test = pd.read_parquet(root / "data/processed/test.parquet").drop(columns=["_row_id"])
    (root / "data/new").mkdir()
    test.to_csv(root / "data/new/test_rows.csv", index=False)
    result = sh(root, "python", "-m", "pipeline.stages.monitor", "data/new/test_rows.csv")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    record = json.loads((root / "reports/monitor.json").read_text())
    assert record["failures"] == [] and record["labels"]["rows"] == len(test)
    assert record["drift"]["one_row_per"] == "zper" and record["mlflow"]["version"] == str(
        tracked(root)["version"].version
    )
    # the monitor's runs have their own experiment, each tagged with the version it checked
    pipeline = tracked(root)
    run = pipeline["client"].get_run(record["mlflow"]["run_id"])
    assert pipeline["client"].get_experiment(run.info.experiment_id).name == f"{pipeline['experiment']} monitor"
    assert run.data.tags["monitor.model_version"] == record["mlflow"]["version"]

    shifted = test.drop(columns=["binexp"])
    shifted["income"] = shifted["income"] * 1.5 + 2000
    shifted.to_csv(root / "data/new/shifted.csv", index=False)
    result = sh(root, "python", "-m", "pipeline.stages.monitor", "data/new/shifted.csv")
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 1 and len(lines) == 1 and len(lines[0]) < 300
    assert lines[0].startswith("error: monitor: data/new/shifted.csv FAILS: column 'income' drifted (ks, adjusted p ")
    estimate = json.loads((root / "reports/monitor.json").read_text())["estimate"]
    assert (
        estimate["metric"] == "roc_auc" and estimate["interval"][0] <= estimate["estimate"] <= estimate["interval"][1]
    )
