"""The served model's limits on a request's body, checked before MLflow's scoring server parses it.

MLflow's scoring server reads the whole body, parses it (JSON or CSV) and builds the rows' table before the model
sees a row, so three things never reach the input contract (contract.py):
- a body of any size (a 50 MB body was parsed and scored): refused above MAX_BYTES;
- JSON nested deeper than Python's recursion limit (100,000 levels: an HTTP 500 from the parser): refused above
  MAX_DEPTH levels (a table of rows needs four: {"dataframe_split": {"data": [[...]]}});
- a row with fewer values than the request's columns, which pandas fills with missing values (a row of 5 of 32
  values was imputed and scored): refused naming the row; a missing value is sent as null (JSON) or an empty cell
  (CSV), never left out.
`guard` wraps the scoring server's `invocations` (looked up at each request, so the model's load_context can put it
in place: MLflow's server offers no hook before it parses); a refusal is one line, HTTP 400.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable

from mlflow.exceptions import MlflowException
from mlflow.protos.databricks_pb2 import BAD_REQUEST

from .contract import ContractError, _short

MAX_BYTES = 20 * 1024 * 1024  # 20 MiB: ~60,000 rows of the default data's 30 columns as JSON
MAX_DEPTH = 8
JSON, CSV = "application/json", "text/csv"


class ServingInputError(MlflowException):
    """A request outside the input contract: HTTP 400 whose message is the contract's one line. MLflow's scoring
    server prefixes the message of an error raised by the model with a dump of the whole request (which may run
    to megabytes, and shows the caller's data back in logs); this error keeps its own line."""

    def __init__(self, line: str):
        self._line = line
        super().__init__(line, error_code=BAD_REQUEST)

    @property
    def message(self) -> str:
        return self._line

    @message.setter
    def message(self, value: str) -> None:  # the scoring server's rewrite is not kept
        pass


def checked_body(body: bytes | str, content_type: str | None) -> dict[str, object] | bytes | str:
    """The body MLflow's `invocations` takes: JSON decoded (it takes the mapping as it would the text), CSV as sent.
    Raises ContractError for a body over the limits or a row with fewer (or more) values than the columns."""
    size = len(body)
    if size > MAX_BYTES:
        raise ContractError(
            f"the request body is {size:,} bytes, more than the {MAX_BYTES:,} the served model takes; send the rows "
            "in several requests"
        )
    mime = (content_type or "").split(";")[0].strip().lower()
    if mime == JSON:
        decoded = _decoded(body)
        if isinstance(decoded, dict):
            _check_rows(decoded)
            return decoded
    elif mime == CSV:
        _check_csv_rows(body)
    return body


def _decoded(body: bytes | str) -> object:
    try:
        decoded = json.loads(body)
    except RecursionError:
        decoded = None  # deeper than the parser goes: the depth's message below
        depth = MAX_DEPTH + 1
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        where = f" at line {exc.lineno}, column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
        raise ContractError(f"the request is not valid JSON ({reason}{where}); send a JSON object of rows") from None
    else:
        depth = _depth(decoded)
    if depth > MAX_DEPTH:
        raise ContractError(
            f"the request's JSON nests deeper than {MAX_DEPTH} levels (a table of rows needs 4: "
            '{"dataframe_split": {"columns": [...], "data": [[...]]}}); send rows of plain values'
        )
    return decoded


def _depth(value: object) -> int:
    """How deep lists and mappings nest in a decoded JSON value, counted up to MAX_DEPTH + 1 (then it stops)."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        node, level = pending.pop()
        if not isinstance(node, (list, dict)):
            continue
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            break
        items = node.values() if isinstance(node, dict) else node
        pending.extend((item, level + 1) for item in items if isinstance(item, (list, dict)))
    return deepest


def _check_rows(request: dict[str, object]) -> None:
    """Every row holds a value for every column: dataframe_split's rows as many values as its columns, a record
    (dataframe_records; inputs and instances as records) every key another record holds."""
    split = request.get("dataframe_split")
    if isinstance(split, dict) and isinstance(split.get("columns"), list) and isinstance(split.get("data"), list):
        n = len(split["columns"])
        for i, row in enumerate(split["data"]):
            if isinstance(row, list) and len(row) != n:
                raise ContractError(_row_count(i, len(row), n, "null"))
    for form in ("dataframe_records", "inputs", "instances"):
        records = request.get(form)
        if isinstance(records, list) and records and all(isinstance(r, dict) for r in records):
            columns = list(dict.fromkeys(key for record in records for key in record))
            for i, record in enumerate(records):
                if len(record) < len(columns):
                    absent = [c for c in columns if c not in record]
                    raise ContractError(
                        f"row {i + 1} of the request holds {len(record)} of its {len(columns)} columns (no "
                        f"{_short(', '.join(map(str, absent)), 80)}); send every column in every row, null for a "
                        "missing value"
                    )


def _check_csv_rows(body: bytes | str) -> None:
    try:
        text = body.decode("utf-8") if isinstance(body, bytes) else body
    except UnicodeDecodeError:
        return  # MLflow's server answers it
    rows = (row for row in csv.reader(io.StringIO(text)) if row)  # pandas skips blank lines too
    header = next(rows, None)
    if header is None:
        return
    for i, row in enumerate(rows):
        if len(row) != len(header):
            raise ContractError(_row_count(i, len(row), len(header), "an empty cell"))


def _row_count(i: int, values: int, columns: int, missing: str) -> str:
    return (
        f"row {i + 1} of the request holds {values} values for its {columns} columns; send one value per column in "
        f"every row, {missing} for a missing value"
    )


def guard(invocations: Callable[..., object]) -> Callable[..., object]:
    """MLflow's `invocations(data, content_type, model, input_schema)` with the body checked first; a refusal is
    raised as `refuse(line)` (an MlflowException the server answers with HTTP 400)."""

    def guarded(data: bytes | str, content_type: str | None, model: object, input_schema: object) -> object:
        try:
            body = checked_body(data, content_type)
        except ContractError as exc:
            raise ServingInputError(str(exc)) from None
        return invocations(body, content_type, model, input_schema)

    guarded.checks_request_limits = True  # type: ignore[attr-defined]
    return guarded


def install() -> None:
    """Put `guard` around the scoring server's `invocations`, once per process (the server looks it up at each
    request)."""
    from mlflow.pyfunc import scoring_server

    current = getattr(scoring_server, "invocations", None)
    if current is not None and not getattr(current, "checks_request_limits", False):
        scoring_server.invocations = guard(current)
