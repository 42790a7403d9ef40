"""Stage 10, report: reports/report.html, one self-contained page with every stage's results, the figures
(also written to reports/figures/ for MLflow) and a model card."""
from __future__ import annotations

import tempfile
from pathlib import Path

from pipeline import figures, paths
from pipeline import report as html
from pipeline.config import load_params
from pipeline.errors import run_stage
from pipeline.io import read_json, replace_directory, write_text

INPUTS = {
    "validation": (paths.VALIDATION_REPORT, "validate"),
    "cleaning": (paths.CLEANING_REPORT, "clean"),
    "split": (paths.SPLIT_REPORT, "split"),
    "features": (paths.FEATURES_REPORT, "features"),
    "search": (paths.SEARCH_REPORT, "train"),
    "train": (paths.TRAIN_METRICS, "train"),
    "validation_curve": (paths.VALIDATION_CURVE, "train"),
    "calibration": (paths.CALIBRATION_METRICS, "calibrate"),
    "reliability_oof": (paths.RELIABILITY_OOF, "calibrate"),
    "test": (paths.TEST_METRICS, "evaluate"),
    "roc": (paths.ROC_CURVE, "evaluate"),
    "pr": (paths.PR_CURVE, "evaluate"),
    "reliability_test": (paths.RELIABILITY_TEST, "evaluate"),
    "fairness": (paths.FAIRNESS_METRICS, "fairness"),
    "importance": (paths.IMPORTANCE, "explain"),
    "attributions": (paths.ATTRIBUTIONS, "explain"),
    "partial_dependence": (paths.PARTIAL_DEPENDENCE, "explain"),
}


def make_figures(r: dict) -> dict[str, bytes]:
    test = r["test"]
    prevalence = (test["confusion"]["tp"] + test["confusion"]["fn"]) / test["n"]
    figs = {
        "validation_curve.png": figures.validation_curve(r["validation_curve"], r["train"]["scoring"]),
        "roc.png": figures.roc(r["roc"], test["roc_auc"]),
        "precision_recall.png": figures.precision_recall(r["pr"], test["average_precision"], prevalence),
        "reliability_oof.png": figures.reliability(r["reliability_oof"], "Reliability, out-of-fold (cross-fitted)"),
        "reliability_test.png": figures.reliability(r["reliability_test"], "Reliability, test"),
        "importance.png": figures.importance(r["importance"]["features"], r["importance"]["scoring"]),
    }
    for i, (attribute, result) in enumerate(r["fairness"]["attributes"].items()):
        figs[f"fairness_{i}.png"] = figures.group_rates(attribute, result["groups"])
    if "shapley" in r["attributions"]:
        figs["shapley.png"] = figures.shapley_summary(r["attributions"]["shapley"], r["attributions"]["columns"])
    for i, curve in enumerate(r["partial_dependence"]["one_way"]):
        figs[f"pdp_{i}.png"] = figures.partial_dependence(curve)
    if r["partial_dependence"]["two_way"]:
        figs["pdp_2d.png"] = figures.partial_dependence_2d(r["partial_dependence"]["two_way"])
    return figs


