"""pipeline/reporting/page.py and its template: cell formatting (undefined, yes/no, 4 decimals, counts as integers,
mappings without reprs), tables (numbers right-aligned, text left), the contents list with its anchors, the page
rendered by pipeline/reporting/templates/report.html.j2 with every text HTML-escaped exactly once, and the model card
built from the stage reports."""

from __future__ import annotations

import html as std_html
import math
import re

import numpy as np
import pytest
from partial_records import partial, typed

from pipeline.core.changes import feature_changes
from pipeline.core.fairness_records import FairnessReport
from pipeline.core.task import Target
from pipeline.reporting import card, classification_fairness
from pipeline.reporting import page as report
from pipeline.steps.calibration import why_deployed


@pytest.mark.parametrize(
    "value, text",
    [
        (None, "undefined"),
        (float("nan"), "undefined"),
        (np.float64("nan"), "undefined"),
        (True, "yes"),
        (False, "no"),
        (0.123456, "0.1235"),
        (np.float64(2.0), "2"),  # a count that went through a float
        (3990.0, "3990"),
        (1.0, "1.0000"),  # a metric at its bound keeps its decimals
        (0.0, "0.0000"),
        (2.5, "2.5000"),
        (3, "3"),
        ("plain", "plain"),
        ("<b>&'", "<b>&'"),  # escaped by the template, once
        (["a", 1, "<x>", 0.5], "a, 1, <x>, 0.5000"),
        ({"lam": "<1>"}, "lam: <1>"),
        ({"black": {"action": "quarantine", "rows": 251}}, "black: action quarantine, rows 251"),
    ],
)
def test_fmt(value, text):
    assert report.fmt(value) == text


def _page(*parts, figs=None) -> str:
    """One section holding the parts, rendered by the template; the HTML between <h2> and </body>."""
    doc = report.document("t", [report.section("s", *parts)], figs or {})
    return "".join(doc.split("<h2 id='s'>s</h2>")[1].split("</body>")[0].split("\n"))


def test_table_escapes_headers_and_cells_and_keeps_column_order():
    rows = [{"<name>": "<a>", "value": 0.5, "flag": None}, {"<name>": "b", "value": math.nan, "flag": True}]
    out = _page(report.table(rows))
    assert out.startswith("<table><tr><th>&lt;name&gt;</th><th>value</th><th>flag</th></tr>")
    assert "<td>&lt;a&gt;</td><td class='num'>0.5000</td><td>undefined</td>" in out
    assert "<td>b</td><td class='num'>undefined</td><td>yes</td>" in out
    assert out.count("<tr>") == 3


def test_table_with_chosen_columns_and_missing_values():
    out = _page(report.table([{"a": 1, "b": 2}], ["b", "c"]))
    assert out == "<table><tr><th>b</th><th>c</th></tr><tr><td class='num'>2</td><td>undefined</td></tr></table>"
    assert _page(report.table([])) == "<p class='muted'>(none)</p>"


def test_paragraphs_headings_and_figures():
    out = _page(
        report.heading("a < b"),
        report.muted("x & y"),
        report.note("'quoted'"),
        report.figures("f<1>.png"),
        figs={"f<1>.png": b"\x89PNG"},
    )
    assert out == (
        "<h3>a &lt; b</h3><p class='muted'>x &amp; y</p><p class='note'>&#39;quoted&#39;</p>"
        "<div class='figs'><img alt='f&lt;1&gt;.png' src='data:image/png;base64,iVBORw=='></div>"
    )
    with pytest.raises(ValueError, match=r"not drawn: \['missing.png'\]"):
        _page(report.figures("missing.png"))


def _bootstrap(figures: dict, n: int = 18) -> dict:
    """test.json's `bootstrap` for figures {name: (value, low, high)}."""
    return {
        "method": "percentile bootstrap, 200 draws with replacement of the test rows' zper clusters",
        "confidence_level": 0.95,
        "n_boot": 200,
        "unit": "cluster",
        "n": n,
        "n_units": 9,
        "figures": {m: {"value": v, "interval": [lo, hi], "defined_draws": 200} for m, (v, lo, hi) in figures.items()},
    }


def _against(gain=0.1, same=False, decided=None) -> dict:
    decided = decided or {"0": 6, "1": 12}
    return {
        "metric": "balanced error (1 - the mean recall over the classes)",
        "no_skill_rule": "decide 1 for every row, the training rows' most frequent class",
        "loss": 0.5 - gain,
        "no_skill_loss": 0.5,
        "gain": gain,
        "gain_interval": [gain - 0.1, gain + 0.1],
        "decided": decided,
        "classes_decided": sum(1 for v in decided.values() if v),
        "same_as_no_skill": same,
    }


