"""The served model's input contract: what a request must hold, and what each row's answer says about it.

A request is a table of raw rows, the columns of the user's file. Refused as a whole, with one line naming the
column(s) and what was expected, echoing neither the request nor the schema (HTTP 400 from the scoring server):
- no rows; columns without names (a list of lists) or none of the feature columns; a column name given twice;
- a feature column missing;
- a value of the wrong type: a numeric column takes numbers, text that reads as a number (a `text/csv` request's
  cells) or null, never a boolean; a categorical column takes text or numbers (labels, or null), never a list or a
  mapping;
- a number that is not finite (inf, -inf: validate refuses them in training rows);
- an extreme number by validate's rule (a machine limit, |value| >= 1e100, or beyond validate.extreme_factor times
  the training rows' typical magnitude of the column) when validate.on_invalid is `fail` (the default); under
  `quarantine` the row is not scored (its outputs are null) and flagged, as validate would have set it aside;
- a missing sensitive value when validate.missing_sensitive is `fail`;
- with data.time a feature (data.time_feature), a row without a readable time: a date (ISO text, `string` in the
  signature) when the training times were dates, else a number.
Accepted and said per row in the output column `flags` (empty when the row is clean), handled as in training:
- a number outside the range of the training rows (but not extreme): scored, flagged as beyond the training range
  (the model extrapolates); a time after the last training time likewise, named as such (every row a deployed
  model scores lies after it: the model card says what the model does there);
- a missing feature value: imputed by the fitted features, as training rows were; a missing label under
  features.categorical_imputer constant (default "(missing)") is that level: its own column (or the pooled rare
  levels' column) when the training rows held missing labels in the column, otherwise a level they never held (next);
- a category the training rows never held: encoded as the fitted encoder does (features.encoder handle_unknown
  ignore: no level's column; with `error` the request is refused instead);
- a missing sensitive value under validate.missing_sensitive `group`: scored (the audit's "(missing)" group); under
  `quarantine` the row is not scored (its outputs are null), as validate would have set it aside.
Columns the model does not use (the target, the group, anything else) are ignored and named once per request in the
server's log. The contract is written at logging time (`InputContract.of`) beside the model as input_contract.json.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..core.extremes import machine_extreme, typical_magnitude
from ..core.frames import category_labels, numbers_or_days, raw_matrix, served_predictions
from ..core.timeline import shown

if TYPE_CHECKING:
    from mllib.deploy.predictor import DeployedPredictor
    from mllib.deploy.regressor import DeployedRegressor

    from ..core.json_types import JSON

NUMBER, TEXT = "number", "text"


class ContractError(ValueError):
    """A request the model cannot answer; the message is one line naming the column(s) and the fix."""


@dataclass(frozen=True)
class InputContract:
    numeric: list[str]  # columns of numbers
    categorical: list[str]  # columns of labels
    levels: dict[str, list[str]]  # the labels each categorical column held in the training rows
    sensitive: list[str]  # the sensitive attributes the model takes as features
    missing_sensitive: str  # validate.missing_sensitive: group | quarantine | fail
    unseen: str  # the encoder's handle_unknown: ignore | error
    limits: dict[str, list[float | None]]  # per numeric column: [training min, training max, extreme bound or None]
    on_invalid: str  # validate.on_invalid: fail | quarantine (an extreme number)
    missing_level: str | None = None  # the label a missing label becomes (categorical_imputer constant), or None
    time: str | None = None  # data.time when it is a feature (one of `numeric`), or None
    time_unit: str | None = None  # days (dates: the column takes date text) | as in the file (numbers)

    @classmethod
    def of(
        cls,
        train: pd.DataFrame,
        numeric: list[str],
        categorical: list[str],
        sensitive: list[str],
        validate: JSON,
        encoder: JSON,
        limits: dict[str, list[float | None]],
        imputer: JSON | None = None,
        time: tuple[str, str] | None = None,
    ) -> InputContract:
        """The contract of a model trained on `train` (its categorical columns at least): data.sensitive, params.yaml
        `validate`, the encoder's settings (features.encoder.params), the numeric columns' `limits` (limits_of) and
        the categorical imputer (features.categorical_imputer: under constant, a missing label is the level
        fill_value, one of a column's levels when its training rows held a missing label) and time: (data.time, its
        unit) when the time is a feature (its limits are the first and last training times)."""
        settings = (imputer or {}).get("params", {})
        constant = (imputer or {}).get("name") == "simple_imputer" and settings.get("strategy") == "constant"
        fill = str(settings["fill_value"]) if constant else None
        levels: dict[str, list[str]] = {}
        for c in categorical:
            labels = {fill if v is None else v for v in category_labels(train[c]).tolist()}
            levels[c] = sorted(str(v) for v in labels if v is not None)
        return cls(
            numeric=list(numeric),
            categorical=list(categorical),
            levels=levels,
            sensitive=[c for c in sensitive if c in numeric or c in categorical],
            missing_sensitive=validate["missing_sensitive"],
            unseen=encoder.get("handle_unknown", "ignore"),
            limits={c: limits[c] for c in numeric},
            on_invalid=validate["on_invalid"],
            missing_level=fill,
            time=time[0] if time else None,
            time_unit=time[1] if time else None,
        )

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> InputContract:
        return cls(**json.loads(text))

    @property
    def columns(self) -> list[str]:
        return self.numeric + self.categorical

    def typed(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The feature columns of `frame` in the types of the model's signature (numbers float64, labels text, missing
        null): what MLflow's schema check takes in-process (it refuses an int64 column for a `double` input)."""
        numbers = {c: pd.to_numeric(frame[c]).astype(np.float64) for c in self.numeric if not self._dated(c)}
        if self.time is not None and self._dated(self.time):  # dates as ISO text, the signature's `string`
            numbers[self.time] = _iso_dates(frame[self.time])
        labels = {c: pd.Series(category_labels(frame[c]), index=frame.index, dtype=object) for c in self.categorical}
        return pd.DataFrame(numbers | labels, index=frame.index)[self.columns]

    def kind(self, column: str) -> str:
        return NUMBER if column in self.numeric and not self._dated(column) else TEXT

    def _dated(self, column: str) -> bool:
        """Whether `column` is data.time as a feature holding dates (it takes date text, read as days)."""
        return column == self.time and self.time_unit == "days"

    def check(self, frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
        """Refuse what the model cannot answer (ContractError); otherwise the feature columns with numbers as
        float64, and the columns the model will ignore."""
        repeated = sorted({str(c) for c in frame.columns[frame.columns.duplicated()]})
        if repeated:
            names = _short(", ".join(repeated))
            raise ContractError(f"column name(s) {names} given more than once; send each column once")
        if not any(c in frame.columns for c in self.columns):  # MLflow drops unnamed columns before the model
            raise ContractError(
                f"the request names none of the model's {len(self.columns)} feature columns (columns without names, "
                "such as a list of lists, cannot be matched); send named columns: dataframe_split with columns, "
                "dataframe_records, or inputs / instances as records"
            )
        if len(frame) == 0:
            raise ContractError(
                f"the request holds no rows; send at least one row of the {len(self.columns)} feature columns "
                "(the model's input_contract.json lists them)"
            )
        missing = [c for c in self.columns if c not in frame.columns]
        if missing:
            raise ContractError(f"missing column(s) {_short(self._listed(missing))}; send every feature column")
        given = dict(frame[self.columns].items())  # each column read once: a wide model's request has thousands
        wrong = [
            f"{c} (expected {self.kind(c)}, got {_short(repr(bad), 40)})"
            for c in self.columns
            if (bad := self._bad_value(given[c], c)) is not None
        ]
        if wrong:
            raise ContractError(_short("wrong type in column(s) " + "; ".join(wrong), 250))
        numbers = {c: self._as_numbers(given[c], c) for c in self.numeric}
        features = pd.DataFrame({c: numbers.get(c, given[c]) for c in self.columns}, index=frame.index)
        if self.time is not None:
            unread = np.flatnonzero(np.isnan(numbers[self.time]))
            if unread.size:
                value = frame[self.time].iloc[unread[0]]
                raise ContractError(
                    f"column {_short(self.time, 60)} (data.time, a model feature) holds "
                    f"{'a missing value' if pd.isna(value) else _short(repr(value), 40)}, not a time; send "
                    + ("a date (ISO text)" if self._dated(self.time) else "a number")
                    + " in every row"
                )
        for c, x in numbers.items():
            if not np.isfinite(x[~np.isnan(x)]).all():
                raise ContractError(
                    f"column {_short(c, 60)} holds {x[np.isinf(x)][0]:g}; send finite numbers (null for missing)"
                )
            extreme = self._extreme(x, c)
            if extreme.any() and self.on_invalid == "fail":
                raise ContractError(
                    f"column {_short(c, 60)} holds {x[extreme][0]:.4g}, {self._extreme_rule(c)}; send a measurement "
                    "(null for missing) or set validate.on_invalid: quarantine to leave such rows unscored"
                )
        if self.missing_sensitive == "fail":
            absent = [c for c in self.sensitive if frame[c].isna().any()]
            if absent:
                raise ContractError(
                    f"missing value in sensitive column(s) {absent}; validate.missing_sensitive is fail, so every "
                    "row needs them"
                )
        if self.unseen == "error":
            for c in self.categorical:
                new = self._unseen(frame[c], c)
                if new.any():
                    raise ContractError(
                        f"column {c} holds {category_labels(frame[c])[new][0]!r}, a category the training rows never "
                        f"held (features.encoder handle_unknown: error); use one of {self.levels[c][:10]}"
                    )
                if self._unseen_missing(frame[c], c).any():
                    raise ContractError(
                        f"column {c} holds a missing label, which the training rows never held (it would be the "
                        f"level {self.missing_level!r}; features.encoder handle_unknown: error); send one of "
                        f"{self.levels[c][:10]}"
                    )
        used = set(self.columns)
        return features, [c for c in frame.columns if c not in used]

    def _as_numbers(self, values: pd.Series, column: str) -> np.ndarray:
        """A numeric column's values as float64 (NaN for missing): text that reads as a number is one; data.time as
        dates is days since 1970-01-01."""
        if self._dated(column):
            return numbers_or_days(values)[0]
        read = values if pd.api.types.is_numeric_dtype(values) else pd.to_numeric(values.map(_number))
        x: np.ndarray = read.to_numpy(dtype=np.float64, na_value=np.nan)
        return x

    def _extreme(self, x: np.ndarray, column: str) -> np.ndarray:
        bound = self.limits[column][2]
        with np.errstate(invalid="ignore"):
            return machine_extreme(x) | (np.abs(x) > bound if bound is not None else False)

    def _extreme_rule(self, column: str) -> str:
        bound = self.limits[column][2]
        return (
            "a machine limit, an overflow"
            + ("" if bound is None else f" or beyond |{bound:.4g}|")
            + (" (validate's extreme rule)")
        )

    def flags(self, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """Per row of the checked features: what was handled (text, empty when nothing) and whether it is scored."""
        notes: list[list[str]] = [[] for _ in range(len(frame))]
        scored = np.ones(len(frame), dtype=bool)
        for c in self.numeric:
            x = frame[c].to_numpy()
            low, high, _ = self.limits[c]
            if low is None:  # no training value: nothing to compare with
                continue
            assert high is not None  # set with low (limits_of)
            extreme = self._extreme(x, c)
            for i in np.flatnonzero(extreme):  # only under validate.on_invalid quarantine: check() refuses them
                notes[i].append(f"{c}={x[i]:.4g} extreme, {self._extreme_rule(c)} (not scored)")
            scored &= ~extreme
            with np.errstate(invalid="ignore"):
                beyond = ~extreme & ((x < low) | (x > high))
            for i in np.flatnonzero(beyond):
                notes[i].append(
                    self._beyond_times(x[i], low, high)
                    if c == self.time
                    else f"{c}={x[i]:.6g} beyond the training range [{low:.6g}, {high:.6g}] (extrapolated)"
                )
        for c in self.columns:
            missing = frame[c].isna().to_numpy()
            sensitive = c in self.sensitive
            if sensitive and self.missing_sensitive == "quarantine":
                scored &= ~missing
            note = (
                f"{c} missing (sensitive: not scored, validate.missing_sensitive quarantine)"
                if sensitive and self.missing_sensitive == "quarantine"
                else f"{c} missing ({self._filled(c)}" + (", audited as its own group)" if sensitive else ")")
            )
            for i in np.flatnonzero(missing):
                notes[i].append(note)
        for c in self.categorical:
            labels = category_labels(frame[c])
            for i in np.flatnonzero(self._unseen(frame[c], c)):
                notes[i].append(f"{c}={labels[i]!r} unseen in training (no level's column)")
        return np.array(["; ".join(n) for n in notes], dtype=object), scored

    def _beyond_times(self, t: float, first: float, last: float) -> str:
        """A time outside the training times, as the report shows times."""
        unit = self.time_unit or "as in the file"
        where = (
            f"after the last training time {shown(last, unit)}"
            if t > last
            else (f"before the first training time {shown(first, unit)}")
        )
        return f"{self.time}={shown(t, unit)} {where} (extrapolated)"

    def _filled(self, column: str) -> str:
        """What the features make of a missing value of `column`."""
        if column not in self.categorical or self.missing_level is None:
            return "imputed"
        if self.missing_level in self.levels[column]:
            return f"the level {self.missing_level}"
        return f"the level {self.missing_level}, unseen in training: no level's column"

    def _unseen_missing(self, values: pd.Series, column: str) -> np.ndarray:
        """Missing labels that become a level the training rows never held (categorical_imputer constant)."""
        if self.missing_level is None or self.missing_level in self.levels[column]:
            return np.zeros(len(values), dtype=bool)
        missing: np.ndarray = values.isna().to_numpy()
        return missing

    def _unseen(self, values: pd.Series, column: str) -> np.ndarray:
        labels = category_labels(values)
        known = set(self.levels[column])
        return np.array([v is not None and v not in known for v in labels], dtype=bool)

    def _bad_value(self, values: pd.Series, column: str) -> object:
        """The first value of the wrong type in `values`, or None."""
        if column in self.numeric and not self._dated(column):
            if pd.api.types.is_bool_dtype(values):
                return bool(values.iloc[0])
            if pd.api.types.is_numeric_dtype(values):
                return None
            ok: Callable[[object], bool] = lambda v: _number(v) is not _NOT_A_NUMBER  # noqa: E731
        else:
            ok = lambda v: not isinstance(v, (list, dict, tuple, set))  # noqa: E731
        return next((v for v in values.tolist() if not ok(v)), None)

    def _listed(self, columns: list[str] | None = None) -> str:
        return ", ".join(f"{c} ({self.kind(c)})" for c in (self.columns if columns is None else columns))


_NOT_A_NUMBER = object()


def _number(v: object) -> object:
    """A numeric column's value as a number (None for missing), or _NOT_A_NUMBER. Text that reads as a number is one
    (a text/csv request's cells arrive as text); a boolean is not, nor an integer beyond float64."""
    if v is None or v is pd.NA:
        return None
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number, str)):
        return _NOT_A_NUMBER
    if isinstance(v, str) and not v.strip():
        return None
    try:
        return float(v)
    except (ValueError, OverflowError):
        return _NOT_A_NUMBER


