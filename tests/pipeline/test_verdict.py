"""The verdict a person meets first (pipeline/reporting/verdict.py) and the stages' wrapped stdout
(pipeline/core/errors.py): the summary that ends `dvc repro` is at most 12 lines of at most 160 characters, the
decision first, each failing check with its figure, bound and fix; a line a stage prints is never over 160."""

from __future__ import annotations

import io

from pipeline.core.errors import WIDTH, WrappedLines
from pipeline.reporting import verdict
from pipeline.tracking.promotion import FIXES, Check


def _verdict(failed: int) -> verdict.Verdict:
    checks = [
        Check(f"check number {i} of a long series of names <= max_bound_{i}", 0.5 + i, 0.4, False,
              "a note that says which end of which interval it read " * 3, FIXES["fairness"])
        for i in range(failed)
    ]  # fmt: skip
    risks = [verdict.Risk("fairness", "x" * 400, False, "0.5 (bound 0.4)"), verdict.Risk("drift", "y", None, "none")]
    return verdict.Verdict("candidate, not champion", f"{failed} of 9 checks fail", checks, "test roc_auc 0.75 " * 20,
                           "model m " * 40, risks)  # fmt: skip


def test_the_summary_fits_twelve_lines_of_160_with_the_decision_first_and_the_fixes():
    where = ["report: reports/report.html " * 10, "serve: mlflow models serve " * 10]
    for failed in (0, 1, 2, 8):
        lines = verdict.summary_lines(_verdict(failed), where)
        assert len(lines) <= 12 and max(map(len, lines)) <= 160, (failed, lines)
        assert lines[0].startswith("== verdict: candidate, not champion:")
        assert lines[-2].startswith("serve:") and lines[-4].startswith("report:")  # where to look: last, two lines each
        if failed:
            assert lines[1].startswith("FAILS check number 0") and "0.5000 (bound 0.4000)" in lines[1]
            assert any(x.strip().startswith("fix: the report's Fairness section") for x in lines)
        if failed == 8:  # what does not fit is named, not dropped silently
            assert "the report's first panel" in "".join(lines)


def test_a_check_reads_as_its_figure_its_bound_and_its_note():
    check = Check("upper end of the largest fairness gap's interval <= max_fairness_gap", 0.5134, 0.4, False,
                  "female x black.demographic_parity_gap 0.4155, its interval's upper end 0.5134")  # fmt: skip
    assert verdict.label(check) == "fairness"
    assert verdict.reading(check) == (
        "upper end of the largest fairness gap's interval 0.5134 (<= max_fairness_gap 0.4000): female x "
        "black.demographic_parity_gap 0.4155, its interval's upper end 0.5134"
    )
    assert verdict.figure(Check("x <= 0", None, 0, False, "not evaluated: no groups")) == "not evaluated"


def test_the_reports_count_names_threshold_checks_the_terminals_every_check():
    # the report counts the gate's threshold checks (6 on the default data), track every check (8): one count of
    # "checks" in each read as two counts of one thing
    checks = [Check("upper end of the largest fairness gap's interval <= max_fairness_gap", 0.5, 0.4, False),
              Check("x <= 1", 0.5, 1.0, True), Check("y <= 1", None, None, None)]  # fmt: skip
    assert verdict.why(checks, "threshold checks") == "1 of 3 threshold checks fail: fairness"
    assert verdict.why(checks) == "1 of 3 checks fail: fairness"
    assert verdict.why(checks[1:], "threshold checks") == "every threshold check passes (1 evaluated, 1 skipped)"
    assert verdict.why(checks[1:]) == "every check passes (1 evaluated, 1 skipped)"


def test_stage_output_lines_are_wrapped_at_160_without_losing_a_word():
    out = io.StringIO()
    stream = WrappedLines(out)
    words = " ".join(f"word{i}" for i in range(200))
    stream.write("short line\n" + words)
    stream.write(" tail\npartial")
    stream.close()
    lines = out.getvalue().split("\n")
    assert lines[0] == "short line" and max(map(len, lines)) <= WIDTH
    assert " ".join(x.strip() for x in lines[1:-1]) == words + " tail" and lines[-1] == "partial"


def test_the_fairness_section_names_every_gap_past_the_bound_at_its_upper_end():
    name = "upper end of the largest fairness gap's interval <= max_fairness_gap"
    largest = "female x black.demographic_parity_gap 0.4155, its interval's upper end 0.5134"
    failing = Check(name, 0.5134, 0.4, False, largest, FIXES["fairness"])
    figures = {
        "fairness.black.demographic_parity_gap": 0.3436, "fairness.black.demographic_parity_gap_high": 0.4038,
        "fairness.female x black.demographic_parity_gap": 0.4155,
        "fairness.female x black.demographic_parity_gap_high": 0.5134,
        "fairness.female.equal_opportunity_gap": 0.0034, "fairness.female.equal_opportunity_gap_high": 0.0227,
    }  # fmt: skip
    note = verdict.fairness_gate([failing], figures)["text"]
    assert note.startswith("Promotion gate: FAILS. upper end of the largest fairness gap's interval 0.5134")
    past = note.split("past the bound 0.4000: ")[1]
    # a gap whose point estimate is under the bound but whose interval reaches past it is named too; largest first
    assert past.startswith("female x black.demographic_parity_gap 0.4155 (upper end 0.5134), black.demographic")
    assert "female.equal_opportunity" not in note and "Fix: the report's Fairness section" in note
    passing = Check(failing.check, 0.3, 0.4, True, "")
    assert verdict.fairness_gate([passing], {})["text"].startswith("Promotion gate: passes.")
    assert verdict.fairness_gate([Check(failing.check, None, None, None, "no sensitive attribute")], {}) is None