def _card_inputs():
    params = {
        "data": {
            "path": "data/raw/x.csv",
            "target": "binexp",
            "positive_label": 1,
            "group": "zper",
            "sensitive": ["female", "black"],
            "drop": ["meddol", "inpdol"],
        },
        "model": {"name": "logistic_regression"},
        "split": {"strategy": "stratified_group"},
        "calibration": {"method": "platt"},
        "features": {
            "numeric_imputer": {"name": "simple_imputer", "params": {"strategy": "median", "add_indicator": True}},
            "categorical_imputer": {
                "name": "simple_imputer",
                "params": {"strategy": "constant", "fill_value": "(missing)"},
            },
        },
    }
    r = {
        "test": {
            "task": "binary",
            "classes": ["0", "1"],
            "roc_auc": 0.712345,
            "accuracy": 0.8,
            "brier": 0.15,
            "decision": {"threshold": 0.5, "cost_matrix": None, "against_no_skill": _against()},
            "confusion": {"tp": 10, "fp": 2, "fn": 2, "tn": 4},
            "conformal": {"coverage": 0.91, "set_coverage": 0.9, "mean_set_size": 1.3},
            "drift": {"statement": "test rows: no column's distribution differs beyond chance"},
            "calibration": {"before": {"ece": 0.05}, "after": {"ece": None}, "ranking": {"changed": False}},
            "bootstrap": _bootstrap(
                {"roc_auc": (0.712345, 0.6, 0.8), "accuracy": (0.8, 0.7, 0.9), "brier": (0.15, 0.1, 0.2)}
            ),  # fmt: skip
        },
        "train": {
            "model": "logistic_regression",
            "best_params": {"lam": 10.0},
            "scoring": "roc_auc",
            "n_candidates": 4,
            "n_folds": 5,
            "cv_mean": 0.7,
            "cv_std": 0.01,
            "cv_pooled": 0.69,
            "cv_note": None,
            "not_converged": {"folds": [], "refit": False, "messages": []},
        },
        "calibration": {
            "method": "platt",
            "method_setting": "platt",
            "warning": None,
            "why_deployed": "named in params.yaml",
            "n_rows": 72,
            "oof_before": {"ece": 0.06},
            "oof_after_crossfitted": {"ece": 0.03},
            "not_converged": [],
        },
        "assessment": {
            "single_feature": {"flagged": [], "statement": "no feature alone reaches roc_auc 0.98"},
            "temporal_leakage": {"statement": "not estimated: data.time is null"},
        },
        "fairness": {
            "attributes": {
                "female": {
                    "criteria": {
                        "demographic_parity": {"difference": 0.031},
                        "equal_opportunity": {"difference": 0.012},
                    }
                },
                "black": {
                    "criteria": {"demographic_parity": {"difference": None}, "equal_opportunity": {"difference": 0.2}}
                },
                "female & black": {
                    "criteria": {"demographic_parity": {"difference": 0.5}, "equal_opportunity": {"difference": 0.5}}
                },
            },
            "mitigation": {
                "criterion": "equal_opportunity",
                "attributes": {
                    "female": {
                        "applied": True,
                        "test": {"gap_before": 0.012, "gap_after": 0.004, "accuracy_cost": 0.001},
                    },
                    "black": {"applied": False, "reason": "group 1 has no positives"},
                },
            },
            "reweighing": {
                "applied": True,
                "test": {
                    "accuracy_cost": -0.002,
                    "attributes": {
                        "female": {"equal_opportunity": {"gap_before": 0.012, "gap_after": 0.006}},
                        "black": {"equal_opportunity": {"gap_before": 0.2, "gap_after": None}},
                    },
                },
            },
        },
        "validation": {
            "rows_kept": 90,
            "rows_in": 100,
            "rows_quarantined": 10,
            "task_reason": "two classes [0, 1]",
            "file_md5": "0123456789abcdef0123456789abcdef",
            "missing_sensitive": {},
            "changes": [
                {
                    "stage": "validate",
                    "change": "rows quarantined (black: 10)",
                    "rows": 10,
                    "values": 0,
                    "columns": [],
                    "target_before": {"0": 0.3, "1": 0.7},
                    "target_after": {"0": 0.25, "1": 0.75},
                }
            ],
        },
        "cleaning": {
            "rows_in": 90,
            "rows_out": 90,
            "missing_values": {"age": 3, "zper": 0},
            "changes": [
                {
                    "stage": "clean",
                    "change": "columns dropped (data.drop)",
                    "rows": 0,
                    "values": 0,
                    "columns": ["meddol", "inpdol"],
                },
            ],
        },
        "features": {
            "numeric": ["age", "female", "black"],
            "categorical": ["plan"],
            "pooled_levels": {},
            "changes": feature_changes(
                {
                    "age": {"values": 2, "filled": "the median 41", "indicator": "age_missing"},
                    "plan": {
                        "values": 5,
                        "filled": "the constant '(missing)'",
                        "indicator": None,
                        "column": "plan=(missing)",
                    },
                },
                {},
                72,
                params["features"],
            ),
        },
        "params_sha256": "f" * 64,
        "code_trees": {"mllib": "a" * 40, "pipeline": "b" * 40},
        "split": {"rows": {"train": 72, "test": 18}, "strategy": "stratified_group", "test_fraction_note": None},
        "target": Target("binary", "binexp", [0, 1], "set by data.task"),
    }
    return params, r


