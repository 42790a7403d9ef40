"""What the monitor checks of a new batch beyond drift (pipeline/steps/drift.py), for the target's kind:

- the shift in what the model says: the batch's decided classes against the test rows' (chi-squared, by Monte Carlo
  where its law does not hold), or its predicted values against the test rows' (Kolmogorov-Smirnov), one row per
  data.group id on each side, tested with the domain classifier as a consequence of the columns' drift
  (pipeline/steps/drift.py);
- with labels, the promises of the model card on the batch, each failing only beyond the batch's noise: the headline
  (the upper end of the batch's interval below the lower end of the test's), calibration (the batch's ECE above the
  upper end of the test's ECE interval, what the card states, and above the 95th percentile of the ECE that calibrated
  probabilities give on as many rows: labels drawn from the probabilities themselves, Broecker & Smith's consistency
  resampling; binned ECE grows as the rows shrink, so a fixed bound fails every small batch), conformal
  coverage (the upper end of the batch's
  Clopper-Pearson interval below the promised coverage less tracking.promotion.max_coverage_shortfall, sets and
  regression intervals alike);
- without labels, the headline estimated from the calibrated probabilities (the idea of NannyML's CBPE: if the
  probabilities are calibrated on the batch, its labels are draws from them): the ROC AUC of the probabilities
  against labels drawn from them, 400 seeded draws, their mean and central interval. An estimate: it holds only as
  far as the calibration does under the drift, which the checks above cannot see without labels, and its interval
  covers the label noise only (which labels the probabilities give these rows), not the calibration's error: it can
  miss the batch's true AUC (0.7346 [0.7173, 0.7515] against 0.7542 on the default data's test rows), and says so."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

from mllib.calibration import expected_calibration_error
from mllib.drift import chi_squared_test, ks_test
from mllib.metrics import roc_auc_ovr, roc_auc_score

from ..core.json_types import JSON
from ..core.task import Classification, Regression, Target

if TYPE_CHECKING:
    import pandas as pd

    from mllib.deploy.predictor import DeployedPredictor
    from mllib.deploy.regressor import DeployedRegressor

    Predictor = DeployedPredictor | DeployedRegressor

LABEL_DRAWS = 400
INTERVAL_COVERS = (
    "the label noise only, as if the probabilities were exact on this batch; not their calibration error, which "
    "labels alone can measure"
)


def prediction_shift(
    target: Target, predictor: Predictor, test_predictions: pd.DataFrame, served: pd.DataFrame, seed: int
) -> JSON:
    """The test of the batch's predictions (served: the served answer) against the test rows' (evaluate's
    test_predictions): what the model says, not what it sees."""
    return PREDICTION_SHIFT[target.task](target, predictor, test_predictions, served, seed)


def _decisions(
    target: Classification,
    predictor: DeployedPredictor,
    test_predictions: pd.DataFrame,
    served: pd.DataFrame,
    seed: int,
) -> JSON:
    said = np.asarray(predictor.labels(test_predictions["prediction"].to_numpy()), dtype=str)
    test = chi_squared_test(said, served["prediction"].dropna().astype(str).to_numpy(), random_state=[seed, 48])
    return {"test": "chi_squared", "of": "decided classes", **test}


def _values(
    target: Regression, predictor: DeployedRegressor, test_predictions: pd.DataFrame, served: pd.DataFrame, seed: int
) -> JSON:
    test = ks_test(test_predictions["prediction"], served["prediction"].dropna().astype(float))
    return {"test": "ks", "of": "predicted values", **test}


# by task
PREDICTION_SHIFT: dict[str, Callable[..., JSON]] = {
    "binary": _decisions,
    "multiclass": _decisions,
    "regression": _values,
}


def clopper_pearson(successes: int, n: int, level: float = 0.95) -> list[float]:
    """The exact binomial interval of a share."""
    alpha = 1 - level
    low = 0.0 if successes == 0 else float(stats.beta.ppf(alpha / 2, successes, n - successes + 1))
    high = 1.0 if successes == n else float(stats.beta.ppf(1 - alpha / 2, successes + 1, n - successes))
    return [low, high]


def _check(name: str, value: float | None, bound: float, fails: bool, note: str) -> JSON:
    return {"check": name, "value": value, "bound": bound, "passed": not fails, "note": note}


def drawn_labels(P: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Labels drawn from each row's class probabilities."""
    labels: np.ndarray = (rng.random(len(P))[:, None] > np.cumsum(P, axis=1)).sum(axis=1).clip(max=P.shape[1] - 1)
    return labels


def promise_checks(
    target: Target, batch: JSON, test: JSON, params: JSON, P: np.ndarray | None, seed: int
) -> list[JSON]:
    """The model card's promises checked on a labelled batch (batch, test: the measures of each; P: the batch's
    calibrated probabilities, classification)."""
    return PROMISE_CHECKS[target.task](target, batch, test, params, P, seed)


def _headline_check(target: Target, batch: JSON, test: JSON) -> JSON:
    name = target.headline_metric
    low_promised = test["bootstrap"]["figures"][name]["interval"][0]
    high_here = batch["bootstrap"]["figures"][name]["interval"][1]
    return _check(
        f"upper end of the batch's {name} interval >= the lower end of the test's",
        high_here,
        low_promised,
        high_here is not None and high_here < low_promised,
        f"batch {name} {batch[name]:.4f} on {batch['n']} rows; test {test[name]:.4f}",
    )


