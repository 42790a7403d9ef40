"""reports/metrics/test.json and calibration.json as typed records, one per task kind (the kind names its own:
`Target.test_record`, `Target.calibration_record`). test.json: the fields every kind writes (the test rows, the
bootstrap intervals, the validation-vs-test gap, the drift of the test rows, the chosen model's gain over the others
compared), the classification kinds' decisions, calibration, conformal sets and selective risk, and each kind's metrics.
The evaluate stage builds the record from what it measured (`Record.of` refuses a key that is not a field, or a field
with no key, naming the path), the report and tracking read it by attribute. Per-class tables, per-group calibration and
metric-keyed maps stay mappings: their keys are data."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from . import paths
from .json_types import JSON
from .records import ABSENT, Part, Record


@dataclass(frozen=True)
class Figure(Part):
    """One test figure with its percentile bootstrap interval and the draws on which it was defined; the ranking
    figure also keeps the bootstrap's own interval and the score interval it was widened with."""

    when_set: ClassVar[tuple[str, ...]] = ("bootstrap_interval", "score_interval")

    value: Any  # None (or NaN written as null) where the test rows leave it undefined
    interval: list[float]
    defined_draws: int
    bootstrap_interval: list[float] | None = None
    score_interval: list[float] | None = None


@dataclass(frozen=True)
class EvaluationBootstrap(Part):
    """How the test intervals were drawn (rows or whole data.group clusters) and every figure's interval."""

    method: str
    confidence_level: float
    n_boot: int
    unit: str
    n: int
    n_units: int
    figures: dict[str, Figure]


@dataclass(frozen=True)
class CvVsTest(Part):
    """The search's scorer on test beside its cross-validated mean and spread."""

    scoring: str
    cv_mean: float
    cv_std: float
    test: float
    gap: float
    diagnosis: str


@dataclass(frozen=True, kw_only=True)
class ShiftTest(Part):
    """One two-sample test of the drift check (pipeline/steps/drift.py): a column's (ks: with the Wasserstein
    distance; chi_squared: with its dof; both with the PSI and each side's missing share), the shift in the served
    model's outputs (`of`), or a column not evaluated (`statement`); the adjusted p-value and the flag once tested."""

    test: str
    p_value: float | None
    statistic: float = ABSENT
    dof: int = ABSENT
    wasserstein: float = ABSENT
    psi: float = ABSENT
    missing_share: list[float] = ABSENT  # [training, batch]
    of: str = ABSENT
    statement: str = ABSENT
    method: str = ABSENT  # chi_squared: asymptotic or monte_carlo (expected counts below 5)
    resamples: int = ABSENT
    values_p_value: float | None = ABSENT  # with missing values on a side: the values' test and the missing share's,
    missing_p_value: float = ABSENT  # p_value the smaller doubled
    adjusted_p_value: float = ABSENT
    flagged: bool = ABSENT


@dataclass(frozen=True, kw_only=True)
class DomainCheck(Part):
    """The domain classifier: its held-out AUC with the interval and p-value (then adjusted and flagged), or why it
    is off or not evaluated (`statement`)."""

    auc: float = ABSENT
    interval: list[float] = ABSENT
    confidence_level: float = ABSENT
    p_value: float = ABSENT
    n_reference: int = ABSENT
    n_current: int = ABSENT
    adjusted_p_value: float = ABSENT
    flagged: bool = ABSENT
    statement: str = ABSENT
    not_evaluated: bool = ABSENT


@dataclass(frozen=True)
class Drift(Part):
    """The test rows against the training rows (pipeline/steps/drift.py): per column, the domain classifier, the
    columns flagged at the false discovery rate, and the sentence."""

    what: str
    rows: JSON
    one_row_per: str | None
    fdr: float
    columns: dict[str, ShiftTest]
    domain_classifier: DomainCheck
    extra: dict[str, ShiftTest]
    flagged: list[str]
    not_evaluated: list[str]
    statement: str
    any_drift_p_value: float = ABSENT  # the global test gating both families (pipeline/steps/drift.py)


@dataclass(frozen=True)
class GainOnTest(Part):
    """The chosen model's test score minus another's (positive: the chosen one is better), with its paired bootstrap
    interval."""

    gain: float
    interval: list[float]


@dataclass(frozen=True)
class ComparisonOnTest(Part):
    """The chosen model against each other compared model on the test rows (pipeline/steps/comparison.test_gains):
    the scorer, how the interval's draws were made, and the gain over each by name."""

    chosen: str
    scoring: str
    method: str
    gains: dict[str, GainOnTest]