def _cells(card: dict) -> dict[str, str]:
    """quantity -> the text a browser shows for its value, from the rendered page."""
    return {
        std_html.unescape(k): std_html.unescape(v)
        for k, v in re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td></tr>", _page(card))
    }


def test_model_card_content():
    params, r = _card_inputs()
    cells = _cells(card.model_card(params, typed(r), "thresholds pass"))
    assert list(cells) == [
        "Model",
        "Model choice",
        "Task",
        "Intended use",
        "Training data",
        "Data changes",
        "Evaluation data",
        "Performance",
        "Test figures",
        "Decisions",
        "Calibration",
        "Prediction sets",
        "Fairness",
        "Fairness mitigation",
        "Solver warnings",
        "Single-feature leakage",
        "Temporal leakage",
        "Drift, test vs training rows",
        "Excluded as features",
        "Sensitive attributes",
        "Promotion gate",
        "Provenance",
        "Caveats",
    ]
    assert cells["Promotion gate"] == "thresholds pass"
    assert "md5 0123456789abcdef0123456789abcdef (as in dvc.lock)" in cells["Provenance"]
    assert "params sha256 ffffffffffffffff" in cells["Provenance"] and "git.commit" in cells["Provenance"]
    assert f"git tree ids mllib/ {'a' * 40}, pipeline/ {'b' * 40}" in cells["Provenance"]
    assert cells["Task"] == "binary: two classes [0, 1]"
    assert "decisions at p >= 0.5000" in cells["Intended use"]
    assert cells["Prediction sets"].startswith(
        "conformal sets hold the true class on 0.9100 of test rows (target 0.9000)"
    )
    assert cells["Model"] == (
        "logistic_regression with lam: 10, chosen by roc_auc over 4 candidates and 5 stratified_group folds"
    )
    assert cells["Model choice"].startswith("logistic_regression, as model.name names it (no comparison")
    assert "binexp = 1" in cells["Intended use"]
    assert cells["Training data"].startswith(
        "data/raw/x.csv: 100 rows; the model saw 90 of them (72 training, 18 held out)"
    )
    assert cells["Data changes"] == (
        "validate: rows quarantined (black: 10) [10 rows]; target 0: 0.300, 1: 0.700 -> 0: 0.250, 1: 0.750; "
        "clean: columns dropped (data.drop) [meddol, inpdol]; "
        "features: missing values of numeric columns filled by simple_imputer (strategy 'median' add_indicator True), "
        "fitted on the training rows of each split; of the 72 training rows: age 2 with the median 41, indicator "
        "age_missing [2 values; age]; "
        "features: missing values of categorical columns filled by simple_imputer (strategy 'constant' fill_value "
        "'(missing)'), fitted on the training rows of each split; of the 72 training rows: plan 5 with the constant "
        "'(missing)' -> column plan=(missing) [5 values; plan]"
    )
    assert cells["Sensitive attributes"] == "female: audited and a model feature; black: audited and a model feature"
    assert cells["Evaluation data"].startswith("18 held-out rows, grouped by zper")
    assert "test ROC AUC 0.7123 [0.6000, 0.8000]" in cells["Performance"] and "n = 18 test rows (9 clusters)" in \
        cells["Performance"] and "CV roc_auc 0.7000 ± 0.0100" in cells["Performance"]  # fmt: skip
    assert cells["Test figures"] == (
        "roc_auc 0.7123 [0.6000, 0.8000], accuracy 0.8000 [0.7000, 0.9000], brier 0.1500 [0.1000, 0.2000] (95% "
        "intervals, n = 18 test rows)"
    )
    assert cells["Decisions"] == (
        "tp 10, fp 2, fn 2, tn 4 (positive: 1); balanced error (1 - the mean recall over the classes) 0.4000 against "
        "0.5000 for the no-skill rule (decide 1 for every row, the training rows' most frequent class): gain 0.1000 "
        "[0.0000, 0.2000]"
    )
    assert cells["Calibration"] == (
        "platt (named in params.yaml): cross-fitted ECE 0.0600 with no map, 0.0300 deployed, on the 72 out-of-fold "
        "rows the maps are judged on; test ECE 0.0500 before, undefined after"
    )
    assert cells["Performance"].endswith("CV roc_auc 0.7000 ± 0.0100 (mean of 5 splits; pooled out-of-fold 0.6900)")
    assert cells["Solver warnings"] == "none: every fit of the chosen model and the map met its tolerance"
    assert cells["Fairness"] == (
        "by female: demographic-parity gap 0.0310, equal-opportunity gap 0.0120; "
        "by black: demographic-parity gap not evaluated, equal-opportunity gap 0.2000; "
        "by female & black: demographic-parity gap 0.5000, equal-opportunity gap 0.5000"
    )
    assert cells["Fairness mitigation"] == (
        "By female, test equal_opportunity gap: per-group thresholds 0.0120 -> 0.0040 (accuracy cost 0.0010), "
        "reweighing 0.0120 -> 0.0060 (accuracy cost -0.0020). "
        "By black, test equal_opportunity gap: reweighing 0.2000 -> undefined (accuracy cost -0.0020)."
    )
    assert cells["Excluded as features"].startswith("meddol, inpdol")


