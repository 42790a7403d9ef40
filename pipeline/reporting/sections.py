"""The report page's sections and figures, built from the stage report files (pipeline/reporting/page.py holds the
pieces: cells, tables, the model card; pipeline/reporting/templates/report.html.j2 the HTML). One page per task: binary
and multiclass targets get calibration, decisions and per-class tables; regression targets get residuals and conformal
intervals.

Sections cited: Ghent ML notes (seed 004): 3.2 Bias and Variance (419)"""

from __future__ import annotations

from ..core.changes import describe
from . import figures
from . import page as html
from .results import explain_section, regression_fairness_section, regression_test_section, test_section, trust_section


def curve_summaries(test: dict) -> tuple[dict, dict, dict]:
    """{class: ROC AUC}, {class: AP}, {class: prevalence} of the curves drawn (binary: the positive class)."""
    if test["task"] == "binary":
        positive = test["classes"][1]
        prevalence = (test["confusion"]["tp"] + test["confusion"]["fn"]) / test["n"]
        return {positive: test["roc_auc"]}, {positive: test["average_precision"]}, {positive: prevalence}
    per_class = test["per_class"]
    return (
        {c: m["roc_auc_ovr"] for c, m in per_class.items()},
        {c: m["average_precision"] for c, m in per_class.items()},
        {c: m["support"] / test["n"] for c, m in per_class.items()},
    )


def make_figures(r: dict) -> dict[str, bytes]:
    test, scoring, splits = r["test"], r["train"]["scoring"], f"{r['split']['strategy']} splits"
    figs = {
        "validation_curve.png": figures.validation_curve(r["validation_curve"], scoring),
        **(
            {"learning_curve.png": figures.learning_curve(r["learning_curve"], scoring, splits)}
            if r["learning_curve"]
            else {}
        ),
        **(
            {"hyperparameter_curve.png": figures.hyperparameter_curve(r["hyperparameter_curve"], scoring, splits)}
            if r["hyperparameter_curve"]
            else {}
        ),
        "importance.png": figures.importance(r["importance"]["features"], r["importance"]["scoring"]),
    }
    if test["task"] == "regression":
        figs["residuals.png"] = figures.residuals(r["residuals"], test["intervals"])
        for i, (attribute, result) in enumerate(r["fairness"]["attributes"].items()):
            figs[f"fairness_{i}.png"] = figures.group_errors(attribute, result["groups"])
    else:
        figs.update(classification_figures(r))
    if "shapley" in r["attributions"]:
        figs["shapley.png"] = figures.shapley_summary(r["attributions"]["shapley"], r["attributions"]["columns"])
    pd_ = r["partial_dependence"]
    for i, curve in enumerate(pd_["one_way"]):
        figs[f"pdp_{i}.png"] = figures.partial_dependence(curve, pd_["classes"], pd_["output"])
    if pd_["two_way"] and test["task"] != "multiclass":
        figs["pdp_2d.png"] = figures.partial_dependence_2d(pd_["two_way"], pd_["output"])
    return figs


def classification_figures(r: dict) -> dict[str, bytes]:
    test = r["test"]
    auc, ap, prevalence = curve_summaries(test)
    figs = {
        "roc.png": figures.roc(r["roc"], auc),
        "precision_recall.png": figures.precision_recall(r["pr"], ap, prevalence),
        "reliability_oof.png": figures.reliability(r["reliability_oof"], "Reliability, out-of-fold (cross-fitted)"),
        "reliability_test.png": figures.reliability(r["reliability_test"], "Reliability, test"),
        "risk_coverage.png": figures.risk_coverage(r["risk_coverage"], test["selective"]),
    }
    rates = figures.group_rates if test["task"] == "binary" else figures.group_class_rates
    for i, (attribute, result) in enumerate(r["fairness"]["attributes"].items()):
        figs[f"fairness_{i}.png"] = rates(attribute, result["groups"])
    return figs


GROUP_COLUMNS = ("base_rate", "selection_rate", "tpr", "fpr", "precision", "accuracy", "calibration_error")


