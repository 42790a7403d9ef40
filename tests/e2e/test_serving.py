"""The served champion's input contract through MLflow's scoring server (the app `mlflow models serve` runs, here
in-process on a local port): each answer is a prediction with its per-row flags or HTTP 400 with one short line
naming the column and the type expected. Requests: raw test rows (the evaluate stage's decisions), a wrong type, a
missing column, extra columns, an unseen category, a null in a feature column, an empty request, 10,000 rows."""

from __future__ import annotations

import json
import re
import subprocess
import urllib.error
import urllib.request

import numpy as np
import pandas as pd
import pytest
from conftest import REPO, sample_copy
from dvc_project import scoring_server, send, tracked, user_env

pytestmark = pytest.mark.slow
NAME = "sample-binexp"


@pytest.fixture(scope="module")
def project(tmp_path_factory, built_sample):
    root = sample_copy(built_sample, tmp_path_factory.mktemp("serving"))
    return root


@pytest.fixture(scope="module")
def url(project):
    import mlflow

    mlflow.set_tracking_uri(tracked(project)["tracking_uri"])
    with scoring_server(mlflow.pyfunc.load_model(f"models:/{NAME}@champion")) as invocations:
        yield invocations


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


def bodies(frame: pd.DataFrame) -> dict[str, tuple[bytes, str]]:
    """The same rows in every form MLflow's scoring server takes: (body, content type) by name."""
    records = frame.to_dict(orient="records")  # Python's json writes inf as Infinity (pandas' to_json: null)
    split = frame.to_dict(orient="split", index=False)
    as_json = lambda obj: (json.dumps(obj, default=lambda v: v.item()).encode(), "application/json")  # noqa: E731
    return {
        "dataframe_split": as_json({"dataframe_split": split}),
        "dataframe_records": as_json({"dataframe_records": records}),
        "inputs": as_json({"inputs": records}),
        "instances": as_json({"instances": records}),
        "text/csv": (frame.to_csv(index=False).encode(), "text/csv"),
    }


def one_line(status: int, answer: dict) -> str:
    assert status == 400, answer
    assert "stack_trace" not in answer and answer["error_code"] == "BAD_REQUEST", answer
    assert "\n" not in answer["message"] and len(answer["message"]) < 300, answer["message"]
    return answer["message"]


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
    # the conformal set of each row: evaluate's in_set_<class> columns, as the class labels
    sets = [[k for k in (0, 1) if row[f"in_set_{k}"]] for _, row in expected.iterrows()]
    assert served["prediction_set"].tolist() == sets and set(map(len, sets)) >= {1}
    # the one feature with gaps in the file: its missing values imputed as in training, and said; a number outside
    # the training rows' range said too (the model extrapolates)
    train = pd.read_parquet(project / "data/processed/train.parquet")
    for i, flag in enumerate(served["flags"]):
        parts = flag.split("; ") if flag else []
        beyond = [p for p in parts if "beyond the training range" in p]
        for part in beyond:
            column = part.split("=")[0]
            assert not train[column].min() <= raw_test_rows.loc[i, column] <= train[column].max(), part
        gaps = [p for p in parts if p not in beyond]
        assert gaps == (["ghindx missing (imputed)"] if pd.isna(raw_test_rows.loc[i, "ghindx"]) else [])


def test_each_answer_carries_its_rows_reasons_equal_to_the_explain_stages(project, url, raw_test_rows):
    """The issue: the answer carried probabilities, decision, set and flags but no reasons, while a lender must state
    the principal reasons for an adverse decision. Each row's reasons are its largest Shapley values with its own
    values, equal to attributions.json's for the rows the explain stage explained (1e-9: the champion is linear)."""
    attributions = json.loads((project / "reports/attributions.json").read_text())
    rows = raw_test_rows.iloc[attributions["rows"]].drop(columns=["binexp", "zper"])
    status, answer = post(url, rows)
    assert status == 200, answer
    values, columns = np.asarray(attributions["shapley"]["values"]), attributions["columns"]
    assert attributions["shapley"]["method"] == "linear"
    for i, reasons in enumerate(pd.DataFrame(answer["predictions"])["reasons"]):
        sizes = [abs(r["contribution"]) for r in reasons]
        assert len(reasons) == 3 and sizes == sorted(sizes, reverse=True)
        np.testing.assert_allclose(sizes, np.sort(np.abs(values[i]))[::-1][:3], rtol=0, atol=1e-9)
        for r in reasons:
            assert r["contribution"] == pytest.approx(values[i][columns.index(r["feature"])], abs=1e-9)
            raw = rows.iloc[i][r["feature"]]
            assert (
                (r["value"] is None and pd.isna(raw))
                or float(r["value"]) == pytest.approx(float(raw))
                or (str(r["value"]) == str(raw))
            ), (r, raw)