def test_mitigation_summary_without_mitigation_or_refit():
    fairness = {"mitigation": {"criterion": "none"}, "reweighing": {"refit": False, "weights": {}}}
    assert classification_fairness.mitigation_summary(partial(FairnessReport, fairness), ["female"]) == "none applied"
    fairness["reweighing"] = {
        "refit": True,
        "applied": True,
        "test": {
            "accuracy_cost": 0.01,
            "attributes": {"female": {"demographic_parity": {"gap_before": 0.3, "gap_after": 0.1}}},
        },
    }
    assert classification_fairness.mitigation_summary(partial(FairnessReport, fairness), ["female"]) == (
        "By female, test demographic_parity gap: reweighing 0.3000 -> 0.1000 (accuracy cost 0.0100)."
    )
    empty = {"mitigation": {"criterion": "none"}, "reweighing": {}}
    assert classification_fairness.mitigation_summary(partial(FairnessReport, empty), []) == "none applied"


def test_a_mitigation_that_widens_the_gap_on_test_is_said_to_and_never_offered_as_the_fix():
    """The issue: per-group thresholds widened the test gap 0.011 -> 0.086 without a word (the default data: by
    female, 0.003 -> 0.009). The card's line and the stage's line say so."""
    from pipeline.steps.fairness_audit import summary_lines

    widened = {"gap_before": 0.011, "gap_after": 0.086, "accuracy_cost": 0.002}
    narrowed = {"gap_before": 0.174, "gap_after": 0.012, "accuracy_cost": 0.02}
    fairness = {
        "attributes": {},
        "mitigation": {"criterion": "equal_opportunity",
                       "attributes": {"afam": {"applied": True, "test": widened},
                                      "female": {"applied": True, "test": narrowed}}},
        "reweighing": {"refit": False, "weights": {}},
    }  # fmt: skip
    card_line = classification_fairness.mitigation_summary(partial(FairnessReport, fairness), ["afam", "female"])
    assert "per-group thresholds 0.0110 -> 0.0860 (widens the gap on test: not a fix)" in card_line, card_line
    assert "0.1740 -> 0.0120 (accuracy cost" in card_line, card_line
    lines = summary_lines(fairness, "equal_opportunity")
    assert lines[0] == (
        "fairness: equal_opportunity thresholds by afam: test gap 0.011 -> 0.086 (widens the gap on test: not a fix), "
        "accuracy cost 0.0020"
    ), lines
    assert "not a fix" not in lines[1]


