"""params.yaml as one pydantic model: a section per model, unknown keys refused, every bound stated (counts of repeated
work included), the relations between keys as model validators. `python -m pipeline.core.params schema` writes
params.schema.json from it, which params.yaml's first line points editors at, so a typo is underlined while typing.

A field's description says what its value must be: the schema shows it, and a refusal reads
`params.yaml: <dotted.key> must be <description>, got <value>` (params_refusals.py's `problem`, one line)."""

from __future__ import annotations

import json
import math
import reprlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import PydanticCustomError

from mllib import registry
from mllib.metrics.scorers import REGRESSION_SCORERS, SCORERS

from .task import TASKS

SCHEMA_FILE = Path("params.schema.json")

# a value as messages show it: a few items of each list or mapping, a few levels deep, cut to one short line, so the
# work and the line are bounded whatever the value holds (a YAML alias can stand for a structure of any size)
_SHOWN = reprlib.Repr()
_SHOWN.maxlevel, _SHOWN.maxlist, _SHOWN.maxdict, _SHOWN.maxstring, _SHOWN.maxother, _SHOWN.maxlong = 3, 6, 6, 80, 80, 40


def shown(value: object, limit: int = 120) -> str:
    return cut(_SHOWN.repr(value), limit)


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def refuse(text: str) -> PydanticCustomError:
    """A relation between keys broken: `text` names the keys and the fix (the message after "params.yaml: ")."""
    return PydanticCustomError("params", "{text}", {"text": text})


# ---- the names params.yaml chooses from (mllib.registry's tables and mllib's scorers; mypy reads each as str) -----

_MODELS = (*registry.CLASSIFIERS, *registry.REGRESSORS)
_SCORERS = ("auto", *SCORERS, *REGRESSION_SCORERS)
SHAPLEY = ("auto", "tree", "linear", "kernel", "exact", "none")
RELEVANCE = ("gradient_x_input", "lrp_basic", "lrp_epsilon", "lrp_z_plus", "none")
if TYPE_CHECKING:
    from pydantic._internal._core_utils import CoreSchemaOrField

    Task: TypeAlias = str
    SplitStrategy: TypeAlias = str
    ModelChoice: TypeAlias = str
    Scorer: TypeAlias = str
    Calibrator: TypeAlias = str
    Criterion: TypeAlias = str
    DomainClassifier: TypeAlias = str
    ModelName: TypeAlias = str
    CalibratorName: TypeAlias = str
    Shapley: TypeAlias = str
    Relevance: TypeAlias = str
else:
    Task = Literal[TASKS]
    SplitStrategy = Literal[("auto", *registry.SPLITTERS)]
    ModelChoice = Literal[("auto", *_MODELS)]
    Scorer = Literal[_SCORERS]
    Calibrator = Literal[("auto", *registry.CALIBRATORS)]
    Criterion = Literal[(*registry.MITIGATION_CRITERIA, "none")]
    DomainClassifier = Literal[("none", *registry.CLASSIFIERS)]
    # mapping keys: a key not in the table is refused as "not a <description>"
    ModelName = Annotated[Literal[_MODELS], Field(description="model name")]
    CalibratorName = Annotated[Literal[tuple(registry.CALIBRATORS)], Field(description="calibration method name")]
    Shapley = Literal[SHAPLEY]
    Relevance = Literal[RELEVANCE]


# ---- fields: what each value must be, stated once for the check, the schema and the message -----------------------


def must(what: str, **bounds: Any) -> Any:
    """A field whose value must be `what` (its description), with pydantic's bounds (ge, gt, le, lt, min_length;
    numbers of the field's type, so Any: Field's overloads take each bound with its own type)."""
    return Field(description=what, **bounds)


def count(low: int, high: int, what: str) -> Any:
    """A count of repeated work (bootstrap draws, repeats, samples, folds) with a stated upper bound: beyond it a
    stage would run for hours without a word, and the figures it refines would not change at the precision reported."""
    return Field(description=f"an integer in [{low}, {high:,}] ({what})", ge=low, le=high)


