"""What the evaluate stage prints and draws beside test.json, for the target's kind: the one-line summary of the test
figures and the contents of every plot file (a regression target's classification plots empty, a classification
target's residuals empty: one set of outputs for every task, docs/architecture.md section 3)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ..core import paths
from ..core.json_types import JSON
from ..core.task import Classification, Regression, Target

if TYPE_CHECKING:
    from mllib.deploy.predictor import DeployedPredictor
    from mllib.deploy.regressor import DeployedRegressor

HEADLINE_LABELS = {"binary": "ROC AUC", "multiclass": "macro one-vs-rest ROC AUC", "regression": "R^2"}  # by task
PlotFiles = dict[Path, list[JSON] | pd.DataFrame]  # a .json file's rows, or a .csv file's table


def test_summary(target: Target, predictor: DeployedPredictor | DeployedRegressor, metrics: JSON) -> str:
    """The stage's line on the test figures: the headline, the deployed rule's or intervals' figures."""
    return SUMMARIES[target.task](target, predictor, metrics)


def regression_summary(target: Regression, predictor: DeployedRegressor, metrics: JSON) -> str:
    intervals, scale = metrics["intervals"], metrics["target_transform"]
    deployed = intervals[predictor.interval_method]
    return (
        f"evaluate: test RMSE {metrics['rmse']:.4g}, MAE {metrics['mae']:.4g}, R^2 {metrics['r2']:.4f}; "
        f"{predictor.interval_method} intervals ({intervals['computed_on']}): coverage {deployed['coverage']:.3f} "
        f"(target {predictor.coverage_:g}), mean width {deployed['mean_width']:.4g}; by fifth of the predictions: "
        + ", ".join(f"{b['coverage']:.3f} ({b['n']} rows)" for b in intervals["by_fifth"])
        + (f"; {scale['clipped']} predictions raised to {scale['floor']:g}" if scale["floor"] is not None else "")
    )


def classification_summary(target: Classification, predictor: DeployedPredictor, metrics: JSON) -> str:
    headline = f"{HEADLINE_LABELS[target.task]} {metrics[target.headline_metric]:.4f}"
    reject, conformal = metrics["selective"]["reject_option"], metrics["conformal"]
    return (
        f"evaluate: test {headline}, accuracy {metrics['accuracy']:.4f} ({predictor.rule_} decisions); reject option: "
        f"coverage {reject['coverage']:.3f}, selective risk {reject['selective_risk']:.4f}; conformal sets: coverage "
        f"{conformal['coverage']:.3f} (target {conformal['set_coverage']:g}), mean size "
        f"{conformal['mean_set_size']:.2f}"
    )


def plot_files(target: Target, plots: JSON) -> PlotFiles:
    """Every plot file the stage writes, with what it holds for the target's kind."""
    return PLOT_FILES[target.task](plots)


def regression_plots(plots: JSON) -> PlotFiles:
    empty: list[JSON] = []  # the classification plots: nothing to draw for a regression target
    return {
        paths.RESIDUALS: plots["residuals"],
        **dict.fromkeys((paths.ROC_CURVE, paths.PR_CURVE, paths.RISK_COVERAGE, paths.RELIABILITY_TEST), empty),
        paths.CONFUSION: pd.DataFrame(columns=["actual", "predicted"]),
    }


def classification_plots(plots: JSON) -> PlotFiles:
    return {
        paths.ROC_CURVE: plots["roc"],
        paths.PR_CURVE: plots["pr"],
        paths.CONFUSION: pd.DataFrame(plots["confusion"]),
        paths.RISK_COVERAGE: plots["risk_coverage"],
        paths.RESIDUALS: [],  # regression only
        paths.RELIABILITY_TEST: plots["reliability"],
    }


# by task
SUMMARIES: dict[str, Callable[..., str]] = {
    "binary": classification_summary,
    "multiclass": classification_summary,
    "regression": regression_summary,
}
PLOT_FILES: dict[str, Callable[[JSON], PlotFiles]] = {
    "binary": classification_plots,
    "multiclass": classification_plots,
    "regression": regression_plots,
}