def test_the_signature_types_every_feature_column_from_the_contract(project):
    import mlflow

    mlflow.set_tracking_uri(tracked(project)["tracking_uri"])
    model = mlflow.pyfunc.load_model(f"models:/{NAME}@champion")
    contract, signature = model.unwrap_python_model().contract, model.metadata.signature
    inputs = signature.inputs.to_dict()
    # typed, and not `required` in MLflow's sense: a missing column is the contract's one line, not MLflow's echo
    assert [c["name"] for c in inputs] == contract.columns and not any(c["required"] for c in inputs)
    assert {c["name"] for c in inputs if c["type"] == "double"} == set(contract.numeric)
    assert {c["name"] for c in inputs if c["type"] == "string"} == set(contract.categorical) == {"plan", "site"}
    outputs = {c["name"]: c["type"] for c in signature.outputs.to_dict()}
    assert outputs["probability_1"] == "double" and outputs["prediction_set"] == "array" and "flags" in outputs
    assert outputs["reasons"] == "array"  # of {feature, value, contribution} (MLflow infers none for it)


def schema_refusal(status: int, answer: dict) -> str:
    """MLflow's answer when its schema check (the typed signature) refuses a request before the model sees it."""
    assert status == 400, answer
    return answer["message"]


def test_a_wrong_type_is_refused_by_the_signature_naming_the_column(url, raw_test_rows):
    rows = raw_test_rows.head(3).astype({"income": object})
    rows.loc[0, "income"] = "lots"
    message = schema_refusal(*post(url, rows))
    assert "Failed to convert column income to type 'float64'" in message and "\n" not in message, message


def test_a_missing_column_is_the_contracts_one_line_naming_it(url, raw_test_rows):
    """The issue: a request missing a column was answered in 1,740 characters, MLflow's schema check echoing the
    request's rows and the whole schema before the contract could answer."""
    message = refused(url, raw_test_rows.head(3).drop(columns=["income", "plan"]))
    assert message == "missing column(s) income (number), plan (text); send every feature column", message


def test_a_row_with_fewer_values_than_the_columns_is_refused(url, raw_test_rows):
    """The issue: a request row with 5 of 32 values was scored (pandas filled the rest with missing values)."""
    rows = raw_test_rows.drop(columns=["binexp", "zper"]).head(2)
    split = json.loads(rows.to_json(orient="split", index=False))
    split["data"][1] = split["data"][1][:5]
    message = one_line(*send(url, json.dumps({"dataframe_split": split}).encode(), "application/json"))
    assert message.startswith(f"row 2 of the request holds 5 values for its {rows.shape[1]} columns"), message
    header, first, second = rows.to_csv(index=False).splitlines()
    short = "\n".join([header, first, ",".join(second.split(",")[:5])]) + "\n"
    assert one_line(*send(url, short.encode(), "text/csv")).startswith("row 2 of the request holds 5 values")
    records = rows.to_dict(orient="records")
    records[1] = dict(list(records[1].items())[:5])
    message = one_line(*send(url, json.dumps({"inputs": records}, default=str).encode(), "application/json"))
    assert message.startswith(f"row 2 of the request holds 5 of its {rows.shape[1]} columns"), message


def test_json_nested_100000_deep_is_one_line(url):
    """The issue: JSON nested 100,000 deep answered HTTP 500 (the parser's RecursionError)."""
    body = b'{"inputs": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert one_line(*send(url, body, "application/json")).startswith("the request's JSON nests deeper than")


