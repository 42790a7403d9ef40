"""Records that hold only what a test gives (pipeline/core/records.py): the stand-in for a file of which the code
under test reads a few fields. Every field the test leaves out is None, so code that reads one fails on None, as it
would have failed on a missing key; a key that is not a field fails at once, naming it."""

from __future__ import annotations

import typing
from dataclasses import fields
from typing import Any

from pipeline.core.records import part_shape
from pipeline.core.report_inputs import ReportInputs


def partial(cls: type, given: dict) -> Any:
    """`cls` (a Part, a Record or ReportInputs) with the fields in `given`; nested Parts given as dicts become
    partial Parts too."""
    unknown = sorted(set(given) - {f.name for f in fields(cls)})
    assert not unknown, f"not fields of {cls.__name__}: {unknown}"
    hints = typing.get_type_hints(cls, globalns=_namespace())
    return cls(**{f.name: _as(hints[f.name], given.get(f.name)) for f in fields(cls)})


def typed(r: dict) -> ReportInputs:
    """The report's inputs as the report reads them, from a test's dict of partial files; test.json as the record of
    the target's kind (and calibration.json)."""
    given = dict(r)
    target = given.get("target")
    for name, record in (
        ("test", "test_record"),
        ("calibration", "calibration_record"),
        ("fairness", "fairness_record"),
    ):
        if isinstance(given.get(name), dict) and target is not None:
            given[name] = partial(getattr(target, record), given[name])
    return partial(ReportInputs, given)


def _namespace() -> dict:
    import pipeline.core.assessment_records as assessment_records
    import pipeline.core.evaluation_records as evaluation_records
    import pipeline.core.fairness_records as fairness_records
    import pipeline.core.records as records
    import pipeline.core.report_inputs as report_inputs
    from pipeline.core.task_base import Target

    return {
        **vars(assessment_records),
        **vars(evaluation_records),
        **vars(fairness_records),
        **vars(records),
        **vars(report_inputs),
        "Target": Target,
    }


def _as(hint: Any, value: Any) -> Any:
    """A given dict (or list or mapping of them) as the partial Part its field's type names, as Record.read does."""
    found = part_shape(hint)
    if found is None or not isinstance(value, (dict, list)):
        return value
    shape, inner = found
    if shape == "one":
        return partial(inner, value) if isinstance(value, dict) else value
    return [_as(inner, v) for v in value] if shape == "list" else {k: _as(inner, v) for k, v in value.items()}