def _classification_promises(
    target: Classification, batch: JSON, test: JSON, params: JSON, P: np.ndarray, seed: int
) -> list[JSON]:
    promotion, binning = params["tracking"]["promotion"], params["calibration"]
    checks = [_headline_check(target, batch, test)]
    rng = np.random.default_rng([seed, 45])
    null = [
        expected_calibration_error(*target.calibration_view(drawn_labels(P, rng), P), binning["n_bins"],
                                   binning["binning"])
        for _ in range(LABEL_DRAWS)
    ]  # fmt: skip
    stated = test["bootstrap"]["figures"]["ece"]["interval"][1]
    bound = max(stated, float(np.quantile(null, 0.95)))
    ece = batch["calibration"]["after"]["ece"]
    checks.append(
        _check(
            "the batch's ECE <= max(upper end of the test's ECE interval, 95th percentile of a calibrated model's "
            "ECE on as many rows)",
            ece,
            bound,
            ece > bound,
            f"{batch['n']} rows; test ECE up to {stated:.4f}; calibrated probabilities give {np.median(null):.4f} "
            "at the median",
        )
    )
    conformal = batch["conformal"]
    checks.append(_coverage_check(conformal["coverage"], conformal["n"], conformal["set_coverage"], promotion))
    return checks


def _regression_promises(
    target: Regression, batch: JSON, test: JSON, params: JSON, P: np.ndarray | None, seed: int
) -> list[JSON]:
    promotion = params["tracking"]["promotion"]
    intervals = batch["intervals"]
    deployed = intervals[intervals["deployed"]]
    return [
        _headline_check(target, batch, test),
        _coverage_check(deployed["coverage"], batch["n"], intervals["coverage_target"], promotion),
    ]


# by task
PROMISE_CHECKS: dict[str, Callable[..., list[JSON]]] = {
    "binary": _classification_promises,
    "multiclass": _classification_promises,
    "regression": _regression_promises,
}


def _coverage_check(coverage: float, n: int, promised: float, promotion: JSON) -> JSON:
    shortfall = promotion["max_coverage_shortfall"] or 0.0
    high = clopper_pearson(int(round(coverage * n)), n)[1]
    return _check(
        "upper end of the batch's coverage interval >= promised coverage - max_coverage_shortfall",
        high,
        promised - shortfall,
        high < promised - shortfall,
        f"coverage {coverage:.3f} of {n} rows (promised {promised:g})",
    )


def label_free_estimate(
    target: Target, predictor: Predictor, outputs: dict[str, np.ndarray], seed: int, level: float = 0.95
) -> JSON:
    """The headline estimated from the calibrated probabilities of the rows (outputs: their row_outputs), no labels."""
    return LABEL_FREE_ESTIMATE[target.task](target, predictor, outputs, seed, level)


def _no_estimate(
    target: Regression, predictor: DeployedRegressor, outputs: dict[str, np.ndarray], seed: int, level: float = 0.95
) -> JSON:
    return {"statement": "not evaluated: no label-free estimate for a regression target"}


def _expected_auc(
    target: Classification,
    predictor: DeployedPredictor,
    outputs: dict[str, np.ndarray],
    seed: int,
    level: float = 0.95,
) -> JSON:
    return expected_headline(target, predictor.proba_from_scores(outputs["scores"]), seed, level)


# by task
LABEL_FREE_ESTIMATE: dict[str, Callable[..., JSON]] = {
    "binary": _expected_auc,
    "multiclass": _expected_auc,
    "regression": _no_estimate,
}


def expected_headline(target: Target, P: np.ndarray, seed: int, level: float = 0.95) -> JSON:
    """The headline (ROC AUC; macro one-vs-rest with more classes) of probabilities P against labels drawn from P."""
    P = np.asarray(P, dtype=np.float64)
    rng = np.random.default_rng([seed, 44])
    draws: list[float] = []
    for _ in range(LABEL_DRAWS):
        y = drawn_labels(P, rng)
        if np.unique(y).size < P.shape[1]:
            continue  # a draw without every class has no AUC
        draws.append(roc_auc_score(y, P[:, 1]) if P.shape[1] == 2 else roc_auc_ovr(y, P))
    if not draws:
        return {"statement": "not evaluated: labels drawn from the probabilities never held every class"}
    low, high = np.quantile(draws, [(1 - level) / 2, (1 + level) / 2])
    name = target.headline_metric
    return {
        "metric": name,
        "estimate": float(np.mean(draws)),
        "interval": [float(low), float(high)],
        "confidence_level": level,
        "draws": len(draws),
        "interval_covers": INTERVAL_COVERS,
        "statement": (
            f"estimated {name} {np.mean(draws):.4f} ({low:.4f} to {high:.4f}: {INTERVAL_COVERS}) from the calibrated "
            f"probabilities of {P.shape[0]} rows, without labels: it holds as far as the calibration holds on this "
            "batch"
        ),
    }