@dataclass(frozen=True)
class EvaluationReport(Record):
    """What every kind writes to test.json."""

    json_file: ClassVar[Path] = paths.TEST_METRICS
    written_by: ClassVar[str] = "evaluate"

    task: str
    n: int
    baseline: JSON  # the no-skill model's test figures, by metric
    bootstrap: EvaluationBootstrap
    cv_vs_test: CvVsTest
    drift: Drift
    comparison: ComparisonOnTest | None  # with compared models: the chosen one's test gain over each other

    def figure(self, name: str) -> Any:
        """A test metric of the kind by its name (Target.test_metrics lists them)."""
        return getattr(self, name)


@dataclass(frozen=True)
class AgainstNoSkill(Part):
    """The deployed decisions' loss beside the no-skill rule's, with the gain's interval."""

    metric: str
    no_skill_rule: str
    loss: Any
    no_skill_loss: Any
    gain: Any
    gain_interval: list[float]
    decided: dict[str, int]  # rows decided per class
    classes_decided: int
    same_as_no_skill: bool


@dataclass(frozen=True)
class Decision(Part):
    """The deployed rule, its costs on test (with decision.cost_matrix) and its comparison with no skill."""

    when_set: ClassVar[tuple[str, ...]] = ("expected_cost_posterior", "realised_cost", "realised_cost_plain_rule")

    rule: str
    threshold: float | None
    cost_matrix: list[list[float]] | None
    against_no_skill: AgainstNoSkill
    expected_cost_posterior: float | None = None
    realised_cost: float | None = None
    realised_cost_plain_rule: float | None = None


@dataclass(frozen=True)
class RankingChange(Part):
    """The ranking metric of the model's own probabilities and of the deployed ones."""

    metric: str
    model: float
    deployed: float
    changed: bool


@dataclass(frozen=True, kw_only=True)
class CalibrationQuality(Part):
    """ECE / MCE with the bins used, Brier score and log loss of a set of probabilities
    (pipeline/core/summaries.calibration_report) and the kind's detail: the Brier decomposition (two classes), the
    classwise ECE and what the ECE is of (more)."""

    n: int
    ece: float
    mce: float
    brier: float
    log_loss: float
    n_bins_used: int
    n_nonempty_bins: int
    brier_decomposition: dict[str, float] = ABSENT
    classwise_ece: float = ABSENT
    ece_of: str = ABSENT


@dataclass(frozen=True)
class EceMce(Part):
    ece: float
    mce: float


@dataclass(frozen=True)
class GroupCalibration(Part):
    """One sensitive group's calibration before and after the map (bins formed within the group)."""

    n: int
    base_rate: float  # the positive share (two classes) or the top label's accuracy after the map (more)
    before: EceMce
    after: EceMce


@dataclass(frozen=True)
class EvaluationCalibration(Part):
    """Calibration on test before and after the deployed map, per sensitive group, and what the map did to ranking."""

    binning: JSON
    before: CalibrationQuality
    after: CalibrationQuality
    groups: dict[str, dict[str, GroupCalibration]]  # {grouping: {group: ...}}
    ranking: RankingChange


@dataclass(frozen=True)
class ConformalSets(Part):
    """The conformal prediction sets on test: coverage against the target, size and the share of each size."""

    set_coverage: float
    coverage: float
    mean_set_size: float
    singleton_rate: float
    empty_rate: float
    full_rate: float
    n: int


@dataclass(frozen=True)
class RejectOption(Part):
    """The decisions kept at decision.reject_threshold and their error."""

    reject_threshold: float
    n_accepted: int
    n_errors: int
    coverage: float
    selective_risk: float
    accuracy_accepted: float


@dataclass(frozen=True)
class Selective(Part):
    """Risk against coverage of the decisions ranked by confidence: AURC, the reject option, the coverage at risk."""

    confidence: str
    reject_option: RejectOption
    aurc: float
    optimal_aurc: float
    e_aurc: float
    error_rate: float
    target_risk: float
    at_target_risk: JSON


@dataclass(frozen=True)
class ClassificationEvaluation(EvaluationReport):
    """What the classification kinds add: the classes, the deployed decisions and probabilities' quality."""

    classes: list[Any]
    threshold: float | None
    decision: Decision
    log_loss: float
    brier: float
    calibration: EvaluationCalibration
    conformal: ConformalSets
    selective: Selective


