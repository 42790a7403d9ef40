"""The served model's request limits (pipeline/serving/requests.py, issue 62 points 7 and 10): a body over the size
limit, JSON nested past the depth limit and a row with fewer values than the columns are refused in one line before
MLflow's scoring server parses them; a body within the limits reaches MLflow's `invocations` as it would have (JSON
decoded once). The scoring server itself: tests/e2e/test_serving.py."""

from __future__ import annotations

import json

import pytest

from pipeline.serving.contract import ContractError
from pipeline.serving.requests import MAX_BYTES, MAX_DEPTH, ServingInputError, checked_body, guard, install

COLUMNS = [f"c{j}" for j in range(32)]


def refusal(body, content_type="application/json") -> str:
    with pytest.raises(ContractError) as info:
        checked_body(body, content_type)
    message = str(info.value)
    assert "\n" not in message and len(message) < 300, message[:1000]
    return message


def split(rows) -> bytes:
    return json.dumps({"dataframe_split": {"columns": COLUMNS, "data": rows}}).encode()


def test_a_body_over_the_size_limit_is_refused_unparsed():
    body = b'{"dataframe_split": {"columns": ["a"], "data": [' + b"[1]," * (MAX_BYTES // 4) + b"[1]]}}"
    assert refusal(body).startswith(f"the request body is {len(body):,} bytes, more than the {MAX_BYTES:,}")


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 100_000])
def test_json_nested_past_the_depth_limit_is_refused(depth):
    """The issue: JSON nested 100,000 deep answered HTTP 500 (the parser's RecursionError)."""
    body = "[" * depth + "]" * depth
    message = refusal(json.dumps({"inputs": "x"})[:-1] + f', "deep": {body}}}')
    assert message.startswith(f"the request's JSON nests deeper than {MAX_DEPTH} levels"), message


def test_a_row_with_5_of_32_values_is_refused():
    """The issue: a request row with 5 of 32 values was scored (pandas filled the rest with missing values)."""
    message = refusal(split([list(range(32)), list(range(5))]))
    assert message.startswith("row 2 of the request holds 5 values for its 32 columns"), message
    assert "null for a missing value" in message


@pytest.mark.parametrize("form", ["dataframe_records", "inputs", "instances"])
def test_a_record_without_some_columns_is_refused(form):
    full = dict.fromkeys(COLUMNS, 1.0)
    short = {c: 1.0 for c in COLUMNS[:5]}
    message = refusal(json.dumps({form: [full, short]}))
    assert message.startswith("row 2 of the request holds 5 of its 32 columns (no c5, c6"), message


def test_a_csv_row_with_too_few_or_too_many_cells_is_refused():
    header = ",".join(COLUMNS)
    short = refusal(f"{header}\n{','.join(['1'] * 32)}\n{','.join(['1'] * 5)}\n".encode(), "text/csv")
    assert short.startswith("row 2 of the request holds 5 values for its 32 columns") and "an empty cell" in short
    assert "row 1 " in refusal(f"{header}\n{','.join(['1'] * 33)}\n".encode(), "text/csv; charset=utf-8")


def test_invalid_json_is_one_line_without_the_body():
    message = refusal(b'{"dataframe_split": {"columns": ["secret-value"], ')
    assert message.startswith("the request is not valid JSON (") and "secret-value" not in message, message


def test_a_request_within_the_limits_passes_as_mlflow_would_read_it():
    rows = [list(range(32)), [None] * 32]
    assert checked_body(split(rows), "application/json") == json.loads(split(rows))
    csv = f"{','.join(COLUMNS)}\n{','.join(['1'] * 32)}\n\n{',' * 31}\n".encode()  # blank line skipped, empty cells
    assert checked_body(csv, "text/csv") is csv
    parquet = b"PAR1..."
    assert checked_body(parquet, "application/vnd.apache.parquet") is parquet


def test_guard_answers_a_refusal_as_a_bad_request_and_passes_the_rest():
    seen = []
    guarded = guard(lambda data, content_type, model, schema: seen.append(data) or "answered")
    with pytest.raises(ServingInputError) as info:
        guarded(split([list(range(5))]), "application/json", None, None)
    assert info.value.get_http_status_code() == 400 and info.value.message.startswith("row 1 of the request")
    assert guarded(split([list(range(32))]), "application/json", None, None) == "answered"
    assert seen == [json.loads(split([list(range(32))]))]


def test_install_wraps_the_scoring_servers_invocations_once(monkeypatch):
    from mlflow.pyfunc import scoring_server

    original = scoring_server.invocations
    monkeypatch.setattr(scoring_server, "invocations", original)
    install()
    wrapped = scoring_server.invocations
    install()  # a second model loaded in the process: wrapped once
    assert wrapped is not original and wrapped.checks_request_limits and scoring_server.invocations is wrapped
    with pytest.raises(ServingInputError):
        wrapped(b"[" * 100_000, "application/json", None, None)