def calibration_section(r: dict) -> dict:
    test, cal = r["test"], r["calibration"]

    def row(label: str, q: dict) -> dict:
        extra = (
            {f"Brier {k}": v for k, v in q["brier_decomposition"].items()}
            if "brier_decomposition" in q
            else {"classwise ECE": q["classwise_ece"]}
        )
        return {
            "data": label,
            **{k: q[k] for k in ("ece", "mce", "brier", "log_loss")},
            **extra,
            "non-empty bins": q["n_nonempty_bins"],
        }

    groups = [
        {
            "data": data,
            "grouping": name,
            "group": g,
            "n": m["n"],
            "base rate": m["base_rate"],
            "ECE before": m["before"]["ece"],
            "ECE after": m["after"]["ece"],
            "MCE before": m["before"]["mce"],
            "MCE after": m["after"]["mce"],
        }
        for data, by_group in (
            ("out-of-fold (after: cross-fitted)", cal["groups"]),
            ("test", test["calibration"]["groups"]),
        )
        for name, per_group in by_group.items()
        for g, m in per_group.items()
    ]
    settings = ", ".join(f"{k}={v}" for k, v in cal["settings"].items())
    of = (
        "p(positive)"
        if test["task"] == "binary"
        else "the top label (the largest probability against whether its "
        "class is right; classwise ECE: the mean over classes of the ECE of p_k against y = k)"
    )
    return html.section(
        "Calibration",
        html.table(
            [
                row("out-of-fold, before", cal["oof_before"]),
                row("out-of-fold, after (cross-fitted)", cal["oof_after_crossfitted"]),
                row("test, before", test["calibration"]["before"]),
                row("test, after", test["calibration"]["after"]),
            ]
        ),
        html.muted(
            f"Method {html.fmt(cal['method'])}{' one-vs-rest, renormalised' if cal['one_vs_rest'] else ''}"
            f"{' (' + html.fmt(settings) + ')' if settings else ''}, fitted "
            f"on {cal['n_rows']} out-of-fold rows; ECE/MCE of {html.fmt(of)} with "
            f"{cal['binning']['n_bins']} {html.fmt(cal['binning']['strategy'])} bins "
            f"({html.fmt(cal['binning']['edges'])}), "
            "empty bins skipped; the Brier decomposition (Brier = reliability - resolution + uncertainty + "
            f"within-bin, two classes) uses {cal['binning']['n_bins']} equal-width bins. Points below the diagonal "
            "mean the model is "
            "over-confident; the bars below each diagram count the rows per bin."
        ),
        html.figures("reliability_oof.png", "reliability_test.png"),
        html.heading("Which map: every map cross-fitted on the out-of-fold scores"),
        *calibration_choice(cal, test["calibration"]["ranking"]),
        html.heading("Per sensitive group (bins formed within each group, so small groups are noisy)"),
        html.table(groups),
    )


def calibration_choice(cal: dict, test_ranking: dict) -> list[dict]:
    """The comparison of the maps (no map included) by cross-fitted log loss, and why the deployed one was."""
    rows = [
        {
            "map": c["method"] + (" (deployed)" if c["method"] == cal["method"] else ""),
            "log loss": c.get("log_loss"),
            "log loss - none's": c.get("log_loss_vs_none"),
            "its standard error": c.get("standard_error_vs_none"),
            "ECE": c.get("ece"),
            "Brier": c.get("brier"),
            "note": c.get("reason", "") if not c["defined"] else "; ".join(c["not_converged"]),
        }
        for c in cal["comparison"]
    ]
    how = (
        "calibration.method auto deploys the map of least cross-fitted log loss (ties: the one listed first); "
        "the figures of the map chosen this way are slightly optimistic, the test rows above are the check."
        if cal["method_setting"] == "auto"
        else f"calibration.method names {cal['method']}, so it is deployed whatever this table says."
    )
    changed = html.ranking_note(test_ranking).removeprefix(".")  # "" when the map kept the model's ranking
    parts = [html.table(rows), html.muted(how + (changed + "." if changed else ""))]
    if cal["warning"]:
        parts.append(html.note(cal["warning"]))
    return parts