@dataclass(frozen=True)
class BinaryConfusion(Part):
    tp: int
    fp: int
    fn: int
    tn: int


@dataclass(frozen=True)
class BinaryEvaluation(ClassificationEvaluation):
    roc_auc: float
    average_precision: float
    accuracy: float
    precision: float
    recall: float
    specificity: float
    f1: float
    confusion: BinaryConfusion
    table: JSON  # every metric of the confusion table (mllib.metrics.binary_metrics)


@dataclass(frozen=True)
class ConfusionMatrix(Part):
    labels: list[Any]
    matrix: list[list[int]]
    orientation: str


@dataclass(frozen=True)
class MulticlassEvaluation(ClassificationEvaluation):
    roc_auc_ovr: float
    accuracy: float
    balanced_accuracy: float
    f1_macro: float
    precision_macro: float
    recall_macro: float
    averages: JSON  # {macro | micro | weighted: {precision, recall, f1}}
    per_class: JSON  # {class: its precision, recall, f1, support, one-vs-rest AUC and average precision}
    top_k_accuracy: JSON  # {k: accuracy of the k most probable classes}
    confusion: ConfusionMatrix


@dataclass(frozen=True)
class ResidualPlot(Part):
    """The rows the residual plot shows: every `every`-th of `of`."""

    every: int
    of: int
    rows: int


@dataclass(frozen=True, kw_only=True)
class IntervalSummary(Part):
    """One interval method on the test rows: the share of rows it holds and its widths (the model's own: where it
    comes from)."""

    coverage: float
    mean_width: float
    median_width: float
    n: int
    source: str = ABSENT


@dataclass(frozen=True)
class BinSummary(Part):
    """The deployed intervals within one fifth of the test predictions (lowest first): its rows, prediction range,
    coverage and widths (coverage_fifth_<k> in the bootstrap figures has its interval)."""

    bin: int
    prediction: list[float]  # [lowest, highest] prediction of the fifth
    coverage: float
    mean_width: float
    median_width: float
    n: int


@dataclass(frozen=True, kw_only=True)
class RegressionIntervals(Part):
    """The prediction intervals on test: the coverage asked, the deployed method and each method's summary (model:
    the model's own Gaussian interval, where it has one), the scale and score they were computed with, and the
    deployed method's coverage in each fifth of the test predictions (conditional coverage along the prediction)."""

    coverage_target: float
    deployed: str  # the method whose summary is always there
    computed_on: str  # the scale and the score: "log(price), normalized residuals"
    by_fifth: list[BinSummary]
    cv_plus: IntervalSummary = ABSENT
    split: IntervalSummary = ABSENT
    model: IntervalSummary = ABSENT

    def methods(self) -> dict[str, IntervalSummary]:
        """Each method's summary, by name in the file's order."""
        return {name: getattr(self, name) for name in ("cv_plus", "model", "split") if getattr(self, name)}

    @property
    def deployed_summary(self) -> IntervalSummary:
        summary: IntervalSummary = getattr(self, self.deployed)
        return summary


@dataclass(frozen=True)
class DeployedTarget(Part):
    """How the deployed regressor's predictions reach y's units (pipeline/steps/target_transform.py): the scale it is
    fitted on, what its predictions are (mean, median, or the model's own), the floor and how many test predictions
    it raised, and the scale the explainers' attributions add up on."""

    fitted_on: str
    predictions: str
    floor: float | None
    clipped: int  # test predictions raised to the floor
    lowest_unclipped: float  # the lowest test prediction before the floor
    attributions_add_up_on: str


@dataclass(frozen=True)
class RegressionEvaluation(EvaluationReport):
    r2: float
    rmse: float
    mae: float
    mean_residual: float
    intervals: RegressionIntervals
    residual_plot: ResidualPlot
    target_transform: DeployedTarget


@dataclass(frozen=True)
class CalibrationReport(Record):
    """reports/metrics/calibration.json: what calibrate fitted on the out-of-fold outputs, the kind's own record
    (Target.calibration_record)."""

    json_file: ClassVar[Path] = paths.CALIBRATION_METRICS
    written_by: ClassVar[str] = "calibrate"

    task: str
    n_rows: int
    not_converged: list[str]  # fits of the map that stopped at their iteration caps

    @property
    def deployed_map(self) -> str | None:
        """The calibration map the predictor applies; None for a kind without one."""
        return None

    @property
    def map_warning(self) -> str | None:
        """A named map worse than none, said in the card and the run's tags."""
        return None