def build_html(params: dict, r: dict, figs: dict[str, bytes]) -> str:
    test, cal = r["test"], r["calibration"]
    img = {name: html.image(png, name) for name, png in figs.items()}
    candidates = [{"params": c["params"], "rank": c["rank"], "mean validation": c["mean_valid_score"],
                   "std validation": c["std_valid_score"], "mean train": c["mean_train_score"]} for c in r["search"]["candidates"]]
    fairness_parts = []
    for i, (attribute, result) in enumerate(r["fairness"]["attributes"].items()):
        rows = [{"group": g, **m, "flag": "below min size" if g in result["small_groups"] else ""} for g, m in result["groups"].items()]
        gaps = [{"metric": k, "difference (max-min)": v["difference"], "ratio (min/max)": v["ratio"],
                 "max group": v["max_group"], "min group": v["min_group"]} for k, v in result["gaps"].items()]
        fairness_parts += [f"<h3>{html.fmt(attribute)}</h3>", html.table(rows), html.table(gaps), img[f"fairness_{i}.png"]]
    gap = test["cv_vs_test"]
    sections = [
        html.section("Model card", html.model_card(params, r)),
        html.section(
            "Data: validation, cleaning, split",
            html.key_values({"rows in": r["validation"]["rows_in"], "rows kept": r["validation"]["rows_kept"],
                             "rows quarantined": r["validation"]["rows_quarantined"],
                             "fractional 0/1 values": r["validation"]["fractional_binary"],
                             "duplicate columns removed": r["cleaning"].get("duplicate_columns_removed", {}),
                             "missing values after cleaning": r["cleaning"]["missing_values"],
                             "split": f"{r['split']['strategy']}, {r['split']['n_splits']} folds, test size {r['split']['test_size']}",
                             "rows train / test": f"{r['split']['rows']['train']} / {r['split']['rows']['test']}"}),
            "<h3>Fold balance (training rows)</h3>",
            html.table(r["split"]["folds"]["folds"], ["fold", "n_rows", "n_groups", "class_counts", "max_abs_deviation"]),
        ),
        html.section("Model selection", html.table(candidates), f"<div class='figs'>{img['validation_curve.png']}</div>"),
        html.section(
            "Test evaluation (used once)",
            html.key_values({k: test[k] for k in ("n", "threshold", "roc_auc", "average_precision", "accuracy", "precision",
                                                   "recall", "specificity", "f1", "log_loss", "brier")}),
            "<h3>Confusion matrix (rows: actual, columns: predicted)</h3>",
            html.table([{"": "actual 1", "predicted 1": test["confusion"]["tp"], "predicted 0": test["confusion"]["fn"]},
                        {"": "actual 0", "predicted 1": test["confusion"]["fp"], "predicted 0": test["confusion"]["tn"]}]),
            "<h3>Full metric table (corrected formulas; undefined = zero denominator)</h3>", html.key_values(test["table"]),
            f"<p class='note'>Validation vs test ({html.fmt(gap['scoring'])}): CV {html.fmt(gap['cv_mean'])} ± "
            f"{html.fmt(gap['cv_std'])}, test {html.fmt(gap['test'])}, gap {html.fmt(gap['gap'])}: {html.fmt(gap['diagnosis'])}</p>",
            f"<div class='figs'>{img['roc.png']}{img['precision_recall.png']}</div>",
        ),
        html.section(
            "Calibration",
            html.table([{"data": "out-of-fold, before", **cal["oof_before"]}, {"data": "out-of-fold, after (cross-fitted)", **cal["oof_after_crossfitted"]},
                        {"data": "test, before", **test["calibration"]["before"]}, {"data": "test, after", **test["calibration"]["after"]}]),
            f"<p class='muted'>Method {html.fmt(cal['method'])}; ECE/MCE with {cal['binning']['n_bins']} {html.fmt(cal['binning']['strategy'])} bins; "
            "points below the diagonal mean the model over-predicts the positive class.</p>",
            f"<div class='figs'>{img['reliability_oof.png']}{img['reliability_test.png']}</div>",
        ),
        html.section("Fairness (test set)", f"<p class='muted'>Decision threshold {r['fairness']['threshold']}; groups below "
                     f"{r['fairness']['min_group_size']} rows are flagged.</p>", *fairness_parts),
        html.section("Explainability: permutation importance (raw features, test set)",
                     html.table([{k: f[k] for k in ("feature", "mean", "std", "ci_low", "ci_high")} for f in r["importance"]["features"]]),
                     f"<div class='figs'>{img['importance.png']}</div>"),
        explain_section(r, img),
    ]
    return html.document("Pipeline report", sections)


def explain_section(r: dict, img: dict) -> str:
    a = r["attributions"]
    parts = []
    if "shapley" in a:
        s = a["shapley"]
        parts += [f"<p class='muted'>{len(a['rows'])} test rows; method {html.fmt(s['method'])}, values add up to the "
                  f"{html.fmt(s['output'])} (expected value {html.fmt(s['expected_value'])}); largest additivity error "
                  f"{html.fmt(s['additivity_error_max'])} ({html.fmt(s['additivity_error_max_relative'])} relative).</p>",
                  html.table([{k: f[k] for k in ("feature", "mean_abs", "mean")} for f in s["features"][:15]]),
                  f"<div class='figs'>{img['shapley.png']}</div>"]
    if "relevance" in a:
        rel = a["relevance"]
        parts += [f"<h3>Relevance ({html.fmt(rel['method'])}, {html.fmt(rel['output'])})</h3>",
                  f"<p class='muted'>median conservation error {html.fmt(rel['conservation_error_median'])}</p>",
                  html.table([{k: f[k] for k in ("feature", "mean_abs", "mean")} for f in rel["features"][:15]])]
    pdp = [img[name] for name in sorted(img) if name.startswith("pdp_")]
    if pdp:
        parts += ["<h3>Partial dependence and ICE (calibrated probability)</h3>", f"<div class='figs'>{''.join(pdp)}</div>"]
    return html.section("Explainability: Shapley values, relevance, partial dependence", *parts)


def main() -> None:
    params = load_params()
    r = {name: read_json(path, stage) for name, (path, stage) in INPUTS.items()}
    figs = make_figures(r)
    paths.FIGURES_DIR.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=paths.FIGURES_DIR.parent) as staging:
        fresh = Path(staging) / paths.FIGURES_DIR.name
        fresh.mkdir()
        for name, png in figs.items():
            (fresh / name).write_bytes(png)
        replace_directory(fresh, paths.FIGURES_DIR)
    write_text(build_html(params, r, figs), paths.REPORT_HTML)
    print(f"report: {paths.REPORT_HTML} with {len(figs)} figures")


if __name__ == "__main__":
    run_stage(main)