def rows(low: int, what: str) -> Any:
    """A number of rows (a sample's size or a cap), null for every row."""
    return Field(description=f"an integer in [{low}, {MAX_ROWS:,}] or null ({what})", ge=low, le=MAX_ROWS)


def fraction(what: str = "a number in (0, 1)") -> Any:
    return Field(description=what, gt=0, lt=1)


def one_of(*options: str | bool) -> Any:
    return Field(description=f"one of {list(options)}")


def text(nullable: bool = False, what: str = "") -> Any:
    kind = "a non-empty string" + (" or null" if nullable else "")
    return Field(description=kind + (f" ({what})" if what else ""), min_length=1)


MAX_ROWS = 1_000_000_000  # a row count beyond any table the pipeline reads (its stages hold a table in memory)
Columns = list[str]
Scalar = bool | int | float | str | None
Range = Annotated[list[float | None], Field(min_length=2, max_length=2)]
Settings = dict[str, Any]
RANGES = "a mapping {column: [low, high]} (null for an open end)"


class Section(BaseModel):
    """A mapping of params.yaml: every key required (its default lives in params.yaml), no other key, values of the
    stated type only (a bool is not an integer, a string not a number), numbers finite."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class Data(Section):
    """The whole interface for bringing your own CSV or Parquet file: the file, the target and the columns' roles."""

    path: str = text(what="a .csv, .csv.gz or .parquet file, or a directory of parts")
    target: str = text(what="the column to predict")
    task: Task = one_of(*TASKS)
    positive_label: Scalar = must("a number, string or boolean, or null (the larger value)")
    group: str | None = text(nullable=True, what="the id column; null: rows are independent")
    time: str | None = text(nullable=True, what="the column that orders the rows")
    time_feature: Literal["none", "elapsed", "index"] = one_of("none", "elapsed", "index")
    sensitive: Columns = must("a list of column names")
    drop: Columns = must("a list of column names")
    categorical: Columns = must("a list of column names")
    schema_: str | None = Field(
        alias="schema",
        description="a non-empty string or null (a pandera YAML schema under data/schemas/)",
        min_length=1,
    )

    @model_validator(mode="after")
    def _roles(self) -> Data:
        roles = {
            "data.target": [self.target],
            "data.group": [self.group] if self.group else [],
            "data.time": [self.time] if self.time else [],
            "data.drop": self.drop,
            "data.categorical": self.categorical,
        }
        audited_only = set(self.drop) & set(self.sensitive)  # its kind is moot: never a feature, audited as groups
        for role_a, cols_a in roles.items():
            for role_b, cols_b in roles.items():
                shared = sorted(set(cols_a) & set(cols_b)) if role_a < role_b else []
                if {role_a, role_b} == {"data.drop", "data.categorical"}:
                    shared = [c for c in shared if c not in audited_only]
                if shared:
                    raise refuse(f"column {shown(shared[0])} is listed in both {role_a} and {role_b}; give it one role")
        if self.time_feature != "none" and not self.time:
            raise refuse(
                f"data.time_feature is {self.time_feature!r} but data.time is null; set data.time to the column that "
                "orders the rows, or data.time_feature: none"
            )
        if self.target in self.sensitive:
            raise refuse(f"data.sensitive lists the target {shown(self.target)}")
        return self


class Validate(Section):
    """What validate does with rows that break the data contract."""

    on_invalid: Literal["fail", "quarantine"] = one_of("fail", "quarantine")
    fractional_binary: Literal["fail", "quarantine", "round"] = one_of("fail", "quarantine", "round")
    extreme_factor: float | None = must("a number > 1 or null (off)", gt=1)
    missing_target: Literal["quarantine", "fail"] = one_of("quarantine", "fail")
    missing_sensitive: Literal["group", "quarantine", "fail"] = one_of("group", "quarantine", "fail")


