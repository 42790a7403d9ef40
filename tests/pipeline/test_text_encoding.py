"""Text that is not what a CSV reader takes it for (issue 62, item 10): a UTF-16 file was told to convert from Latin-1,
and a NUL byte in a category became a level of its own ('a' and 'a\\x00')."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from pipeline.core.errors import PipelineError
from pipeline.stages import validate

REPO = Path(__file__).resolve().parents[2]
TEXT = "y,plan,x\n" + "".join(f"{i % 2},{'ab'[i % 3 == 0]},{i}\n" for i in range(40))


@pytest.fixture
def write(tmp_path, monkeypatch):
    """Writes `content` as the data file of a scratch project (target y, category plan); returns its path."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data/raw").mkdir(parents=True)

    def setup(name: str, content: bytes) -> str:
        params = copy.deepcopy(yaml.safe_load((REPO / "params.yaml").read_text()))
        path = f"data/raw/{name}"
        params["data"].update(
            {
                "path": path,
                "target": "y",
                "positive_label": 1,
                "group": None,
                "time": None,
                "sensitive": [],
                "drop": [],
                "categorical": ["plan"],
                "schema": None,
            }  # fmt: skip
        )
        (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
        (tmp_path / path).write_bytes(content)
        return path

    return setup


def refusal() -> str:
    with pytest.raises(PipelineError) as info:
        validate.main()
    message = str(info.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])
def test_a_file_with_a_byte_order_mark_is_told_its_encoding(write, encoding):
    path = write("excel.csv", TEXT.encode(encoding))  # BOM first, as Excel's "Unicode text"
    message = refusal()
    assert f"data file {path} is not UTF-8 text" in message
    assert f"iconv -f {encoding} -t utf-8 > fixed.csv` (it starts with the byte order mark of" in message
    assert "latin1" not in message and "Latin-1" not in message


def test_a_latin1_file_is_still_told_latin1(write):
    write("latin.csv", TEXT.replace("plan", "plan\u00e9").encode("latin-1"))
    assert "iconv -f latin1 -t utf-8 > fixed.csv` when it is Latin-1" in refusal()


def test_utf16_without_a_byte_order_mark_is_named_by_its_header(write):
    path = write("plain16.csv", TEXT.encode("utf-16-le"))
    message = refusal()
    assert f"data file {path}: column name 'y\\x00' holds NUL bytes" in message
    assert "iconv -f utf-16le -t utf-8 plain16.csv > fixed.csv" in message


def test_a_nul_byte_in_a_category_stops_validate_naming_the_column_and_row(write):
    write("nul.csv", TEXT.replace("1,b,3\n", "1,b\x00,3\n").encode())
    message = refusal()
    assert "column 'plan' holds a NUL byte (\\x00) in 1 values (the first 'b\\x00' at data row 4, line 5" in message
    assert "tr -d '\\000'" in message