def decisions_section(r: dict) -> dict:
    test = r["test"]
    d, sel, conformal = test["decision"], test["selective"], test["conformal"]
    reject, at = sel["reject_option"], sel["at_target_risk"]
    names = test["classes"]
    rule = {
        "decision rule": {
            "threshold": "p(positive) >= t",
            "argmax": "the class of largest probability",
            "cost_matrix": "least expected cost",
        }[d["rule"]]
    }
    if d["threshold"] is not None:
        rule["decision threshold t (positive when p >= t)"] = d["threshold"]
    if d["cost_matrix"]:
        rule.update(
            {
                f"cost matrix (rows: decision, columns: true class; classes {', '.join(names)})": str(d["cost_matrix"]),
                "expected cost per row, posterior (test)": d["expected_cost_posterior"],
                "realised cost per row (test)": d["realised_cost"],
                "realised cost per row of the rule without costs (test)": d["realised_cost_plain_rule"],
            }
        )
    return html.section(
        "Decisions: costs, the reject option and conformal sets (test)",
        html.key_values(rule),
        html.key_values(
            {
                f"reject option: abstain when the largest class probability < {reject['reject_threshold']}": "",
                "coverage (fraction decided)": reject["coverage"],
                "rows decided": reject["n_accepted"],
                "selective risk (error rate among decided)": reject["selective_risk"],
                "accuracy among decided": reject["accuracy_accepted"],
                "overall error rate (no rejection)": sel["error_rate"],
                "AURC (area under risk-coverage)": sel["aurc"],
                "optimal AURC (perfect ranking)": sel["optimal_aurc"],
                "E-AURC (AURC - optimal)": sel["e_aurc"],
                f"largest coverage with selective risk <= {sel['target_risk']}": at["coverage"]
                if at["achievable"]
                else "not achievable",
                "confidence threshold there": at["threshold"],
                "selective risk there": at["risk"],
            }
        ),
        html.figures("risk_coverage.png"),
        html.heading(
            f"Conformal prediction sets (split-conformal, target coverage {html.fmt(conformal['set_coverage'])})"
        ),
        html.key_values(
            {
                "coverage on test (true class in the set)": conformal["coverage"],
                "mean set size": conformal["mean_set_size"],
                "empty sets": conformal["empty_rate"],
                "single-class sets": conformal["singleton_rate"],
                "sets of every class": conformal["full_rate"],
            }
        ),
        html.muted(
            "A set holds every class k with 1 - p_k <= q, q fitted on the cross-fitted out-of-fold "
            "probabilities so that the true class is in the set with probability at least the target (exchangeable "
            "rows). Coverage on test varies by about sqrt(c (1 - c) / n) around its expectation."
        ),
    )


def multiclass_fairness(f: dict) -> list[dict]:
    """Per grouping: per group and class the selection rate and recall with intervals, the macro gaps."""
    parts = []
    for i, (attribute, result) in enumerate(f["attributes"].items()):
        rows = [
            {
                "group": g,
                "n": m["n"],
                "accuracy": html.interval(m["accuracy"], m.get("intervals", {}).get("accuracy")),
                **{
                    f"{c}: {k.replace('_', ' ')}": html.interval(v[k], m.get("intervals", {}).get(c, {}).get(k))
                    for c, v in m["classes"].items()
                    for k in ("selection_rate", "recall")
                },
                "flag": "below min size" if m["small"] else "",
            }
            for g, m in result["groups"].items()
        ]
        criteria = [
            {
                "criterion": k,
                "rate": v["metric"],
                "macro gap (mean over classes)": html.interval(v["difference"], v["difference_interval"]),
                **{f"gap {c}": d for c, d in v.get("per_class", {}).items()},
                "note": v.get("reason") or "",
            }
            for k, v in result["criteria"].items()
        ]
        parts += html.grouping(i, html.fmt(attribute), html.table(rows), html.table(criteria))
    return parts