class Outliers(Section):
    """Outliers against fixed thresholds, never learned from the data."""

    policy: Literal["none", "flag", "clip", "remove"] = one_of("none", "flag", "clip", "remove")
    bounds: dict[str, Range] = must(RANGES)


class Clean(Section):
    """Duplicate rows and columns, impossible values and outliers."""

    drop_duplicate_rows: Literal["auto", True, False] = one_of("auto", True, False)
    drop_duplicate_columns: bool = must("true or false")
    valid_ranges: dict[str, Range] = must(RANGES)
    outliers: Outliers


class Split(Section):
    """The hold-out test set and the cross-validation splits."""

    test_size: float = fraction()
    strategy: SplitStrategy = one_of("auto", *registry.SPLITTERS)
    n_splits: int = count(2, 1_000, "folds, or draws of the shuffle and bootstrap strategies")
    n_repeats: int = count(1, 100, "reshuffled repeats of the folds")
    valid_size: float = fraction()
    shuffle: bool = must("true or false")
    gap: float = must("a number of time units >= 0", ge=0)


class FeatureStep(Section):
    """One step of the feature transformer: a registry name and its settings."""

    name: str = must("a registry name of the step's transformers")
    params: Settings = must("a mapping (use {} for none)")


def _step(step: str) -> Any:
    """FeatureStep whose name is one of `step`'s registry names (none: the step is skipped)."""
    names = registry.FEATURE_STEPS[step]
    choice: Any = Literal[names]
    doc = f"The {step} step of the feature transformer: a registry name and its settings."
    return create_model(step.title().replace("_", ""), __base__=FeatureStep, __doc__=doc, name=(choice, one_of(*names)))


if TYPE_CHECKING:
    NumericImputer: TypeAlias = FeatureStep
    Expansion: TypeAlias = FeatureStep
    Scaler: TypeAlias = FeatureStep
    CategoricalImputer: TypeAlias = FeatureStep
    Encoder: TypeAlias = FeatureStep
    Projection: TypeAlias = FeatureStep
    Selection: TypeAlias = FeatureStep
else:
    NumericImputer, Expansion, Scaler = _step("numeric_imputer"), _step("expansion"), _step("scaler")
    CategoricalImputer, Encoder = _step("categorical_imputer"), _step("encoder")
    Projection, Selection = _step("projection"), _step("selection")


class Features(Section):
    """The feature transformer, fitted on the training part of each split only."""

    numeric_imputer: NumericImputer
    expansion: Expansion
    scaler: Scaler
    categorical_imputer: CategoricalImputer
    encoder: Encoder
    projection: Projection
    selection: Selection


class Model(Section):
    """The model, or the models compared on the same folds, and their fixed hyperparameters."""

    name: ModelChoice = one_of("auto", *_MODELS)
    candidates: list[ModelName] = must(
        f"a list of distinct registry model names (classifiers: {sorted(registry.CLASSIFIERS)}; "
        f"regressors: {sorted(registry.REGRESSORS)}), [] for model.name alone"
    )
    selection: Literal["best", "one_se"] = one_of("best", "one_se")
    target_transform: Literal["auto", "none", "log"] = one_of("auto", "none", "log")
    params: dict[ModelName, Settings] = must("a mapping {model name: {hyperparameter: value}} ({} for none)")

    @field_validator("candidates")
    @classmethod
    def _distinct(cls, names: list[str]) -> list[str]:
        if len(set(names)) != len(names):
            raise ValueError("names repeat")
        return names


class Search(Section):
    """The hyperparameter search over each model's grid."""

    method: Literal["grid", "random"] = one_of("grid", "random")
    grid: dict[ModelName, dict[str, Annotated[list[Any], Field(min_length=1)]]] = must(
        "a mapping {model name: {hyperparameter: [values, ...]}} ({} for none)"
    )
    n_iter: int = count(1, 10_000, "candidates drawn by random search")
    scoring: Scorer = one_of(*_SCORERS)


