"""A column's repeated maximum of nines may be a top code, not a missing value (issue 62, item 9). UCI Adult's
capital_gain holds 99999 in 244 rows (gains of 99,999 or more; every other gain is at most 41,310): validate called it
"a sentinel spelled with nines" and offered only quarantine, which would drop the highest earners, all of them >50K.
The files here are built like Adult's columns (the package that ships Adult needs the internet): a top-coded gain
(kept, with a note saying what quarantine would remove) and a true missing-value code far beyond an hours column's
range (still a stop, now saying what quarantine would remove and how to keep the value)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from test_validate_logic import project_writer

from pipeline.core.errors import PipelineError
from pipeline.core.schema import nines_apart, top_code
from pipeline.stages import validate

REPO = Path(__file__).resolve().parents[2]
SOURCE = "data/raw/adult_like.csv"
# capital_gain's distinct non-zero values in UCI Adult below its top code (a selection, the largest included)
GAINS = [114, 401, 594, 914, 1055, 1409, 2174, 2202, 2407, 2829, 3103, 3325, 3411, 3674, 3818, 4064, 4386, 4650,
         5013, 5178, 5556, 6097, 6418, 6849, 7298, 7688, 7978, 8614, 9386, 10520, 13550, 14084, 15024, 15831, 18481,
         20051, 22040, 25236, 27828, 34095, 41310]  # fmt: skip
TOP_ROWS = 15


def adult_like(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    """Rows like Adult's: income <=50K / >50K, 8% with a capital gain, TOP_ROWS of them at the top code 99999, every
    one of those >50K (as in Adult)."""
    rng = np.random.default_rng(seed)
    age = rng.integers(17, 91, n)
    hours = rng.integers(1, 100, n)
    gain = np.where(rng.random(n) < 0.08, rng.choice(GAINS, n), 0)
    gain[rng.choice(n, TOP_ROWS, replace=False)] = 99999
    score = 0.04 * (age - 40) + 0.03 * (hours - 40) + np.log1p(gain) / 4 - 1.6
    rich = (rng.random(n) < 1 / (1 + np.exp(-score))) | (gain == 99999)
    return pd.DataFrame(
        {
            "age": age,
            "education_num": rng.integers(1, 17, n),
            "capital_gain": gain,
            "hours_per_week": hours,
            "sex": rng.choice(["Female", "Male"], n),
            "income": np.where(rich, ">50K", "<=50K"),
        }
    )


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A scratch project for an Adult-like file; returns a function writing the data and params.yaml."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data/raw").mkdir(parents=True)
    base = yaml.safe_load((REPO / "params.yaml").read_text())
    base["data"].update(
        {
            "path": SOURCE,
            "target": "income",
            "positive_label": ">50K",
            "group": None,
            "time": None,
            "sensitive": ["sex"],
            "drop": [],
            "categorical": ["sex"],
            "schema": None,
        }  # fmt: skip
    )

    return project_writer(tmp_path, base, SOURCE)


@pytest.mark.parametrize("on_invalid", ["fail", "quarantine"])
def test_a_top_code_is_kept_and_validate_says_what_quarantine_would_remove(project, capsys, on_invalid):
    df = adult_like()
    root = project(df, on_invalid=on_invalid)
    validate.main()
    summary = json.loads((root / "reports/validation.json").read_text())
    assert summary["rows_quarantined"] == 0  # no highest earner dropped
    kept = pd.read_parquet(root / "data/interim/validated.parquet")
    assert int((kept["capital_gain"] == 99999).sum()) == TOP_ROWS
    [record] = summary["top_codes"]
    assert (record["column"], record["value"], record["rows"], record["largest_other"]) == (
        "capital_gain",
        99999,
        TOP_ROWS,
        41310,
    )
    rest = (df["income"][df["capital_gain"] != 99999] == ">50K").mean()
    out = capsys.readouterr().out
    assert f"validate: note: column 'capital_gain': {TOP_ROWS} rows hold 99999" in out
    assert "kept as the column's top code" in out
    assert f"target 'income' <=50K: 0.000, >50K: 1.000 in them against <=50K: {1 - rest:.3f}, >50K: {rest:.3f}" in out
    assert "clean.valid_ranges: {capital_gain: [0, 41310]}" in out  # the way to treat it as missing instead


def test_a_code_far_beyond_the_range_is_still_a_sentinel_and_the_stop_says_what_quarantine_removes(project):
    df = adult_like()
    missing = [3, 30, 300, 1000, 2000]
    df.loc[missing, "hours_per_week"] = 99999  # hours up to 99: five digits are no hours anyone works
    project(df, on_invalid="fail")
    with pytest.raises(PipelineError) as info:
        validate.main()
    message = str(info.value)
    assert "\n" not in message
    assert "5 rows break the schema" in message and "'hours_per_week' extreme (a sentinel spelled with nines" in message
    shares = (df.loc[missing, "income"] == ">50K").mean()
    assert f"quarantine file (it would remove 5 rows, target 'income' <=50K: {1 - shares:.3f}" in message
    assert "validate.extreme_factor: null" in message


def test_the_evidence_for_a_top_code():
    x = np.r_[np.zeros(50), GAINS, [99999.0] * 3]
    assert nines_apart(x).tolist() == [99999.0] and top_code(x, 99999.0)
    assert not top_code(np.r_[np.zeros(50), GAINS, [99999.0]], 99999.0)  # one row: no repeated maximum
    ages = np.r_[np.arange(18, 91), [999.0] * 3]
    assert nines_apart(ages).tolist() == [999.0] and not top_code(ages, 999.0)  # digits no age has
    below = np.r_[np.arange(100, 5000), [-999.0] * 3]
    assert not top_code(below, -999.0)  # below the values: a missing code


def test_the_card_names_the_kept_top_code():
    from partial_records import typed
    from test_report_html import _card_inputs, _cells

    from pipeline.reporting import card

    params, r = _card_inputs()
    r["validation"].update(rows_in=90, rows_quarantined=0, changes=[])
    r["validation"]["top_codes"] = [
        {"column": "capital_gain", "value": 99999.0, "rows": 244, "largest_other": 41310.0, "note": "..."}
    ]
    cells = _cells(card.model_card(params, typed(r), "x"))
    assert cells["Training data"].endswith(
        "; capital_gain 99999 in 244 rows kept as the column's top code (its highest values, above 41310, recorded as "
        "one), not as a missing value"
    )