def fairness_section(r: dict) -> dict:
    f = r["fairness"]
    boot = f["bootstrap"]
    multiclass = f["task"] == "multiclass"
    rule = (
        "the class of largest probability (or of least expected cost)"
        if multiclass
        else f"decision threshold {html.fmt(f['decision_threshold'])}"
    )
    resampling = f", resampling whole {boot['cluster']} clusters" if boot["cluster"] else ", rows"
    parts = [
        html.muted(
            f"Test set, the deployed decisions ({rule}). Intervals: "
            f"{html.fmt(boot['confidence_level'])} percentile bootstrap, {boot['n_boot']} replicates "
            f"(seed {boot['seed']}{resampling}). "
            f"Groups below {f['min_group_size']} rows are flagged and left out of the criteria. Differences are "
            "max - min over groups "
            + (
                "(0 = parity), per class one against the rest, and their mean over classes (macro); demographic parity "
                "= equal selection rate P(decision = k | group), equal opportunity = equal recall P(decision = k | y "
                "= k, group)."
                if multiclass
                else "(0 = parity), ratios min / max (1 = parity); equal opportunity = equal TPR t/p (erratum E4)."
            )
        )
    ]
    if multiclass:
        parts += multiclass_fairness(f)
    for i, (attribute, result) in enumerate([] if multiclass else f["attributes"].items()):
        rows = [
            {
                "group": g,
                "n": m["n"],
                **{k: html.interval(m[k], m["intervals"].get(k)) for k in GROUP_COLUMNS if k in m},
                "flag": "below min size" if m["small"] else "",
            }
            for g, m in result["groups"].items()
        ]
        criteria = [
            {
                "criterion": k,
                "rates": ", ".join(v["metrics"]),
                "difference": html.interval(v["difference"], v["difference_interval"]),
                "ratio": html.interval(v["ratio"], v["ratio_interval"]),
                "note": v["reason"]
                or (f"excludes {', '.join(map(str, v['excluded_groups']))}" if v["excluded_groups"] else ""),
            }
            for k, v in result["criteria"].items()
        ]
        parts += html.grouping(
            i,
            html.fmt(attribute),
            html.table(rows),
            html.table(criteria),
            html.note(f"Which criteria can hold together: {html.fmt(result['compatibility']['statement'])}"),
        )
    mitigation = f["mitigation"]
    if mitigation["criterion"] == "none":
        parts += [html.heading("Mitigation"), html.muted("fairness.mitigation.criterion is none.")]
    elif mitigation.get("applied") is False:
        parts += [html.heading("Mitigation: per-group thresholds"), html.note(html.fmt(mitigation["reason"]))]
    elif mitigation.get("attributes"):
        rows = []
        for attribute, m in mitigation["attributes"].items():
            if not m["applied"]:
                rows.append({"attribute": attribute, "thresholds": f"not applied: {m['reason']}"})
                continue
            o, t = m["fitted_oof"], m["test"]
            rows.append(
                {
                    "attribute": attribute,
                    "thresholds": ", ".join(
                        f"{g}: {'never positive' if v is None else f'{v:.4f}'}" for g, v in m["thresholds"].items()
                    ),
                    "gap before (out-of-fold)": o["gap_before"],
                    "gap after (out-of-fold)": o["gap_after"],
                    "gap before (test)": t["gap_before"],
                    "gap after (test)": t["gap_after"],
                    "accuracy before (test)": t["accuracy_before"],
                    "accuracy after (test)": t["accuracy_after"],
                    "accuracy cost (test)": t["accuracy_cost"],
                }
            )
        every = [
            {
                "attribute": attribute,
                "criterion": c,
                "test gap before": v["gap_before"],
                "test gap after": v["gap_after"],
            }
            for attribute, m in mitigation["attributes"].items()
            if m["applied"]
            for c, v in m["test_every_criterion"].items()
        ]
        parts += [
            html.heading(f"Mitigation: per-group thresholds for {html.fmt(mitigation['criterion'])}"),
            html.muted(
                f"Fitted on the {html.fmt(mitigation['fitted_on'])} (tolerance "
                f"{html.fmt(mitigation['tolerance'])}), "
                "judged on test; before = one threshold for everyone. The group must be known at decision time."
            ),
            html.table(rows),
            html.muted("Every criterion's test gap with the same thresholds:"),
            html.table(every),
        ]
    if f["reweighing"]:
        parts += reweighing_part(f)
    return html.section("Fairness", *parts)