def _iso_dates(values: pd.Series) -> pd.Series:
    """Times as ISO date text (a time of day when there is one), missing as None: a dated time column as the
    signature's `string` holds it."""
    days, _ = numbers_or_days(values)
    return pd.Series([None if d != d else shown(d, "days") for d in days.tolist()], index=values.index, dtype=object)


def _short(value: object, limit: int = 120) -> str:
    """A name or a list as the message shows it: cut to `limit` characters, so a refusal stays one short line."""
    text = str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def limits_of(values: pd.Series, extreme_factor: float | None) -> list[float | None]:
    """A numeric column's [min, max, extreme bound] over the training rows; the bound is validate's rule
    (validate.extreme_factor times the typical magnitude; None when the rule is off or the column is all zero)."""
    x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64)
    x = x[np.isfinite(x)]
    typical = typical_magnitude(x)
    bound = None if extreme_factor is None or typical is None else float(extreme_factor * typical)
    return [float(x.min()) if x.size else None, float(x.max()) if x.size else None, bound]


def request_frame(model_input: object) -> pd.DataFrame:
    """The rows of a request as MLflow hands them over without an input schema: a DataFrame (dataframe_split,
    dataframe_records, text/csv), a mapping of columns (instances), records whose values are 0-d arrays (inputs as
    records), or an array of unnamed rows; 0-d arrays become their values."""
    try:
        frame = model_input if isinstance(model_input, pd.DataFrame) else pd.DataFrame(model_input)
    except (ValueError, TypeError) as exc:
        raise ContractError(
            f"the request cannot be read as rows of named columns ({_short(exc, 80)}); send dataframe_split with "
            "columns, dataframe_records, or inputs / instances as records"
        ) from None
    texts = [pd.api.types.is_object_dtype(t) for t in frame.dtypes]
    if not any(texts):
        return frame
    unwrap = lambda v: v.item() if isinstance(v, np.ndarray) and v.ndim == 0 else v  # noqa: E731
    columns = [
        frame.iloc[:, i].map(unwrap).infer_objects() if texts[i] else frame.iloc[:, i] for i in range(frame.shape[1])
    ]
    return pd.concat(columns, axis=1, ignore_index=True).set_axis(frame.columns, axis=1) if columns else frame


def serve(
    predictor: DeployedPredictor | DeployedRegressor,
    contract: InputContract,
    frame: pd.DataFrame,
    reasons: JSON | None = None,
) -> tuple[pd.DataFrame, list[str]]:
    """The served answer to the raw rows `frame`: the predictor's outputs per row (null where a row is not scored)
    with its `flags`, each row's `reasons` when `reasons` holds the settings (pipeline/serving/reasons.py), and the
    request's columns the model ignored. A request outside the contract raises ContractError."""
    from .reasons import row_reasons

    features, ignored = contract.check(frame)
    flags, scored = contract.flags(features)
    out = served_predictions(predictor, features, contract.numeric, contract.categorical)
    if reasons is not None:
        out["reasons"] = row_reasons(
            predictor, reasons, raw_matrix(features, contract.numeric, contract.categorical), features
        )
    if not scored.all():
        out = out.astype({c: object for c in out.columns})
        out.loc[~scored, :] = None
    out["flags"] = flags
    return out, ignored