@dataclass(frozen=True)
class ConformalFit(Part):
    """The split-conformal threshold of the prediction sets and what it was fitted on."""

    coverage: float
    threshold: float
    fitted_on: str
    n: int


@dataclass(frozen=True)
class DeployedRule(Part):
    """The decision rule the predictor applies (decision.cost_matrix, decision.threshold, decision.reject_threshold)."""

    rule: str
    threshold: float | None
    cost_matrix: list[list[float]] | None
    reject_threshold: float


@dataclass(frozen=True)
class RankingAgainstNone(Part):
    """A map's ranking metric minus no map's, within the folds, with its DeLong standard error (no folds: none)."""

    metric: str
    difference: float | None
    standard_error: float | None
    folds: int


@dataclass(frozen=True, kw_only=True)
class MapCandidate(Part):
    """One calibration map's cross-fitted figures and whether calibration.method auto may deploy it (`why`), or
    (defined False) why it could not be fitted (`reason`)."""

    method: str
    defined: bool
    reason: str = ABSENT
    log_loss: float = ABSENT
    ece: float = ABSENT
    ece_vs_none: float = ABSENT  # the map's cross-fitted ECE minus no map's on the same rows: auto needs it <= 0
    brier: float = ABSENT
    log_loss_vs_none: float = ABSENT
    standard_error_vs_none: float | None = ABSENT
    gain_in_standard_errors: float | None = ABSENT
    ranking_vs_none: RankingAgainstNone = ABSENT
    not_converged: list[str] = ABSENT
    qualifies: bool = ABSENT
    why: str = ABSENT


@dataclass(frozen=True)
class ClassificationCalibration(CalibrationReport):
    """The map and how it was chosen among the maps cross-fitted on the out-of-fold scores, calibration quality
    before and after (overall and per sensitive group), the conformal sets' threshold and the decision rule."""

    method: str
    method_setting: str  # calibration.method as set (auto or a name)
    margin: float
    comparison: list[MapCandidate]  # every map's, no map first (pipeline/steps/calibration.py)
    warning: str | None
    why_deployed: str  # named in params.yaml, or auto's rule with why each map of lower log loss stepped aside
    one_vs_rest: bool
    settings: JSON
    binning: JSON
    oof_before: CalibrationQuality
    oof_after_crossfitted: CalibrationQuality
    groups: dict[str, dict[str, GroupCalibration]]
    parameters: JSON | list[Any]  # the map's fitted scalars (per class, one-vs-rest)
    conformal: ConformalFit
    decision: DeployedRule
    # time-ordered folds (data.time): the first validated period's rows, which fit the maps of the later periods and
    # the deployed map but are scored by none (each period's map sees the earlier periods only); n_rows: the later
    # periods' rows, on which every figure here is measured. Absent without data.time: every row is scored.
    rows_only_fitted: int = ABSENT

    @property
    def deployed_map(self) -> str | None:
        return self.method

    @property
    def map_warning(self) -> str | None:
        return self.warning


@dataclass(frozen=True)
class FifthCoverage(Part):
    """One fifth of the out-of-fold predictions: its rows and the share each score's cross-fitted interval holds."""

    fifth: int
    n: int
    absolute: float
    normalized: float


@dataclass(frozen=True)
class IntervalScoreChoice(Part):
    """calibration.interval_score (pipeline/steps/regression.py): absolute or normalized residuals, judged by the
    cross-fitted coverage of each fifth of the out-of-fold predictions; normalized only where its worst fifth holds
    more rows than absolute's by more than the standard error of a fifth's coverage."""

    setting: str
    chosen: str  # absolute | normalized
    fifths: list[FifthCoverage]
    worst_absolute: float
    worst_normalized: float
    standard_error: float
    statement: str


@dataclass(frozen=True)
class IntervalsFit(Part):
    """The conformal prediction intervals fitted on the out-of-fold residuals, on the scale the model is fitted on
    (`scale`: y's name, or log(y + c)), of absolute or normalized residuals (`score`)."""

    method: str
    coverage: float
    n_folds: int
    split_threshold: float
    fitted_on: str
    residual_quantiles: dict[str, float]
    scale: str
    score: str
    score_choice: IntervalScoreChoice


@dataclass(frozen=True)
class RegressionCalibration(CalibrationReport):
    oof: JSON  # the out-of-fold point metrics
    intervals: IntervalsFit
