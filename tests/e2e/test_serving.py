"""The served champion's input contract through MLflow's scoring server (the app `mlflow models serve` runs, here
in-process on a local port): each answer is a prediction with its per-row flags or HTTP 400 with one short line
naming the column and the type expected. Requests: raw test rows (the evaluate stage's decisions), a wrong type, a
missing column, extra columns, an unseen category, a null in a feature column, an empty request, 10,000 rows."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request

import numpy as np
import pandas as pd
import pytest
from conftest import SAMPLE_POLICY, make_project
from dvc_project import git_repo, repro, tracked

pytestmark = pytest.mark.slow
NAME = "defensible-tabular"


@pytest.fixture(scope="module")
def project(tmp_path_factory, sample_csv):
    root = git_repo(make_project(tmp_path_factory.mktemp("serving"), sample_csv, **SAMPLE_POLICY))
    repro(root)
    return root


@pytest.fixture(scope="module")
def url(project):
    import mlflow
    import uvicorn
    from mlflow.pyfunc import scoring_server

    mlflow.set_tracking_uri(tracked(project)["tracking_uri"])
    model = mlflow.pyfunc.load_model(f"models:/{NAME}@champion")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(scoring_server.init(model), host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.1)
    yield f"http://127.0.0.1:{port}/invocations"
    server.should_exit = True
    thread.join(timeout=30)


@pytest.fixture(scope="module")
def raw_test_rows(project) -> pd.DataFrame:
    rows = pd.read_csv(project / "data/raw/sample.csv")  # as read from the user's file
    test = pd.read_parquet(project / "data/processed/test.parquet")
    return rows.loc[test["_row_id"]].reset_index(drop=True)


def post(url: str, frame: pd.DataFrame) -> tuple[int, dict]:
    split = frame.to_dict(orient="split", index=False)
    body = json.dumps({"dataframe_split": split}, default=str).encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def refused(url: str, frame: pd.DataFrame) -> str:
    status, answer = post(url, frame)
    assert status == 400, answer
    assert "stack_trace" not in answer and answer["error_code"] == "BAD_REQUEST", answer
    assert "\n" not in answer["message"] and len(answer["message"]) < 300, answer["message"]
    return answer["message"]


def test_raw_rows_get_the_evaluate_stages_decisions_and_their_gaps_flagged(project, url, raw_test_rows):
    status, answer = post(url, raw_test_rows.drop(columns=["binexp", "zper"]))
    assert status == 200
    served = pd.DataFrame(answer["predictions"])
    expected = pd.read_parquet(project / "data/predictions/test.parquet")
    np.testing.assert_allclose(served["probability_1"], expected["proba_1"], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(served["prediction"].to_numpy(), expected["prediction"].to_numpy())
    # the one feature with gaps in the file: its missing values imputed as in training, and said
    assert served["flags"].tolist() == ["ghindx missing (imputed)" if m else "" for m in raw_test_rows["ghindx"].isna()]


def test_a_wrong_type_is_one_line_naming_the_column_and_type(url, raw_test_rows):
    rows = raw_test_rows.head(3).astype({"income": object})
    rows.loc[0, "income"] = "lots"
    assert refused(url, rows) == "wrong type in column(s) income (expected number, got 'lots')"


def test_a_missing_column_is_one_line_naming_it(url, raw_test_rows):
    message = refused(url, raw_test_rows.head(3).drop(columns=["income", "plan"]))
    assert message == "missing column(s) income (number), plan (text); send every feature column"


def test_an_empty_request_is_one_line(url, raw_test_rows):
    assert refused(url, raw_test_rows.head(0)).startswith("the request holds no rows")


def test_extra_columns_are_ignored(url, raw_test_rows):
    rows = raw_test_rows.head(5)
    with_extra = post(url, rows.assign(leak=1.0))  # the target and the group are extra columns too
    assert with_extra == post(url, rows.drop(columns=["binexp", "zper"]))
    assert with_extra[0] == 200


def test_an_unseen_category_and_a_null_are_scored_and_flagged(url, raw_test_rows):
    rows = raw_test_rows[raw_test_rows["ghindx"].notna()].head(4).reset_index(drop=True)
    rows = rows.astype({"plan": object, "income": object})
    rows.loc[1, "plan"] = "zzz"
    rows.loc[2, "income"] = None
    status, answer = post(url, rows)
    assert status == 200
    served = pd.DataFrame(answer["predictions"])
    assert served["flags"].tolist() == [
        "",
        "plan='zzz' unseen in training (no level's column)",
        "income missing (imputed)",
        "",
    ]
    assert served["probability_1"].between(0, 1).all()


def test_ten_thousand_rows_in_one_request(url, raw_test_rows):
    rows = raw_test_rows.drop(columns=["binexp", "zper"])
    many = pd.concat([rows] * (10_000 // len(rows) + 1), ignore_index=True).head(10_000)
    status, answer = post(url, many)
    assert status == 200 and len(answer["predictions"]) == 10_000
