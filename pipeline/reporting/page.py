"""The report page: its content, built only from the files the stages wrote, as sections of parts (a heading, a
paragraph, a table, a row of figures), and the model card; the Jinja2 template
pipeline/reporting/templates/report.html.j2 holds the page's HTML and CSS and escapes every text once. Deterministic:
no timestamps; the same inputs give the same bytes."""

from __future__ import annotations

import base64
import math
import re
from pathlib import Path

import numpy as np

from ..core.changes import change, describe

TEMPLATE = Path(__file__).parent / "templates" / "report.html.j2"


def fmt(value) -> str:
    """A value as the page shows it: undefined (None, NaN), yes / no, floats to 4 decimals (a whole number from 2 on,
    a count that went through a float, as an integer), lists joined, mappings as `key: value; ...` (never a repr)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "undefined"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{int(value)}" if value.is_integer() and 2 <= abs(value) < 1e15 else f"{value:.4f}"
    if isinstance(value, (list, tuple)):
        return ", ".join(fmt(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_inner(v)}" for k, v in value.items())
    return str(value)


def _inner(value) -> str:
    """A mapping inside a mapping: `key value, ...`."""
    return ", ".join(f"{k} {fmt(v)}" for k, v in value.items()) if isinstance(value, dict) else fmt(value)


def _is_number(value) -> bool:
    return isinstance(value, (int, float, np.number)) and not isinstance(value, (bool, np.bool_))


def table(rows: list[dict], columns: list[str] | None = None) -> dict:
    """A table of rows (dicts) in the given column order (default: the first row's keys); absent cells undefined;
    numbers right-aligned, text left."""
    if not rows:
        return muted("(none)")
    columns = columns or list(rows[0])
    return {
        "kind": "table",
        "columns": list(columns),
        "rows": [[fmt(row.get(c)) for c in columns] for row in rows],
        "numeric": [[_is_number(row.get(c)) for c in columns] for row in rows],
    }


def key_values(pairs: dict) -> dict:
    return table([{"quantity": k, "value": v} for k, v in pairs.items()])


def heading(text: str) -> dict:
    return {"kind": "heading", "text": text}


def muted(text: str) -> dict:
    """An explanatory paragraph (method, settings, how to read a table)."""
    return {"kind": "muted", "text": text}


def note(text: str) -> dict:
    """A highlighted paragraph: a finding the reader should not miss."""
    return {"kind": "note", "text": text}


def figures(*names: str) -> dict:
    """A row of figures, by their file names under reports/figures/."""
    return {"kind": "figures", "names": list(names)}


def grouping(i: int, title: str, *parts: dict) -> list[dict]:
    """The parts of one fairness grouping: its heading, its tables and notes, its figure fairness_<i>.png."""
    return [heading(title), *parts, figures(f"fairness_{i}.png")]


def section(title: str, *parts: dict) -> dict:
    """A section of the page, with its anchor for the contents list (its title in lower case, words joined by -)."""
    return {"title": title, "anchor": "-".join(re.findall(r"[a-z0-9]+", title.lower())), "parts": list(parts)}


def document(title: str, sections: list[dict], figs: dict[str, bytes]) -> str:
    """The page: the template rendered with the sections, the figures inlined as base64 PNG."""
    import jinja2

    named = {name for s in sections for part in s["parts"] if part["kind"] == "figures" for name in part["names"]}
    if named - set(figs):
        raise ValueError(f"the report names figures that were not drawn: {sorted(named - set(figs))}")
    environment = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    images = {name: base64.b64encode(png).decode() for name, png in figs.items()}
    return environment.from_string(TEMPLATE.read_text()).render(title=title, sections=sections, images=images)


def data_changes(params: dict, r: dict) -> list[dict]:
    """Every change the pipeline made to the user's data, in stage order: validate's and clean's records
    (pipeline/core/changes.py) and what the features stage fills in or pools (imputed values, pooled rare levels)."""
    data = params["data"]
    records = [*r["validation"]["changes"], *r["cleaning"]["changes"]]
    features = set(r["features"]["numeric"]) | set(r["features"]["categorical"])
    imputed = {c: n for c, n in r["cleaning"]["missing_values"].items() if c in features}
    if imputed:
        numeric = [c for c in imputed if c in r["features"]["numeric"]]
        how = params["features"]["numeric_imputer"]
        records.append(
            change(
                "features",
                f"missing feature values imputed ({how['name']} {how['params'].get('strategy', '')} for numeric "
                f"columns; {params['features']['categorical_imputer']['name']} for categorical ones), fitted on the "
                "training rows of each split"
                + (", with a <column>_missing indicator" if how["params"].get("add_indicator") and numeric else ""),
                values=sum(imputed.values()),
                columns=sorted(imputed),
            )
        )
    for column, count in r["features"]["pooled_levels"].items():
        records.append(
            change(
                "features",
                f"{count['pooled']} of {count['levels']} levels of {column} pooled into {column}=infrequent "
                "(features.encoder.params min_frequency / max_categories)",
                columns=[column],
            )
        )
    hidden = [a for a in data["sensitive"] if a in data["drop"]]
    if hidden:
        records.append(change("features", "sensitive attributes kept for the audit, never features", columns=hidden))
    return records


def changes_summary(records: list[dict]) -> str:
    """The model card's line: each change with its count, and the target's shift where rows were removed."""
    parts = []
    for c in records:
        counts = [f"{c[k]} {k}" for k in ("rows", "values") if c[k]] + (
            [", ".join(c["columns"])] if c["columns"] else []
        )
        shift = (
            f"; target {describe(c['target_before'])} -> {describe(c['target_after'])}" if "target_before" in c else ""
        )
        parts.append(f"{c['stage']}: {c['change']} [{'; '.join(counts)}]{shift}")
    return "; ".join(parts) if parts else "none: every row, column and value of the file reached the model as it was"


def model_card(params: dict, r: dict, promotion: str) -> str:
    """The model card; promotion: the promotion gate's line (promotion_summary)."""
    data, test, train = params["data"], r["test"], r["train"]
    seen = r["split"]["rows"]["train"] + r["split"]["rows"]["test"]
    if seen != r["cleaning"]["rows_out"]:  # every row that left the data is a change record
        raise ValueError(f"the split holds {seen} rows but clean wrote {r['cleaning']['rows_out']}")
    task_items = (
        regression_card(data, test, r["fairness"])
        if test["task"] == "regression"
        else classification_card(params, test, r["fairness"], r["calibration"])
    )
    items = {
        "Model": f"{train['model']} with {fmt(train['best_params']) or 'its defaults'}, chosen by"
        f" {train['scoring']} over "
        f"{train['n_candidates']} candidates and {train['n_folds']} {r['split']['strategy']} folds",
        "Task": f"{test['task']}: {r['validation']['task_reason']}",
        "Intended use": f"{task_items.pop('Intended use')}. Not validated for other populations.",
        "Training data": f"{data['path']}: {r['validation']['rows_in']} rows; the model saw {seen} of them "
        f"({r['split']['rows']['train']} training, {r['split']['rows']['test']} held out), the rest removed as listed "
        "under Data changes",
        "Data changes": changes_summary(data_changes(params, r)),
        "Evaluation data": f"{r['split']['rows']['test']} held-out rows"
        + (f", grouped by {data['group']} (no group in both sets)" if data["group"] else "")
        + ", used once"
        + (f". WARNING: {r['split']['test_fraction_note']}" if r["split"]["test_fraction_note"] else ""),
        "Performance": f"{task_items.pop('Performance')}; CV {train['scoring']} {fmt(train['cv_mean'])} ± "
        f"{fmt(train['cv_std'])} (mean of {train['n_folds']} splits; pooled out-of-fold {fmt(train['cv_pooled'])})"
        + (f". Note: {train['cv_note']}" if train["cv_note"] else ""),
        **task_items,
        "Solver warnings": solver_summary(train, r["calibration"]),
        "Single-feature leakage": r["assessment"]["single_feature"]["statement"],
        "Excluded as features": (
            ", ".join(data["drop"]) + " (data.drop: leakage, identifiers, free text or attributes audited only)"
            if data["drop"]
            else "none (data.drop is empty)"
        ),
        "Sensitive attributes": sensitive_roles(data, r["validation"]),
        "Promotion gate": promotion,
        "Provenance": f"{data['path']} md5 {r['validation']['file_md5']} (as in dvc.lock); params sha256 "
        f"{r['params_sha256'][:16]} (every section but tracking and compute); {code_provenance(r['code_trees'])}",
        "Caveats": "Permutation importance is misleading for correlated features; fairness gaps come from one test set "
        "(bootstrap intervals in the fairness section); groups below the minimum size are flagged in the "
        "fairness table and left out of the parity criteria.",
    }
    return key_values(items)


def solver_summary(train: dict, calibration: dict) -> str:
    """Fits of the chosen model (its search folds and the refit) and of the calibration map that stopped at their
    iteration caps (mllib.base.ConvergenceWarning), or that none did."""
    stopped = train["not_converged"]
    parts = []
    if stopped["folds"] or stopped["refit"]:
        where = [f"{len(stopped['folds'])} of {train['n_folds']} search folds"] if stopped["folds"] else []
        where += ["the refit on all training rows"] if stopped["refit"] else []
        parts.append(f"the chosen model stopped at its iteration cap in {' and '.join(where)}: "
                     + "; ".join(stopped["messages"]))  # fmt: skip
    if calibration["not_converged"]:
        parts.append("the calibration map stopped at its iteration cap: " + "; ".join(calibration["not_converged"]))
    return "; ".join(parts) if parts else "none: every fit of the chosen model and the map met its tolerance"


def sensitive_roles(data: dict, validation: dict) -> str:
    """Which sensitive attributes the model uses as features and which it only audits, and their missing values."""
    if not data["sensitive"]:
        return "none declared (data.sensitive is empty): no fairness audit"
    parts = []
    for a in data["sensitive"]:
        role = "audited, not a model feature (data.drop)" if a in data["drop"] else "audited and a model feature"
        missing = validation["missing_sensitive"].get(a)
        if missing:
            role += f"; {missing['rows']} missing values ({missing['action']})"
        parts.append(f"{a}: {role}")
    return "; ".join(parts)


def code_provenance(trees: dict) -> str:
    """The code as git tree ids (pipeline/core/provenance.py): equal to `git rev-parse <commit>:<dir>` of the commit it
    came from; the commit itself and the dirty flag are MLflow tags (a byte-reproducible page cannot name the commit
    that records it)."""
    if None in trees.values():
        return "code: not a git checkout, so the code is not identified"
    ids = ", ".join(f"{directory}/ {tree}" for directory, tree in trees.items())
    return (
        f"code as git tree ids {ids} (`git rev-parse <commit>:mllib` gives the same id for the commit the code "
        "came from; no commit has it if the code was uncommitted); the commit and dirty flag are the MLflow run's "
        "tags git.commit and git.dirty"
    )


def promotion_summary(params: dict, r: dict) -> str:
    """The gate's threshold checks (tracking.promotion); the comparison with the best champion so far happens when
    the track stage registers the version (its description gives the decision and every check)."""
    from ..tracking.promotion import decide, threshold_checks
    from .headline import flat, headline

    figures = flat(headline(r["train"], r["calibration"], r["test"], r["fairness"], r["assessment"]))
    decision = decide(threshold_checks(figures, r["test"]["task"], params["tracking"]["promotion"]))
    verdict = (
        "the thresholds pass" if decision["promote"] else "the thresholds FAIL: this version cannot become champion"
    )
    return (
        f"{verdict} ({'; '.join(decision['reasons'])}); the track stage registers the model as `candidate` and "
        "moves `champion` to it if it is also no worse than the best champion so far (tracking.promotion.tolerance); "
        "the version's description states the decision and every check. The comparison reads test figures: each "
        "version's test set is used once, by its own run, but choosing among many versions by test score makes the "
        "test set a selection set, so the gate only asks that a version be no worse than the best champion, and the "
        "cross-validated and nested-CV scores in this report are the evidence for ranking configurations"
    )


def audited(fairness: dict, data: dict) -> dict:
    """The fairness audit's groupings of data.sensitive: each attribute and every intersection ("a & b")."""
    return {a: result for a, result in fairness["attributes"].items() if set(a.split(" & ")) <= set(data["sensitive"])}


def classification_card(params: dict, test: dict, fairness: dict, calibration: dict) -> dict:
    data, binary = params["data"], test["task"] == "binary"
    shown = ("demographic_parity", "equal_opportunity")
    gaps = {  # each attribute and every intersection of them (the promotion gate reads them all)
        a: {c: result["criteria"][c]["difference"] for c in shown} for a, result in audited(fairness, data).items()
    }
    decision = test["decision"]
    rule = (
        f"decisions at p >= {fmt(decision['threshold'])}"
        if decision["threshold"] is not None
        else "decisions of least expected cost"
        if decision["cost_matrix"]
        else "decisions: the most probable class"
    )
    intended = (
        f"Scores the probability that {data['target']} = {test['classes'][1]} for rows like the training data"
        if binary
        else f"Gives the probability of each class of {data['target']} ({', '.join(test['classes'])}) "
        "for rows like the training data"
    )
    conformal = test["conformal"]
    return {
        "Intended use": f"{intended}; {rule}",
        "Performance": (
            f"test ROC AUC {fmt(test['roc_auc'])}, accuracy {fmt(test['accuracy'])}, Brier {fmt(test['brier'])}"
            if binary
            else f"test macro one-vs-rest ROC AUC {fmt(test['roc_auc_ovr'])}, accuracy "
            f"{fmt(test['accuracy'])}, macro F1 {fmt(test['f1_macro'])}, log loss {fmt(test['log_loss'])}"
        ),
        "Calibration": f"{calibration['method']} ("
        + (
            "calibration.method auto: the least cross-fitted log loss of the maps, none included"
            if calibration["method_setting"] == "auto"
            else "named in params.yaml"
        )
        + "): test ECE "
        f"{fmt(test['calibration']['before']['ece'])} before, "
        f"{fmt(test['calibration']['after']['ece'])} after"
        + ranking_note(test["calibration"]["ranking"])
        + (f". WARNING: {calibration['warning']}" if calibration["warning"] else ""),
        "Prediction sets": f"conformal sets hold the true class on {fmt(conformal['coverage'])} of test rows (target "
        f"{fmt(conformal['set_coverage'])}), {fmt(conformal['mean_set_size'])} classes on average",
        "Fairness": "; ".join(
            f"by {a}: demographic-parity gap {fmt(g['demographic_parity'])}, equal-opportunity gap "
            f"{fmt(g['equal_opportunity'])}" + ("" if binary else " (macro over classes)")
            for a, g in gaps.items()
        )
        or "no sensitive attributes",
        "Fairness mitigation": mitigation_summary(fairness, data["sensitive"]),
    }


def ranking_note(ranking: dict) -> str:
    """A sentence when the deployed map changed the model's test ranking (isotonic's ties, histogram binning's bins)."""
    if not ranking["changed"]:
        return ""
    return (
        f". The map changes the model's ranking: test {ranking['metric']} {fmt(ranking['model'])} of the model's own "
        f"scores, {fmt(ranking['deployed'])} of the deployed probabilities"
    )


def regression_card(data: dict, test: dict, fairness: dict) -> dict:
    intervals = test["intervals"]
    deployed = intervals[intervals["deployed"]]
    gaps = {a: result["gaps"] for a, result in audited(fairness, data).items()}  # with the intersections
    return {
        "Intended use": f"Predicts {data['target']} with a {fmt(intervals['coverage_target'])} prediction interval "
        f"({intervals['deployed']}) for rows like the training data",
        "Performance": f"test RMSE {fmt(test['rmse'])}, MAE {fmt(test['mae'])}, R^2 {fmt(test['r2'])}",
        "Prediction intervals": f"{intervals['deployed']}: hold the actual value on {fmt(deployed['coverage'])} "
        f"of test "
        f"rows (target {fmt(intervals['coverage_target'])}), mean width {fmt(deployed['mean_width'])}",
        "Fairness": "; ".join(
            f"by {a}: MAE gap {fmt(g['mae']['difference'])}, mean residual gap "
            f"{fmt(g['mean_residual']['difference'])}, interval coverage gap "
            f"{fmt(g['interval_coverage']['difference'])}"
            for a, g in gaps.items()
        )
        or "no sensitive attributes",
        "Fairness mitigation": "none: per-group thresholds and reweighing are classification methods",
    }


def mitigation_summary(fairness: dict, sensitive: list[str]) -> str:
    """Each attribute's test gap of the mitigated criterion before -> after, with the accuracy cost, for the
    per-group thresholds and for reweighing (demographic parity when no criterion is mitigated)."""
    thresholds, reweighed = fairness["mitigation"], fairness.get("reweighing", {})
    criterion = thresholds["criterion"] if thresholds["criterion"] != "none" else "demographic_parity"
    if reweighed.get("applied") and criterion not in next(iter(reweighed["test"]["attributes"].values())):
        criterion = "demographic_parity"
    sentences = []
    for a in sensitive:
        items = []
        m = thresholds.get("attributes", {}).get(a, {})
        if m.get("applied"):
            t = m["test"]
            items.append(
                f"per-group thresholds {fmt(t['gap_before'])} -> {fmt(t['gap_after'])} "
                f"(accuracy cost {fmt(t['accuracy_cost'])})"
            )
        if reweighed.get("applied"):
            g = reweighed["test"]["attributes"][a][criterion]
            items.append(
                f"reweighing {fmt(g['gap_before'])} -> {fmt(g['gap_after'])} "
                f"(accuracy cost {fmt(reweighed['test']['accuracy_cost'])})"
            )
        if items:
            sentences.append(f"By {a}, test {criterion} gap: {', '.join(items)}.")
    return " ".join(sentences) or "none applied"


def interval(value, bounds) -> str:
    """'0.7619 [0.6525, 0.8517]': a point estimate with its bootstrap interval (undefined parts say so)."""
    if not bounds:
        return fmt(value)
    return f"{fmt(value)} [{fmt(bounds[0])}, {fmt(bounds[1])}]"