class Calibration(Section):
    """The probability calibration map, the reliability bins and the conformal sets and intervals."""

    method: Calibrator = one_of("auto", *registry.CALIBRATORS)
    margin: float = must("a number >= 0 (standard errors)", ge=0)
    n_bins: int = count(2, 1000, "bins of the reliability diagram")
    binning: Literal["uniform", "quantile"] = one_of("uniform", "quantile")
    params: dict[CalibratorName, Settings] = must("a mapping {method name: {hyperparameter: value}} ({} for none)")
    set_coverage: float = fraction()
    interval_coverage: float = fraction()
    interval_method: Literal["cv_plus", "split"] = one_of("cv_plus", "split")
    interval_score: Literal["auto", "absolute", "normalized"] = one_of("auto", "absolute", "normalized")


class Assess(Section):
    """How much to trust the CV score: leakage, single features, learning curve, nested CV."""

    leakage: bool = must("true or false")
    learning_curve: bool = must("true or false")
    train_fractions: list[float] = must(
        "a list of at least two increasing fractions in (0, 1], the last 1.0", min_length=2, max_length=100
    )
    single_feature_bound: float | None = must("a number in (0, 1] or null (off)", gt=0, le=1)
    legitimate_features: Columns = must("a list of column names")
    nested: bool = must("true or false")
    inner_splits: int = count(2, 100, "inner folds of nested CV")
    max_rows: int | None = rows(1, "null: every row")
    max_refit_rows: int | None = rows(1, "null: any size")
    validation_curve: dict[
        ModelName, Annotated[dict[str, Annotated[list[Any], Field(min_length=2)]], Field(min_length=1, max_length=1)]
    ] = must("a mapping {model name: {one hyperparameter: [at least two values]}}")

    @field_validator("train_fractions")
    @classmethod
    def _increasing(cls, fractions: list[float]) -> list[float]:
        if not (all(0 < x <= 1 for x in fractions) and fractions == sorted(set(fractions)) and fractions[-1] == 1.0):
            raise ValueError("not increasing fractions ending at 1.0")
        return fractions


class Decision(Section):
    """The deployed predictor's rule: threshold, costs and the reject option."""

    threshold: float = fraction()
    cost_matrix: list[list[float]] | None = must(
        "null or a square K x K list (K = the number of classes, in the order of reports/validation.json) "
        "[[cost(decide 0 | y 0), cost(decide 0 | y 1), ...], [cost(decide 1 | y 0), ...], ...] of finite "
        "numbers in which each class's correct decision is strictly cheaper than every wrong one"
    )
    reject_threshold: float = must("a number in [0, 1) (0: never abstain)", ge=0, lt=1)

    @field_validator("cost_matrix")
    @classmethod
    def _square(cls, cost: list[list[float]] | None) -> list[list[float]] | None:
        """cost[a][j] = cost of deciding class a when the true class is j (mllib.decisions: rows = decisions, columns
        = true classes); K is checked against the target's classes where the predictor is assembled."""
        if cost is None:
            return cost
        k = len(cost)
        if k < 2 or k > 1_000 or any(len(row) != k for row in cost):
            raise ValueError("not square")
        if not all(cost[j][j] < cost[a][j] for j in range(k) for a in range(k) if a != j):
            raise ValueError("a wrong decision costs no more than the correct one")
        return cost


class Evaluate(Section):
    """The test figures and their bootstrap intervals."""

    target_risk: float = fraction()
    n_boot: int = count(1, 10_000, "bootstrap draws of the test rows")
    confidence_level: float = fraction()
    max_rows: int | None = rows(2, "null: every row")


class Mitigation(Section):
    """Per-group thresholds fitted on out-of-fold calibrated probabilities, judged on test."""

    criterion: Criterion = one_of(*registry.MITIGATION_CRITERIA, "none")
    tolerance: float = must("a number in [0, 1)", ge=0, lt=1)


