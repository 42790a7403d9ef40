"""MLflow and DVC as their users expect, on a scratch project of the default sample: readable metrics (the headline
file DVC shows and the MLflow run logs, the run's own params), the registry (every state a version with alias
`candidate`, `champion` behind the promotion gate), the champion served by `mlflow models serve` from raw rows of
the data file with evaluate's decisions, requirements that cover the served code's imports, and a store that
moves with the repository."""

from __future__ import annotations

import ast
import hashlib
import json
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO, sample_copy
from dvc_project import repro, served_model, sh, tracked, user_env

from pipeline.tracking.runs import stage_output_md5s

pytestmark = pytest.mark.slow
NAME = "sample-binexp"  # tracking.experiment and registered_model null: named from the data file and target


@pytest.fixture(scope="module")
def project(tmp_path_factory, built_sample):
    root = sample_copy(built_sample, tmp_path_factory.mktemp("mlflow"))
    return root


def read(root: Path, path: str):
    return json.loads((root / path).read_text())


def client(root: Path):
    return tracked(root)["client"]


def test_dvc_and_mlflow_show_the_headline_figures(project):
    shown = sh(project, "dvc", "metrics", "show", "--json")
    assert shown.returncode == 0, shown.stderr
    values = [
        v
        for file in json.loads(shown.stdout)[""]["data"].values()
        for section in file["data"].values()
        for v in section.values()
    ]
    assert 20 <= len(values) <= 60, len(values)
    run = tracked(project)["run"]
    headline = read(project, "reports/metrics.json")
    assert len(run.data.metrics) <= 80 and run.data.metrics["test.roc_auc"] == headline["test"]["roc_auc"]
    assert set(run.data.metrics) == {f"{s}.{k}" for s, v in headline.items() for k, x in v.items() if x is not None}
    # the run says what it is: its params (at most 40) define it, the chosen lam among them; its name and description
    params, trained = run.data.params, read(project, "reports/metrics/train.json")
    assert len(params) <= 40, params
    assert all(params[f"model.params.{k}"] == str(v) for k, v in trained["best_params"].items()), params
    assert not any(k.startswith(("search.grid.", "assess.validation_curve.")) for k in params)
    commit = run.data.tags["git.commit"]
    # params.yaml as committed: nothing changed to name; then the headline and the decision (the runs table's column)
    assert run.info.run_name == f"repro {commit[:8]} | roc_auc {headline['test']['roc_auc']:.4f} | champion"
    note = run.data.tags["mlflow.note.content"]
    assert note.startswith("Verdict: ") and run.data.tags["verdict"] == note.split("\n")[0], note
    assert note.split("\n\n")[1].startswith(f"{trained['model']} (") and "params.yaml as committed" in note, note
    assert " Registered as sample-binexp version " in note, note
    experiment = client(project).get_experiment(run.info.experiment_id)
    assert experiment.tags["mlflow.experimentKind"] == "custom_model_development"
    logged = Path(client(project).download_artifacts(run.info.run_id, "params.yaml", str(project / ".dvc/tmp")))
    assert logged.read_text() == (project / "params.yaml").read_text()
    assert not any(k.startswith("dvc.md5") for k in run.data.tags)
    md5s = json.loads(
        Path(
            client(project).download_artifacts(run.info.run_id, "dvc_md5s.json", str(project / ".dvc/tmp"))
        ).read_text()
    )
    assert md5s == stage_output_md5s(project / "dvc.lock") and "train:models/model.npz" in md5s


def test_runs_compare_well(project):
    """Every report file the page is built from is an artifact (no .gitignore); the params name the model that ran;
    the headline metrics sort before the no-skill baseline's; candidates' and compared models' child runs share one
    metric naming scheme; no headline figure twice."""
    from pipeline.core import paths

    record, c = tracked(project), client(project)
    run = record["run"]

    def listed(path=None):
        for item in c.list_artifacts(run.info.run_id, path):
            yield from listed(item.path) if item.is_dir else [item.path]

    artifacts = set(listed())
    assert {str(path) for path, _ in paths.REPORT_INPUTS.values()} <= artifacts
    assert "reports/assessment.json" in artifacts and not any(a.endswith(".gitignore") for a in artifacts)
    chosen = read(project, "reports/metrics/train.json")["model"]
    assert run.data.params["model.name"] == chosen and run.data.params["model.name_in_params"] == "auto"
    metrics = sorted(run.data.metrics)
    assert metrics.index("test.roc_auc") < metrics.index("test_no_skill.roc_auc")
    assert not any(m.startswith("baseline.") for m in metrics) and "train.train_valid_gap" not in metrics
    children = c.search_runs(
        [record["experiment_id"]], filter_string=f"tags.`mlflow.parentRunId` = '{run.info.run_id}'"
    )
    assert children and all({"mean_valid_roc_auc", "std_valid_roc_auc"} <= set(r.data.metrics) for r in children)