def test_model_card_escapes_exactly_once():
    params, r = _card_inputs()
    params["data"]["target"] = "a<b"
    r["train"]["best_params"] = {"solver": "l'bfgs"}
    page = _page(card.model_card(params, typed(r), "thresholds pass"))
    assert "&amp;amp;" not in page and "&amp;lt;" not in page and "&amp;#39;" not in page  # nothing escaped twice
    assert "female &amp; black" in page  # an intersection's name, escaped once
    assert "a<b" not in page  # but everything escaped once
    cells = _cells(card.model_card(params, typed(r), "thresholds pass"))
    assert "a<b = 1" in cells["Intended use"]
    assert "with solver: l'bfgs," in cells["Model"]


def test_model_card_multiclass():
    params, r = _card_inputs()
    r["target"] = Target("multiclass", "plan", ["a", "b", "c"], "set by data.task")
    r["test"] = {
        "task": "multiclass",
        "classes": ["a", "b", "c"],
        "roc_auc_ovr": 0.8,
        "accuracy": 0.7,
        "f1_macro": 0.6,
        "log_loss": 0.9,
        "decision": {
            "threshold": None,
            "cost_matrix": None,
            "against_no_skill": _against(0.0, same=True, decided={"a": 0, "b": 18, "c": 0}),
        },
        "confusion": {"labels": ["a", "b", "c"], "matrix": [[0, 5, 0], [0, 8, 0], [0, 5, 0]]},
        "conformal": {"coverage": 0.9, "set_coverage": 0.9, "mean_set_size": 1.5},
        "drift": {"statement": "test rows: no column drifted"},
        "calibration": {"before": {"ece": 0.05}, "after": {"ece": 0.02}, "ranking": {"changed": False}},
        "bootstrap": _bootstrap(
            {
                "roc_auc_ovr": (0.8, 0.7, 0.9),
                "accuracy": (0.7, 0.6, 0.8),
                "f1_macro": (0.6, 0.5, 0.7),
                "log_loss": (0.9, 0.8, 1.0),
            }
        ),  # fmt: skip
    }
    cells = _cells(card.model_card(params, typed(r), "thresholds pass"))
    assert "probability of each class of binexp (a, b, c)" in cells["Intended use"]
    assert "the most probable class" in cells["Intended use"]
    assert cells["Performance"].startswith(
        "test macro one-vs-rest ROC AUC 0.8000 [0.7000, 0.9000], accuracy 0.7000 [0.6000, 0.8000], macro F1 0.6000"
    )
    # the rule that decides one class for every row is the no-skill rule: the card says so and names the fix
    assert cells["Decisions"].startswith("actual a: 0 decided a, 5 decided b, 0 decided c; actual b")
    assert "WARNING: the rule decides the same class for every test row" in cells["Decisions"]
    assert "Set decision.cost_matrix" in cells["Decisions"]
    assert cells["Fairness"].endswith("(macro over classes)")


def test_model_card_says_what_the_run_must_not_hide():
    """A named map worse than no map, fits stopped at their caps and unstable per-split scores are in the card."""
    params, r = _card_inputs()
    r["calibration"].update(method="isotonic", method_setting="isotonic", warning="isotonic makes it worse")
    r["train"]["not_converged"] = {"folds": [0, 3], "refit": True, "messages": ["stopped at max_iter=100"]}
    r["train"]["cv_note"] = "the per-split roc_auc scores disagree"
    r["split"]["test_fraction_note"] = "the test set holds 71.0% of the rows, split.test_size asks for 20.0%"
    cells = _cells(card.model_card(params, typed(r), "thresholds pass"))
    assert cells["Evaluation data"].endswith(
        "WARNING: the test set holds 71.0% of the rows, split.test_size asks for 20.0%"
    )
    assert cells["Calibration"].endswith("WARNING: isotonic makes it worse")
    assert cells["Solver warnings"] == (
        "the chosen model stopped at its iteration cap in 2 of 5 search folds and the refit on all training rows: "
        "stopped at max_iter=100"
    )
    assert cells["Performance"].endswith("Note: the per-split roc_auc scores disagree")
    comparison = [
        {"method": "none", "defined": True, "why": "no map: the model's own probabilities", "log_loss": 0.5},
        {"method": "platt", "defined": True, "why": "log-loss gain 0.0006 is within 2 standard errors (0.0012)",
         "log_loss": 0.4994},
        {"method": "temperature", "defined": False, "reason": "separable"}]  # fmt: skip
    why = why_deployed("auto", comparison, "none", 2.0)  # what calibrate writes to calibration.json
    r["calibration"].update(method="none", method_setting="auto", warning=None, margin=2.0, comparison=comparison,
                            why_deployed=why)  # fmt: skip
    assert _cells(card.model_card(params, typed(r), "x"))["Calibration"].startswith(
        "none (calibration.method auto: no map earns its place (platt: log-loss gain 0.0006 is within 2 standard "
        "errors (0.0012); temperature: undefined; calibration.margin 2)"
    )