class Fairness(Section):
    """The fairness audit of data.sensitive and its mitigations."""

    min_group_size: int = must(f"an integer in [1, {MAX_ROWS:,}] (rows)", ge=1, le=MAX_ROWS)
    n_boot: int = count(0, 10_000, "bootstrap replicates; 0 for none")
    confidence_level: float = fraction()
    mitigation: Mitigation
    reweighing: bool = must("true or false")
    favourable_label: Scalar = must("a number, string or boolean, or null (data.positive_label)")


class Explain(Section):
    """Explanations in the raw feature space, on held-out test rows."""

    n_repeats: int = count(1, 100, "permutations per column")
    scoring: Scorer = one_of(*_SCORERS)
    shapley: Shapley = one_of(*SHAPLEY)
    n_rows: int = count(1, 10_000, "test rows explained")
    n_background: int = count(1, 1_000, "background rows")
    kernel_samples: int = count(2, 100_000, "coalitions per row")
    kernel_bootstrap: int = count(2, 10_000, "bootstrap replicates of the coalitions")
    relevance: Relevance = one_of(*RELEVANCE)
    lrp_epsilon: float = must("a finite number > 0", gt=0)
    pdp_features: int = count(0, 100, "features with partial dependence plots")
    surrogate_depth: int = count(0, 20, "depth of the surrogate tree; 0: off")
    surrogate_rows: int = must(f"an integer in [1, {MAX_ROWS:,}] (training rows)", ge=1, le=MAX_ROWS)
    max_rows: int | None = rows(1, "null: every row")
    grid_resolution: int = count(2, 1_000, "grid points per feature")
    pdp_percentiles: list[float] = must("a pair [low, high] with 0 <= low < high <= 1", min_length=2, max_length=2)

    @field_validator("pdp_percentiles")
    @classmethod
    def _pair(cls, pair: list[float]) -> list[float]:
        if not 0 <= pair[0] < pair[1] <= 1:
            raise ValueError("not 0 <= low < high <= 1")
        return pair


class Compute(Section):
    """Where the search's fits and the assessment's refits run (results identical for any backend)."""

    backend: Literal["local", "dask"] = one_of("local", "dask")
    n_workers: int | None = must("an integer in [1, 1,024] or null (this machine's cores)", ge=1, le=1024)
    scheduler: str | None = text(nullable=True, what="a dask scheduler's address")


class Monitor(Section):
    """Drift of new data against the training data."""

    batch: str | None = text(nullable=True, what="a file of new rows")
    fdr: float = fraction()
    domain_classifier: DomainClassifier = one_of("none", *registry.CLASSIFIERS)
    max_rows: int | None = rows(100, "null: every row")


UNIT = "a number in [0, 1] or null"


class MinHeadline(Section):
    """The lower end of the test headline metric's interval, per task, at least."""

    binary: float | None = must(UNIT, ge=0, le=1)
    multiclass: float | None = must(UNIT, ge=0, le=1)
    regression: float | None = must("a number <= 1 (R^2) or null", le=1)


class Promotion(Section):
    """The gate: `champion` moves to a new version only if every check passes (null: skip a check)."""

    min_headline: MinHeadline
    max_ece: float | None = must(UNIT, ge=0, le=1)
    min_decision_gain: float | None = must("a number >= 0 or null (skip)", ge=0)
    max_coverage_shortfall: float | None = must(UNIT, ge=0, le=1)
    max_fairness_gap: float | None = must(UNIT, ge=0, le=1)
    tolerance: float | None = must("a number >= 0 or null", ge=0)
    fail_not_evaluated: bool = must("true or false")
    allow_contract_change: bool = must("true or false")


class Tracking(Section):
    """MLflow: the store, the experiment, the registered model and the promotion gate."""

    uri: str | None = text(nullable=True, what="an MLflow tracking URI")
    experiment: str | None = text(nullable=True)
    registered_model: str | None = text(nullable=True)
    promotion: Promotion