def test_first_state_is_candidate_and_champion(project):
    version = tracked(project)["version"]
    assert version.name == NAME and str(version.version) == "1" and version.tags["promotion.decision"] == "champion"
    assert read(project, "reports/mlflow_run.json") == {
        "pipeline_state": tracked(project)["pipeline_state"],
        "experiment": NAME,
        "registered_model": NAME,
        "store": "default",
    }
    c = client(project)
    assert str(c.get_model_version_by_alias(NAME, "candidate").version) == "1"
    champion = c.get_model_version_by_alias(NAME, "champion")
    assert str(champion.version) == "1" and champion.tags["promotion.decision"] == "champion"
    # a registry that reads at a glance: a handful of tags, the decision and every check in the description
    assert len(champion.tags) <= 10 and champion.tags["promotion.failed"] == "none", champion.tags
    assert next(iter(champion.tags)) == "promotion.decision"  # registered first (pending), so it leads the tags
    assert champion.description.startswith("Champion: all ") and "FAILS" not in champion.description
    assert sum(line.startswith("- ") and "passes" in line for line in champion.description.splitlines()) >= 4
    assert champion.tags["contract.inputs"].startswith("30 columns: 28 numeric, 2 categorical (sha256 ")
    registered = c.get_registered_model(NAME)
    assert registered.description and "promotion gate" in registered.description
    assert "Promotion gate" in (project / "reports/report.html").read_text()