def reweighing_part(f: dict) -> list[dict]:
    """The weights, and when the refit ran, its test gaps next to those of the per-group thresholds."""
    rw, thresholds = f["reweighing"], f["mitigation"].get("attributes", {})
    weights = [
        {"group": g, **{f"weight y={label}": w for label, w in labels.items()}} for g, labels in rw["weights"].items()
    ]
    parts = [
        html.heading("Reweighing (pre-processing, Kamiran-Calders)"),
        html.muted(
            f"w(g, y) = P(g) P(y) / P(g, y) on the training rows, g = {html.fmt(rw['groups'])}: "
            f"under these "
            "weights the label is independent of every sensitive attribute and of their intersection."
        ),
        html.table(weights),
    ]
    if not rw["refit"]:
        return parts + [html.muted("fairness.reweighing is false: weights only, no refit.")]
    if not rw["applied"]:
        return parts + [html.note(f"Reweighed refit of {html.fmt(rw['model'])}: {html.fmt(rw['reason'])}")]
    t = rw["test"]
    rows = [
        {
            "grouping": name,
            "criterion": c + (" (macro)" if f["task"] == "multiclass" and c != "accuracy" else ""),
            "test gap before": v["gap_before"],
            "after reweighing": v["gap_after"],
            "after per-group thresholds": thresholds[name]["test_every_criterion"][c]["gap_after"]
            if thresholds.get(name, {}).get("applied")
            else "",
        }
        for name, gaps in t["attributes"].items()
        for c, v in gaps.items()
    ]
    return parts + [
        html.muted(
            f"{html.fmt(rw['model'])} with {html.fmt(rw['params'])} refitted on all training rows "
            f"with these "
            f"sample weights, scored through {html.fmt(rw['scored_through'])}; before = the deployed model. Test "
            f"accuracy {html.fmt(t['accuracy_before'])} "
            f"before, {html.fmt(t['accuracy_after'])} after reweighing (cost {html.fmt(t['accuracy_cost'])})."
        ),
        html.table(rows),
    ]


def duplicates_line(cleaning: dict) -> str:
    d = cleaning["duplicate_rows"]
    return f"{d['rows']} ({d['action']}; clean.drop_duplicate_rows: {d['setting']})"


def changes_table(params: dict, r: dict) -> dict:
    records = html.data_changes(params, r)
    if not records:
        return html.muted("None: every row, column and value of the file reached the model as it was.")
    return html.table(
        [
            {
                "stage": c["stage"],
                "change": c["change"],
                "rows": c["rows"] or "",
                "values": c["values"] or "",
                "columns": ", ".join(c["columns"]),
                "target before": describe(c["target_before"]) if "target_before" in c else "",
                "target after": describe(c["target_after"]) if "target_after" in c else "",
            }
            for c in records
        ]
    )


def build_html(params: dict, r: dict, figs: dict[str, bytes]) -> str:
    """The page: the sections of the task's results, rendered by the template with the figures inlined."""
    test = r["test"]
    candidates = [
        {
            "params": c["params"],
            "rank": c["rank"],
            "mean validation": c["mean_valid_score"],
            "std validation": c["std_valid_score"],
            "mean train": c["mean_train_score"],
        }
        for c in r["search"]["candidates"]
    ]
    sections = [
        html.section("Model card", html.model_card(params, r, html.promotion_summary(params, r))),
        trust_section(r, figs),
        html.section(
            "Data: validation, cleaning, split",
            html.key_values(
                {
                    "rows in the file": r["validation"]["rows_in"],
                    "rows quarantined by validate": r["validation"]["rows_quarantined"],
                    "rows removed by clean": r["cleaning"]["rows_in"] - r["cleaning"]["rows_out"],
                    "rows the model saw (train + test)": r["split"]["rows"]["train"] + r["split"]["rows"]["test"],
                    "rows repeating an earlier row": duplicates_line(r["cleaning"]),
                    "missing values after cleaning": r["cleaning"]["missing_values"],
                    "split": f"{r['split']['strategy']}, {r['split']['n_splits']} folds, test size "
                    f"{r['split']['test_size']}",
                    "rows train / test": f"{r['split']['rows']['train']} / {r['split']['rows']['test']}",
                }
            ),
            html.heading("Data changes: every row, column and value the pipeline changed"),
            changes_table(params, r),
            html.heading("Fold balance (training rows)"),
            html.table(
                r["split"]["folds"]["folds"], ["fold", "n_rows", "n_groups", "class_counts", "max_abs_deviation"]
            ),
            *(
                [html.muted("Regression: class_counts count the rows per quantile bin of the target.")]
                if test["task"] == "regression"
                else []
            ),
        ),
        html.section("Model selection", html.table(candidates), html.figures("validation_curve.png")),
        *(
            [regression_test_section(test), regression_fairness_section(r)]
            if test["task"] == "regression"
            else [
                test_section(test),
                calibration_section(r),
                decisions_section(r),
                fairness_section(r),
            ]
        ),
        html.section(
            "Explainability: permutation importance (raw features, test set; Student-t interval over repeats)",
            html.table(
                [
                    {k: f[k] for k in ("feature", "mean", "std", "ci_low", "ci_high")}
                    for f in r["importance"]["features"]
                ]
            ),
            html.figures("importance.png"),
        ),
        explain_section(r, figs),
    ]
    return html.document("Pipeline report", sections, figs)