class Params(Section):
    """params.yaml: every knob of the pipeline."""

    model_config = ConfigDict(title="params.yaml")

    seed: int = must("an integer in [0, 4,294,967,295] (numpy's legacy seed range)", ge=0, le=2**32 - 1)
    data: Data
    validate_: Validate = Field(alias="validate")
    clean: Clean
    split: Split
    features: Features
    model: Model
    search: Search
    calibration: Calibration
    assess: Assess
    decision: Decision
    evaluate: Evaluate
    fairness: Fairness
    explain: Explain
    compute: Compute
    monitor: Monitor
    tracking: Tracking

    @model_validator(mode="after")
    def _relations(self) -> Params:
        strategy, group, time = self.split.strategy, self.data.group, self.data.time
        if strategy in registry.GROUPED_SPLITTERS and not group:
            raise refuse(
                f"split.strategy is {strategy!r} but data.group is null; "
                "set data.group to the id column, or use auto or a row-level strategy (e.g. stratified)"
            )
        if strategy in registry.TIME_SPLITTERS and not time:
            raise refuse(
                f"split.strategy is {strategy!r} but data.time is null; set data.time to the column that "
                "orders the rows (a date, or an ordered number such as a year), or use auto"
            )
        if strategy not in (*registry.GROUPED_SPLITTERS, *registry.TIME_SPLITTERS, "auto") and group:
            raise refuse(
                f"split.strategy {strategy!r} splits single rows, but data.group {shown(group)} says rows of one "
                f"group must stay together; use auto or one of {list(registry.GROUPED_SPLITTERS)}, "
                "or set data.group: null to declare the rows independent"
            )
        for model, fixed in self.model.params.items():
            both = sorted(set(fixed) & set(self.search.grid.get(model, {})))
            if both:
                raise refuse(
                    f"{model} hyperparameter {shown(both[0])} is set in model.params and searched in search.grid; "
                    "keep one"
                )
        for key, table in (("search.grid", self.search.grid), ("model.params", self.model.params)):
            for model, settings in table.items():
                for name, value in settings.items():
                    for candidate in value if key == "search.grid" else [value]:
                        _check_setting(f"{key}.{model}.{name}", model, name, candidate)
        return self


# ---- hyperparameter values: checked against the model's declared constraints -------------------------------------


def _numbers_in(value: object) -> Iterator[int | float]:
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            yield from _numbers_in(item)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield value


def _check_setting(key: str, model: str, name: str, value: object) -> None:
    """A hyperparameter value (search.grid's candidates, model.params' fixed values): a number that is not finite is
    refused, and a negative one unless the model's declared constraint takes it (its class is imported only then, so
    the usual file costs no import), before train fits anything."""
    numbers = list(_numbers_in(value))
    bad = next((x for x in numbers if not math.isfinite(x)), None)
    if bad is not None:
        raise refuse(f"{key} holds {bad}; a hyperparameter takes finite numbers only")
    if not any(x < 0 for x in numbers):
        return
    from mllib.base.constraints import check_value

    constraints = getattr(registry.get(model), "_constraints", {}).get(name)
    if constraints is None:
        return  # a name the model does not declare: train names it
    try:
        check_value(model, name, value, constraints)
    except ValueError as exc:
        raise refuse(f"{key} holds {shown(value, 60)}: {cut(str(exc), 200)}") from None


# ---- params.schema.json ---------------------------------------------------------------------------------------------


class _Schema(GenerateJsonSchema):
    def field_title_should_be_set(self, schema: CoreSchemaOrField) -> bool:
        return False  # the key is the title; the description says what its value must be


def schema_text() -> str:
    """params.schema.json's text: the JSON Schema (draft 2020-12) of params.yaml, generated from Params."""
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **Params.model_json_schema(by_alias=True, schema_generator=_Schema),
    }
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    if argv != ["schema"]:
        print("usage: python -m pipeline.core.params schema   (writes params.schema.json from the model)")
        return 2
    SCHEMA_FILE.write_text(schema_text())
    print(f"wrote {SCHEMA_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