def test_the_model_code_imports_only_its_requirements(project):
    """Every third-party package the served code imports (mllib and the pipeline modules serving loads) is one of
    the logged model's requirements, so a model environment built from them can load it."""
    from pipeline.tracking.runs import SERVING_REQUIREMENTS

    sys.path.insert(0, str(REPO / "tests"))
    from test_imports import loaded_files, runtime_nodes

    served = [
        *Path(REPO / "mllib").rglob("*.py"),
        *(REPO / f for f in loaded_files("pipeline.serving.pyfunc_model")),
    ]
    imported = set()
    for path in served:
        for node in runtime_nodes(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = {m for m in imported if m not in sys.stdlib_module_names and m not in ("mllib", "pipeline")}
    assert third_party <= set(SERVING_REQUIREMENTS), third_party - set(SERVING_REQUIREMENTS)
    model = client(project).search_logged_models(experiment_ids=[tracked(project)["experiment_id"]])[0]
    requirements = Path(model.artifact_location.removeprefix("file://"), "requirements.txt").read_text()
    assert all(f"{p}==" in requirements for p in SERVING_REQUIREMENTS)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def served_answer(cwd: Path, tracking_uri: str, body: bytes, content_type: str) -> dict:
    """The answer of `mlflow models serve -m models:/<name>@champion` (MLflow's scoring server, started in `cwd`
    against the store `tracking_uri`) to one request."""
    port = free_port()
    command = ["mlflow", "models", "serve", "-m", f"models:/{NAME}@champion", "--env-manager", "local"]
    server = subprocess.Popen(
        [*command, "-h", "127.0.0.1", "-p", str(port)],
        cwd=cwd,
        env={**user_env(), "MLFLOW_TRACKING_URI": tracking_uri},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline, answer = time.monotonic() + 120, None
        while answer is None and time.monotonic() < deadline and server.poll() is None:
            try:
                request = urllib.request.Request(
                    f"http://127.0.0.1:{port}/invocations", data=body, headers={"Content-Type": content_type}
                )
                answer = json.loads(urllib.request.urlopen(request, timeout=30).read())
            except OSError:
                time.sleep(1)
        assert answer is not None, server.stderr.read()[-3000:] if server.poll() is not None else "no answer"
    finally:
        server.terminate()
        server.wait(timeout=30)
    return answer


def test_served_champion_answers_raw_rows_with_evaluates_decisions(project):
    rows = pd.read_csv(project / "data/raw/sample.csv")  # exactly as read from the user's file: int columns too
    test = pd.read_parquet(project / "data/processed/test.parquet")
    raw = rows.loc[test["_row_id"]].drop(columns=["binexp", "zper"])
    split = raw.to_dict(orient="split", index=False)  # Python numbers: JSON keeps every float digit
    body = json.dumps({"dataframe_split": split}).encode()
    answer = served_answer(project, tracked(project)["tracking_uri"], body, "application/json")
    served = pd.DataFrame(answer["predictions"])
    expected = pd.read_parquet(project / "data/predictions/test.parquet")
    np.testing.assert_allclose(served["probability_1"], expected["proba_1"], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(served["prediction"].to_numpy(), expected["prediction"].to_numpy())
    # the conformal set of each row, as evaluate's in_set_<class> columns say
    sets = [[k for k in (0, 1) if row[f"in_set_{k}"]] for _, row in expected.iterrows()]
    assert served["prediction_set"].tolist() == sets


def tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.md5(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_a_copied_repository_never_touches_the_original(project, tmp_path):
    before = {
        "db": hashlib.md5((project / "mlflow.db").read_bytes()).hexdigest(),
        "artifacts": tree_digest(project / "mlartifacts"),
    }
    copy = tmp_path / "copy"
    shutil.copytree(project, copy, symlinks=True)
    params = yaml.safe_load((copy / "params.yaml").read_text())
    params["tracking"]["experiment"] = "defensible-tabular"  # same store, a new state: a new run is logged
    params["fairness"]["n_boot"] = 50
    (copy / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    result = repro(copy)
    assert "store was created in" in result.stdout and "logged run" in result.stdout
    run = tracked(copy)["run"]
    assert run.info.artifact_uri.startswith((copy / "mlartifacts").as_uri())
    assert hashlib.md5((project / "mlflow.db").read_bytes()).hexdigest() == before["db"]
    assert tree_digest(project / "mlartifacts") == before["artifacts"]


def test_a_moved_copy_of_the_store_serves_the_model_by_mlflow_models_predict(project, tmp_path):
    """The store copied to another path, the original's artifacts out of reach: `mlflow models predict` (JSON) and
    `mlflow models serve` (text/csv) answer raw rows as the original does; the MLmodel names no path of the machine
    that built it."""
    copy = tmp_path / "moved"
    shutil.copytree(project, copy, symlinks=True)
    relocated = sh(copy, sys.executable, "-m", "pipeline.tracking.store", "relocate")
    assert relocated.returncode == 0 and str(copy / "mlartifacts") in relocated.stdout, relocated.stderr
    mlmodels = list((copy / "mlartifacts").rglob("MLmodel"))
    assert mlmodels and not any(str(project) in p.read_text() or "/tmp" in p.read_text() for p in mlmodels)
    rows = pd.read_csv(project / "data/raw/sample.csv").head(5).drop(columns=["binexp", "zper"])
    # JSON: the CLI reads a CSV file without the signature's types (MLflow 3.17; its server reads them), so a column
    # of whole numbers arrives as int64, which the signature's `double` refuses (docs/reference/served-api.md)
    split = rows.astype(object).where(rows.notna(), None).to_dict(orient="split", index=False)
    (copy / "rows.json").write_text(json.dumps({"dataframe_split": split}))
    aside = project.with_name(project.name + "-aside")
    (project / "mlartifacts").rename(aside)
    try:
        uri = f"sqlite:///{copy / 'mlflow.db'}"
        command = ["mlflow", "models", "predict", "-m", f"models:/{NAME}@champion", "-i", "rows.json", "-t", "json"]
        command += ["-o", "answer.json", "--env-manager", "local"]
        result = subprocess.run(command, cwd=copy, env={**user_env(), "MLFLOW_TRACKING_URI": uri}, capture_output=True,
                                text=True)  # fmt: skip
        by_server = served_answer(copy, uri, rows.to_csv(index=False).encode(), "text/csv")
    finally:
        aside.rename(project / "mlartifacts")
    assert result.returncode == 0, result.stderr[-3000:]
    model = served_model(project)
    expected = model.predict(model.unwrap_python_model().contract.typed(rows))
    for answer in (json.loads((copy / "answer.json").read_text()), by_server):
        served = pd.DataFrame(answer["predictions"])
        np.testing.assert_allclose(served["probability_1"], expected["probability_1"], rtol=0, atol=1e-9)
        assert served["prediction_set"].tolist() == expected["prediction_set"].tolist()


def test_a_worse_model_is_candidate_but_not_champion(project):
    """Last: it adds a version. A 1-nearest-neighbour classifier ranks the test rows far worse than the champion's
    logistic regression (its probabilities are 0 or 1)."""
    params = yaml.safe_load((project / "params.yaml").read_text())
    params["model"]["name"] = "knn"
    params["search"]["grid"]["knn"] = {"n_neighbors": [1]}
    (project / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    repro(project)
    version = tracked(project)["version"]
    assert str(version.version) == "2" and version.tags["promotion.decision"] == "candidate only"
    assert "test.roc_auc >= best champion's test.roc_auc - tolerance" in version.tags["promotion.failed"].split("; ")
    assert version.description.startswith("Candidate only: ") and "FAILS (best champion so far: version 1; fix: " in (
        version.description
    )
    c = client(project)
    assert str(c.get_model_version_by_alias(NAME, "candidate").version) == "2"
    assert str(c.get_model_version_by_alias(NAME, "champion").version) == "1"
    assert c.get_model_version(NAME, "2").tags["promotion.decision"] == "candidate only"


def test_the_champion_that_loses_the_alias_says_so(project):
    """After the worse model: a tolerance of 1 (and no decision-gain bound: lam 1's decisions beat the one-class rule
    on 267 test rows by a gain whose interval reaches 0) lets the next state take champion whatever its score;
    version 1 then says it is a former champion, in its decision tag and its description."""
    params = yaml.safe_load((project / "params.yaml").read_text())
    params["model"]["name"] = "logistic_regression"
    params["search"]["grid"]["logistic_regression"] = {"lam": [1.0]}
    params["tracking"]["promotion"]["tolerance"] = 1.0
    params["tracking"]["promotion"]["min_decision_gain"] = None
    (project / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    repro(project)
    c = client(project)
    assert str(c.get_model_version_by_alias(NAME, "champion").version) == "3"
    former = c.get_model_version(NAME, "1")
    assert former.tags["promotion.decision"] == "former champion (replaced by version 3)"
    assert former.description.endswith("No longer champion: version 3 took the alias.")
    assert c.get_model_version(NAME, "3").tags["promotion.compared_with"].startswith("version 1 (test.roc_auc ")


def test_dvc_plots_pages_work_offline(project, tmp_path):
    """`dvc plots show` writes a page that loads nothing from the internet: vega, vega-lite and vega-embed are in
    the page (.dvc/plots/offline.html, .dvc/config plots.html_template), one embedded chart per plot of dvc.yaml."""
    result = sh(project, "dvc", "plots", "show", "-o", str(tmp_path / "plots"))
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "plots" / "index.html").read_text()
    assert "<script src" not in page and "cdn.jsdelivr" not in page
    assert all(f"/* {lib}@" in page for lib in ("vega", "vega-lite", "vega-embed"))
    n_plots = len(yaml.safe_load((project / "dvc.yaml").read_text())["plots"])
    assert page.count("vegaEmbed(") == n_plots
    # one colour per revision, from DVC's one scale (the same on every chart of a page: a revision's colour does not
    # change from chart to chart); the confusion matrix has a panel per revision, coloured by its counts
    one_scale = '"color": {"field": "rev", "scale": {"domain": ["workspace"], "range": ["#945dd6"]}}'
    charts = re.findall(r'<div id = "([^"]+)">(.*?)</script>', page, re.S)
    with_data = [name for name, body in charts if '"field": "rev"' in body and "confusion" not in name]
    assert len(with_data) >= 11 and all(one_scale in body for name, body in charts if name in with_data)
    assert '"text": {"field": "rows"' in page