def test_a_50_mb_body_is_one_line(url, raw_test_rows):
    """The issue: a 50 MB body was accepted (parsed and scored)."""
    rows = raw_test_rows.drop(columns=["binexp", "zper"])
    chunk = json.dumps(json.loads(rows.to_json(orient="split", index=False))["data"])[1:-1].encode()
    data = b",".join([chunk] * (50_000_000 // len(chunk) + 1))
    body = (
        b'{"dataframe_split": {"columns": ' + json.dumps(list(rows.columns)).encode() + b', "data": [' + data + b"]}}"
    )
    assert len(body) > 50_000_000
    assert one_line(*send(url, body, "application/json")).startswith(f"the request body is {len(body):,} bytes")


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


FORMS = ["dataframe_split", "dataframe_records", "inputs", "instances", "text/csv"]


@pytest.mark.parametrize("form", FORMS)
def test_every_content_type_gets_the_same_answer(url, raw_test_rows, form):
    rows = raw_test_rows.drop(columns=["binexp", "zper"]).head(20)
    expected = post(url, rows)
    assert expected[0] == 200
    status, answer = send(url, *bodies(rows)[form])
    assert status == 200, answer
    served, wanted = pd.DataFrame(answer["predictions"]), pd.DataFrame(expected[1]["predictions"])
    # MLflow reads CSV with pandas' default float converter, which is not round-trip exact (~1e-12 here)
    tolerance = 1e-9 if form == "text/csv" else 1e-12
    np.testing.assert_allclose(served["probability_1"], wanted["probability_1"], rtol=0, atol=tolerance)
    assert served["flags"].tolist() == wanted["flags"].tolist()


BAD = {  # numbers the signature's `double` takes and the contract refuses: (the spoiled rows, the one line)
    "infinity": (lambda r: r.assign(income=[np.inf] + [1.0] * (len(r) - 1)), "column income holds inf"),
    "1e308": (lambda r: r.assign(income=[1e308] + [1.0] * (len(r) - 1)), "column income holds 1e+308, a machine"),
    "-1e308": (lambda r: r.assign(income=[-1e308] + [1.0] * (len(r) - 1)), "column income holds -1e+308, a machine"),
}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_value_is_one_line_in_every_content_type(url, raw_test_rows, form, case):
    spoil, expected = BAD[case]
    rows = spoil(raw_test_rows.drop(columns=["binexp", "zper"]).head(3).reset_index(drop=True))
    message = one_line(*send(url, *bodies(rows)[form]))
    assert message.startswith(expected), message


@pytest.mark.parametrize("form", FORMS)
def test_text_in_a_number_column_is_refused_by_the_signature_in_every_content_type(url, raw_test_rows, form):
    rows = raw_test_rows.drop(columns=["binexp", "zper"]).head(3).assign(income="lots")
    message = schema_refusal(*send(url, *bodies(rows)[form]))
    assert "could not convert string to float: 'lots'" in message, message  # CSV: MLflow's parser names no column


@pytest.mark.parametrize("form", FORMS)
def test_a_boolean_in_a_number_column_is_read_as_one_or_zero(url, raw_test_rows, form):
    """MLflow casts a boolean to the `double` the signature declares before the model sees it (a 0/1 column such as
    female takes true/false as 1/0)."""
    rows = raw_test_rows.drop(columns=["binexp", "zper"]).head(3)
    status, answer = send(url, *bodies(rows.assign(female=True))[form])
    assert status == 200, answer
    assert answer == post(url, rows.assign(female=1.0))[1]


def test_repeated_names_and_unnamed_columns_are_refused(url, raw_test_rows):
    rows = raw_test_rows.drop(columns=["binexp", "zper"]).head(2)
    split = json.loads(rows.to_json(orient="split", index=False))
    split["columns"][1] = split["columns"][0]
    message = schema_refusal(*send(url, json.dumps({"dataframe_split": split}).encode(), "application/json"))
    assert f"Failed to convert column {rows.columns[0]}" in message, message
    unnamed = json.dumps({"inputs": rows.to_numpy().tolist()}, default=str).encode()
    message = one_line(*send(url, unnamed, "application/json"))  # the contract's line (the inputs are optional)
    assert message.startswith("the request names none of the model's 30 feature columns"), message
    # a CSV header naming a column twice: pandas renames the second (name.1) and the column it replaced is missing
    header, *lines = rows.to_csv(index=False).splitlines()
    names = header.split(",")
    twice = "\n".join([",".join([names[0], names[0], *names[2:]]), *lines]) + "\n"
    message = one_line(*send(url, twice.encode(), "text/csv"))
    assert message.startswith(f"missing column(s) {names[1]} ("), message


def test_the_tutorials_serving_example_runs_as_written(project):
    """The issue: the README's curl example had `[...]` placeholders although the model ships its input example. The
    serving tutorial's block (docs/tutorial/serving.md), run as written in the project (its model's name for the
    default data's), serves the shipped example through `mlflow models serve` and answers each row with its decision
    and reasons."""
    page = (REPO / "docs" / "tutorial" / "serving.md").read_text()
    block = next(b for b in re.findall(r"```bash\n(.*?)```", page, re.S) if "mlflow models serve" in b)
    assert "[...]" not in block and "serving_input_example.json" in block
    script = block.replace("randhie-binexp", NAME)
    done = subprocess.run(["bash", "-c", f"set -e\n{script}"], cwd=project, env=user_env(), capture_output=True,
                          text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    rows = answer["predictions"]
    assert len(rows) == 5 and all(r["reasons"] and "prediction" in r for r in rows), rows[0]
