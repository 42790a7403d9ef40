"""The calibrate stage's helpers: the calibration map of params.yaml (one-vs-rest for more than two classes),
its cross-fitted probabilities (each fold's rows by a map fitted without them), and the deployed predictor's
assembly from the fitted features, model and map with the decision rule of params.yaml `decision`.

Every map, no map included, is judged before one is deployed: each is cross-fitted on the out-of-fold scores and
scored by log loss (a proper scoring rule: it rewards probabilities that mean what they say) with ECE and Brier
beside it, and by what it does to the ranking: the ranking metric (ROC AUC, macro one-vs-rest for K classes) within
each fold, where one fitted map scores every row as the deployed map will, against no map's, with DeLong's standard
error. calibration.method auto deploys a map only when it earns its place: its log-loss gain over no map exceeds
calibration.margin standard errors of the paired per-row differences, its ranking does not fall by more than
calibration.margin standard errors, and its cross-fitted ECE is no higher than no map's on the same rows (a map whose
gain in log loss comes from a few confident rows while it moves the many elsewhere away from their frequencies is not
what a user asking for calibrated probabilities wants); of the maps that qualify, the least log loss (ties: the
simpler, listed first), else none. A gain within the noise of choosing among the maps on the same rows, or one
bought with ranking or with calibration error, is not taken. The maps include strictly increasing ones (Platt,
temperature, beta), which can neither reorder nor tie two rows: when the steps or bins of isotonic regression or
histogram binning cost the ranking their gain pays for, such a map can still take the gain (beta calibration bends
the two ends of the scores apart as a sigmoid cannot). A method named in params.yaml is deployed as asked, and flagged
when it is worse than no map.

With time-ordered folds (data.time), each fold's map is fitted on the earlier folds' out-of-fold rows only: a map
fitted with later periods would judge each period with knowledge of its future, which the deployed map never has.
The first validated period's rows then only fit maps; the comparison, the "after" figures, the conformal sets and
the fairness stage's thresholds use the later periods' rows."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from mllib import registry
from mllib.base import clone, record_convergence
from mllib.calibration import OneVsRestCalibration
from mllib.comparison import delong_test
from mllib.deploy import DeployedPredictor
from mllib.model_selection import cross_fit

from ..core import build
from ..core.errors import PipelineError
from ..core.evaluation_records import ClassificationCalibration, ConformalFit, DeployedRule
from ..core.json_types import JSON
from ..core.summaries import binning_spec, calibration_report, group_calibration
from ..core.task import Classification, Target

if TYPE_CHECKING:
    from mllib.base import BaseEstimator, GroupLabels
    from mllib.conformal import SplitConformalClassifier


class Calibrator(Protocol):
    """A calibration map (mllib.calibration's, or OneVsRestCalibration of one): fitted on scores and labels, it
    gives (n, K) probabilities."""

    def fit(self, scores: np.ndarray, y: np.ndarray, /) -> Calibrator: ...

    def predict_proba(self, scores: np.ndarray, /) -> np.ndarray: ...

    def get_params(self, deep: bool = True) -> dict[str, Any]: ...


NATIVE_MULTICLASS = ("temperature", "none")  # take (n, K) scores; the others are wrapped one-vs-rest
# by classification task: how a map that is not NATIVE_MULTICLASS is applied (as it is, or one per class)
ONE_VS_REST: dict[str, Callable[[Calibrator], Calibrator]] = {
    "binary": lambda calibrator: calibrator,
    "multiclass": OneVsRestCalibration,
}
# compared in this order (ties: the first); platt, temperature and beta are strictly increasing in the score
MAPS = ("none", "platt", "temperature", "beta", "isotonic", "histogram_binning")
# a map's fitted scalars, a list of them per class for a one-vs-rest map (fitted_parameters)
FittedParameters = JSON | list["FittedParameters"]


def calibrator_of(cfg: JSON, target: Classification, method: str | None = None) -> Calibrator:
    """The calibration map `method` (default calibration.method) with its settings from calibration.params (the
    registry defaults otherwise), one-vs-rest for K > 2 classes unless it takes K classes itself."""
    method = method or cfg["method"]
    settings = cfg["params"].get(method, {})
    build.check_hyperparameter_names(f"calibration.params.{method}", method, settings)
    calibrator: Calibrator = registry.CALIBRATORS[method](**settings)
    # a binary map calibrates each class against the rest; a map for K classes is used as it is
    return ONE_VS_REST[target.task](calibrator) if method not in NATIVE_MULTICLASS else calibrator


def cross_fitted(
    calibrator: Calibrator, score: np.ndarray, y: np.ndarray, fold: np.ndarray, forward: bool = False
) -> np.ndarray:
    """Each fold's (n, K) probabilities from a copy of `calibrator` fitted on the other folds' rows only. forward:
    the folds chain forward in time (data.time; fold k validates a later period than fold k - 1), so each fold's map
    is fitted on the earlier folds' rows only, as the deployed map only ever sees the past; the first fold's rows
    only fit maps (NaN here), as the first period is only fitted on in the splits."""
    folds = np.unique(fold)
    if forward:
        splits = ((np.flatnonzero(fold < k), np.flatnonzero(fold == k)) for k in folds[1:])  # one at a time
    else:
        splits = ((np.flatnonzero(fold != k), np.flatnonzero(fold == k)) for k in folds)
    fitted: np.ndarray = cross_fit(
        lambda k, fit, valid: clone(calibrator).fit(score[fit], y[fit]).predict_proba(score[valid]), splits, len(y)
    )
    return fitted


def scored_rows(fold: np.ndarray, forward: bool) -> np.ndarray:
    """The rows cross_fitted scores: every one, or with forward chaining all but the first fold's."""
    return fold != fold.min() if forward else np.ones(fold.size, dtype=bool)


def compare_maps(
    cfg: JSON,
    score: np.ndarray,
    y: np.ndarray,
    fold: np.ndarray,
    target: Classification,
    keep: str = "auto",
    forward: bool = False,
) -> tuple[list[JSON], dict[str, np.ndarray]]:
    """Every map of MAPS cross-fitted on the out-of-fold scores (forward: on the earlier folds' only) and judged on
    the rows it scores (scored_rows): (table rows {method, defined, log_loss, ece, ece_vs_none, brier,
    log_loss_vs_none with its standard error over the paired rows and the gain in standard errors, ranking_vs_none,
    qualifies and why (calibration.margin, the ECE), not_converged} or {method, defined: false, reason}, {method: its
    cross-fitted (m, K) probabilities of the scored rows} for no map, the map `keep` names and the qualifying one of
    least log loss so far: what choose_map can pick, three arrays at most whatever the number of maps)."""
    eps = np.finfo(np.float64).eps  # mllib.metrics.log_loss's clip, so the row losses average to its value
    table: list[JSON] = []
    probabilities: dict[str, np.ndarray] = {}
    base: np.ndarray | None = None
    base_ece = 0.0
    best: tuple[str, float] | None = None
    scored = scored_rows(fold, forward)
    judged, judged_fold = y[scored], fold[scored]
    for method in MAPS:  # "none" first: every other map's row losses are paired with its
        try:
            with record_convergence() as stopped:
                P = cross_fitted(calibrator_of(cfg, target, method), score, y, fold, forward)[scored]
        except (TypeError, ValueError) as exc:
            table.append({"method": method, "defined": False, "reason": str(exc)})
            continue
        quality = calibration_report(target, judged, P, cfg)
        row_loss = -np.log(np.clip(P[np.arange(len(judged)), judged], eps, 1.0 - eps))
        if method == "none":
            base, base_ece = row_loss, quality["ece"]
        if base is None:
            raise ValueError("no map could be fitted: the out-of-fold scores are not usable")
        diff = row_loss - base  # paired per-row differences of log loss against no map
        se = float(diff.std(ddof=1) / np.sqrt(diff.size)) if diff.size > 1 else None
        ranking = ranking_against_none(
            target, judged, P, None if method == "none" else probabilities["none"], judged_fold
        )
        row: JSON = {
            "method": method,
            "defined": True,
            "log_loss": quality["log_loss"],
            "ece": quality["ece"],
            "ece_vs_none": quality["ece"] - base_ece,
            "brier": quality["brier"],
            "log_loss_vs_none": float(diff.mean()),
            "standard_error_vs_none": se,
            "gain_in_standard_errors": float(-diff.mean() / se) if se else None,
            "ranking_vs_none": ranking,
            "not_converged": sorted(set(stopped)),
        }
        table.append(row | qualifies(row, cfg["margin"]))
        # the least log loss among the maps auto may deploy; strictly less: ties keep the first listed
        if table[-1]["qualifies"] and (best is None or quality["log_loss"] < best[1]):
            if best is not None and best[0] not in ("none", keep):
                del probabilities[best[0]]
            best = (method, quality["log_loss"])
        if method in ("none", keep) or (best is not None and method == best[0]):
            probabilities[method] = P
    return table, probabilities


def ranking_against_none(
    target: Classification, y: np.ndarray, P: np.ndarray, none: np.ndarray | None, fold: np.ndarray
) -> JSON:
    """The map's ranking metric minus no map's within each fold (where one fitted map scores every row, as the
    deployed map scores new rows), averaged over the folds, with DeLong's standard error of the paired difference
    (folds independent). A fold with one class has no ranking and is left out. none: no map's (None: this is no map,
    nothing to compare)."""
    if none is None:
        return {"metric": target.ranking_metric, "difference": 0.0, "standard_error": 0.0, "folds": 0}
    differences, variances = [], []
    for k in np.unique(fold):
        rows = fold == k
        if np.unique(y[rows]).size < 2:
            continue
        test = delong_test(y[rows], target.metric_probabilities(P[rows]), target.metric_probabilities(none[rows]))
        differences.append(test["difference"])
        variances.append(test["standard_error"] ** 2)
    if not differences:
        return {"metric": target.ranking_metric, "difference": None, "standard_error": None, "folds": 0}
    return {
        "metric": target.ranking_metric,
        "difference": float(np.mean(differences)),
        "standard_error": float(np.sqrt(np.sum(variances)) / len(variances)),
        "folds": len(differences),
    }


def qualifies(row: JSON, margin: float) -> JSON:
    """{qualifies, why}: whether calibration.method auto may deploy the map of this comparison row: its log-loss gain
    over no map beyond `margin` standard errors, its ranking not lower than no map's by more than `margin` standard
    errors, and its cross-fitted ECE not above no map's (no map always qualifies)."""
    if row["method"] == "none":
        return {"qualifies": True, "why": "no map: the model's own probabilities"}
    gain, se = -row["log_loss_vs_none"], row["standard_error_vs_none"] or 0.0
    ranking = row["ranking_vs_none"]
    ece = f"cross-fitted ECE {row['ece'] - row['ece_vs_none']:.4f} -> {row['ece']:.4f}"
    if not gain > 0:
        return {"qualifies": False, "why": f"no log-loss gain: {-gain:.4g} worse than no map"}
    if not gain > margin * se:
        return {"qualifies": False, "why": f"log-loss gain {gain:.4g} is within {margin:g} standard errors ({se:.2g})"}
    if ranking["difference"] is not None and ranking["difference"] < -margin * ranking["standard_error"]:
        return {
            "qualifies": False,
            "why": f"it lowers {ranking['metric']} by {-ranking['difference']:.4g}, beyond {margin:g} standard "
            f"errors ({ranking['standard_error']:.2g})",
        }
    if row["ece_vs_none"] > 0:
        return {"qualifies": False, "why": f"it raises the {ece} (log-loss gain {gain:.4g})"}
    return {"qualifies": True, "why": (f"log-loss gain {gain:.4g} = {gain / se:.1f} standard errors" if se else
            f"log-loss gain {gain:.4g}") + f", {ece}"}  # fmt: skip


def choose_map(method: str, table: list[JSON]) -> tuple[str, str | None]:
    """(the map to deploy, a warning or None): auto -> the least cross-fitted log loss of the maps that qualify (no
    map always does; ties: the first listed); a named method as asked, with a warning when its cross-fitted log loss
    is worse than no map's."""
    defined = [r for r in table if r["defined"]]
    best = min(defined, key=lambda r: r["log_loss"])  # min keeps the first of equal values
    if method == "auto":
        return min((r for r in defined if r["qualifies"]), key=lambda r: r["log_loss"])["method"], None
    named = next(r for r in table if r["method"] == method)
    if not named["defined"]:
        raise ValueError(named["reason"])
    none = next(r for r in table if r["method"] == "none")
    if named["log_loss"] > none["log_loss"]:
        return method, (
            f"calibration.method {method} makes the probabilities worse: cross-fitted log loss "
            f"{named['log_loss']:.4f} against {none['log_loss']:.4f} with no map (ECE {named['ece']:.4f} against "
            f"{none['ece']:.4f}); deployed as params.yaml asks, but {best['method']} has the least log loss "
            "(calibration.method: auto deploys it)"
        )
    return method, None


def why_deployed(method_setting: str, table: list[JSON], chosen: str, margin: float) -> str:
    """Why `chosen` is deployed: named in params.yaml; or (auto) the least log loss of the maps that qualify, with why
    each map of lower log loss was passed over; or, for no map, why each map stepped aside."""
    if method_setting != "auto":
        return "named in params.yaml"
    defined = [r for r in table if r["defined"]]
    deployed = next(r for r in defined if r["method"] == chosen)
    if chosen == "none":
        return (
            "calibration.method auto: no map earns its place ("
            + "; ".join(
                f"{r['method']}: {r['why'] if r['defined'] else 'undefined'}" for r in table if r["method"] != "none"
            )
            + f"; calibration.margin {margin:g})"
        )
    passed_over = [r for r in defined if r["log_loss"] < deployed["log_loss"]]
    return f"calibration.method auto: {deployed['why']}, the least log loss of the maps that qualify" + "".join(
        f"; {r['method']}'s lower log loss {r['log_loss']:.4f} is not taken: {r['why']}" for r in passed_over
    )


def fit_map(
    cfg: JSON, target: Classification, score: np.ndarray, y: np.ndarray, fold: np.ndarray, forward: bool = False
) -> tuple[Calibrator, JSON, np.ndarray, np.ndarray]:
    """The map to deploy (calibration.method, or auto: the least cross-fitted log loss of the maps of MAPS that
    qualify) fitted on every out-of-fold row: (calibrator, choice {method, comparison, warning, why_deployed,
    not_converged}, the cross-fitted probabilities of no map and of the chosen one, of the scored rows:
    scored_rows(fold, forward))."""
    method = cfg["method"]
    comparison, cross_fitted = compare_maps(cfg, score, y, fold, target, keep=method, forward=forward)
    try:
        method, warning = choose_map(method, comparison)
    except ValueError as exc:
        raise PipelineError(
            f"calibrate: calibration.method {method!r} with calibration.params.{method} = "
            f"{cfg['params'].get(method, {})} cannot be fitted on the out-of-fold scores: {exc}"
        ) from None
    calibrator = calibrator_of(cfg, target, method)
    with record_convergence() as stopped:
        calibrator.fit(score, y)
    choice: JSON = {
        "method": method,
        "comparison": comparison,
        "warning": warning,
        "why_deployed": why_deployed(cfg["method"], comparison, method, cfg["margin"]),
        "not_converged": sorted(set(stopped)),
    }
    return calibrator, choice, cross_fitted["none"], cross_fitted[method]


def calibration_summary(
    cfg: JSON, choice: JSON, metrics: ClassificationCalibration, conformal: SplitConformalClassifier,
    predictor: DeployedPredictor,
) -> str:  # fmt: skip
    """The calibrate stage's line on the deployed map, the conformal sets and the decision rule."""
    return (
        f"calibrate: {choice['method']}{' one-vs-rest' if metrics.one_vs_rest else ''}: out-of-fold ECE "
        f"{metrics.oof_before.ece:.4f} -> {metrics.oof_after_crossfitted.ece:.4f} (cross-fitted, "
        f"{cfg['n_bins']} {cfg['binning']} bins); conformal sets at {cfg['set_coverage']:g}: 1 - p <= "
        f"{conformal.threshold_:.4f}; decisions: {predictor.rule_}"
    )


def scored_note(scored: np.ndarray) -> str | None:
    """What time-ordered folds leave out of the cross-fitted figures (None: every row is scored)."""
    if scored.all():
        return None
    return (
        f"calibrate: time-ordered folds: each period's map is fitted on the earlier periods only; the first "
        f"validated period's {int((~scored).sum())} rows only fit maps, the later {int(scored.sum())} are scored"
    )


def choice_lines(cfg: JSON, choice: JSON) -> list[str]:
    """What the stage prints of fit_map's choice: each map's cross-fitted log loss, the deployed one and why, the
    warnings."""
    comparison = choice["comparison"]
    losses = ", ".join(
        f"{r['method']} {r['log_loss']:.4f}" if r["defined"] else f"{r['method']} undefined" for r in comparison
    )
    lines = [f"calibrate: cross-fitted log loss of each map: {losses}; deployed: {choice['method']}"]
    lines += [f"calibrate: why: {choice['why_deployed']}"]
    lines += [f"calibrate: warning: {choice['warning']}"] if choice["warning"] else []
    return lines + [
        f"calibrate: warning: the deployed map's fit stopped at its iteration cap: {message}"
        for message in choice["not_converged"]
    ]


def fitted_parameters(calibrator: Calibrator) -> FittedParameters:
    """The calibrator's fitted scalars (per class for a one-vs-rest calibrator)."""
    if isinstance(calibrator, OneVsRestCalibration):
        return [fitted_parameters(c) for c in calibrator.calibrators_]
    return {k: v for k, v in vars(calibrator).items() if k.endswith("_") and np.isscalar(v)}


def assemble(
    features: BaseEstimator,
    model: BaseEstimator,
    calibrator: Calibrator,
    conformal: SplitConformalClassifier,
    target: Target,
    decision: JSON,
) -> DeployedPredictor:
    """The deployed chain: the fitted features and model, the calibration map, the conformal sets, the decision
    rule of params.yaml `decision`."""
    predictor = DeployedPredictor(
        features=features,
        model=model,
        calibrator=calibrator,
        classes=target.classes,
        threshold=decision["threshold"],
        cost_matrix=decision["cost_matrix"],
        reject_threshold=decision["reject_threshold"],
        conformal=conformal,
    )
    try:
        return predictor.fit()
    except ValueError as exc:
        raise PipelineError(
            f"params.yaml: decision.cost_matrix does not fit the {target.n_classes} classes "
            f"{target.classes} of {target.column!r} ({exc})"
        ) from None


def calibration_metrics(
    cfg: JSON,
    choice: JSON,
    target: Classification,
    calibrator: Calibrator,
    conformal: SplitConformalClassifier,
    predictor: DeployedPredictor,
    y: np.ndarray,
    before: np.ndarray,
    after: np.ndarray,
    groupings: dict[str, GroupLabels],
    params: JSON,
    only_fitted: int | None = None,
) -> ClassificationCalibration:
    """reports/metrics/calibration.json: the map and its settings, how it was chosen (choice: method, comparison,
    warning, why_deployed, not_converged), ECE / MCE / Brier / log loss of the out-of-fold probabilities before and
    after (cross-fitted), per sensitive group, the conformal threshold, the decision rule. only_fitted: with
    time-ordered folds, the count of the first period's rows, which no map scored (y, before and after: the later
    rows)."""
    one_vs_rest = isinstance(calibrator, OneVsRestCalibration)
    time_ordered = {} if only_fitted is None else {"rows_only_fitted": int(only_fitted)}
    return ClassificationCalibration.of(
        time_ordered
        | {
            "method": choice["method"],
            "method_setting": cfg["method"],
            "margin": cfg["margin"],
            "comparison": choice["comparison"],
            "warning": choice["warning"],
            "why_deployed": choice["why_deployed"],
            "not_converged": choice["not_converged"],
            "task": target.task,
            "one_vs_rest": one_vs_rest,
            "settings": (
                calibrator.calibrator.get_params()
                if isinstance(calibrator, OneVsRestCalibration)
                else calibrator.get_params(deep=False)
            ),
            "binning": binning_spec(cfg),
            "n_rows": int(len(y)),
            "oof_before": calibration_report(target, y, before, cfg),
            "oof_after_crossfitted": calibration_report(target, y, after, cfg),
            "groups": group_calibration(target, y, before, after, groupings, cfg),
            "parameters": fitted_parameters(calibrator),
            "conformal": ConformalFit(
                coverage=cfg["set_coverage"],
                threshold=conformal.threshold_,
                fitted_on="cross-fitted out-of-fold probabilities"
                + ("" if only_fitted is None else " of the periods after the first (maps fitted on earlier ones)"),
                n=conformal.n_calibration_,
            ),
            "decision": DeployedRule(
                rule=predictor.rule_,
                threshold=predictor.decision_threshold_,
                cost_matrix=params["decision"]["cost_matrix"],
                reject_threshold=params["decision"]["reject_threshold"],
            ),
        }
    )