def test_model_card_rows_seen_must_match_the_cleaned_rows():
    params, r = _card_inputs()
    r["cleaning"]["rows_out"] = 80  # 10 rows lost between clean and split without a record: the card refuses
    with pytest.raises(ValueError, match="split holds 90 rows but clean wrote 80"):
        card.model_card(params, typed(r), "thresholds pass")


def test_model_card_names_sensitive_attributes_audited_only():
    params, r = _card_inputs()
    params["data"]["drop"] = ["meddol", "black"]
    r["validation"]["missing_sensitive"] = {"black": {"rows": 4, "action": "group"}}
    cells = _cells(card.model_card(params, typed(r), "thresholds pass"))
    assert cells["Sensitive attributes"] == (
        "female: audited and a model feature; black: audited, not a model feature (data.drop); 4 missing values (group)"
    )
    assert "sensitive attributes kept for the audit, never features [black]" in cells["Data changes"]


def test_model_card_without_sensitive_attributes():
    params, r = _card_inputs()
    params["data"]["sensitive"] = []
    assert _cells(card.model_card(params, typed(r), "thresholds pass"))["Fairness"] == "no sensitive attributes"


def test_document_is_deterministic_and_self_contained():
    sections = [report.section("A & B", report.table([{"x": 1}]), report.figures("fig<1>"))]
    doc = report.document("Title <1>", sections, {"fig<1>": b"\x89PNG"})
    assert doc == report.document("Title <1>", sections, {"fig<1>": b"\x89PNG"})
    assert doc.startswith("<!DOCTYPE html>") and "<title>Title &lt;1&gt;</title>" in doc
    assert "<h2 id='a-b'>A &amp; B</h2>" in doc and "data:image/png;base64,iVBORw==" in doc
    assert "alt='fig&lt;1&gt;'" in doc
    assert "http" not in doc  # no external resources


def test_the_page_opens_with_a_contents_list_linking_every_section():
    doc = report.document("t", [report.section("Model card"), report.section("Data: validation, cleaning")], {})
    assert "<li><a href='#model-card'>Model card</a></li>" in doc
    assert "<li><a href='#data-validation-cleaning'>Data: validation, cleaning</a></li>" in doc
    assert doc.index("<nav class='contents'>") < doc.index("<h2 id='model-card'>Model card</h2>")
    assert "<h2 id='data-validation-cleaning'>" in doc


def test_the_card_says_what_the_run_did_not_what_it_might_have():
    """The issue's wording cases. Nothing removed: "the model saw all of them", not "the rest removed". A column with
    one value in every row is named (it was kept as a feature without a word). The missing-values cell of a file
    whose target had gaps says where they went (it was blank)."""
    from pipeline.reporting.sections import missing_line

    params, r = _card_inputs()
    r["validation"].update(rows_in=90, rows_quarantined=0, changes=[])
    cells = _cells(card.model_card(params, typed(r), "x"))
    assert cells["Training data"] == "data/raw/x.csv: 90 rows; the model saw all of them (72 training, 18 held out)"
    r["cleaning"]["single_valued"] = {"league": "A", "empty": None}
    cells = _cells(card.model_card(params, typed(r), "x"))
    assert cells["Training data"].endswith(
        "; kept as features though they hold one value in every row, so carry nothing: league (always A), empty "
        "(no value)"
    )
    r["validation"].update(rows_in=100, missing_target={"Salary": {"rows": 10, "action": "quarantine"}})
    cells = _cells(card.model_card(params, typed(r), "x"))
    assert "the model saw 90 of them (72 training, 18 held out); the other 10 were removed as listed under Data " \
        "changes" in cells["Training data"]  # fmt: skip
    r["cleaning"]["missing_values"] = {}
    assert missing_line(typed(r)) == "none; 10 rows without a target quarantined by validate (validate.missing_target)"
    r["cleaning"]["missing_values"] = {"age": 3}
    assert missing_line(typed(r)).startswith("age: 3; 10 rows without a target")
