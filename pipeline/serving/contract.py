"""The served model's input contract: what a request must hold, and what each row's answer says about it.

A request is a table of raw rows, the columns of the user's file. Refused as a whole, with one line naming the
column(s) and what was expected (HTTP 400 from the scoring server):
- no rows;
- a feature column missing;
- a value of the wrong type: a numeric column takes numbers (or null), a categorical column takes text or numbers
  (labels, or null), never a list or a mapping;
- a missing sensitive value when validate.missing_sensitive is `fail`.
Accepted and said per row in the output column `flags` (empty when the row is clean), handled as in training:
- a missing feature value: imputed by the fitted features, as training rows were;
- a category the training rows never held: encoded as the fitted encoder does (features.encoder handle_unknown
  ignore: no level's column; with `error` the request is refused instead);
- a missing sensitive value under validate.missing_sensitive `group`: scored (the audit's "(missing)" group); under
  `quarantine` the row is not scored (its outputs are null), as validate would have set it aside.
Columns the model does not use (the target, the group, anything else) are ignored and named once per request in the
server's log. The contract is written at logging time (`InputContract.of`) beside the model as input_contract.json.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from ..core.frames import category_labels, served_predictions

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

    @classmethod
    def of(
        cls, train: pd.DataFrame, numeric: list, categorical: list, sensitive: list, validate: dict, encoder: dict
    ) -> InputContract:
        """The contract of a model trained on `train`: data.sensitive, params.yaml `validate` and the encoder's
        settings (features.encoder.params)."""
        levels = {c: sorted({v for v in category_labels(train[c]) if v is not None}) for c in categorical}
        return cls(
            numeric=list(numeric),
            categorical=list(categorical),
            levels=levels,
            sensitive=[c for c in sensitive if c in numeric or c in categorical],
            missing_sensitive=validate["missing_sensitive"],
            unseen=encoder.get("handle_unknown", "ignore"),
        )

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> InputContract:
        return cls(**json.loads(text))

    @property
    def columns(self) -> list[str]:
        return self.numeric + self.categorical

    def kind(self, column: str) -> str:
        return NUMBER if column in self.numeric else TEXT

    def check(self, frame: pd.DataFrame) -> list[str]:
        """Refuse what the model cannot answer (ContractError); the columns it will ignore otherwise."""
        if len(frame) == 0:
            raise ContractError(
                f"the request holds no rows; send at least one row of the {len(self.columns)} feature columns "
                "(the model's input_contract.json lists them)"
            )
        missing = [c for c in self.columns if c not in frame.columns]
        if missing:
            raise ContractError(f"missing column(s) {self._listed(missing)}; send every feature column")
        wrong = [
            f"{c} (expected {self.kind(c)}, got {bad!r})"
            for c in self.columns
            if (bad := self._bad_value(frame[c], c)) is not None
        ]
        if wrong:
            raise ContractError("wrong type in column(s) " + "; ".join(wrong))
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
        return [c for c in frame.columns if c not in self.columns]

    def flags(self, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """Per row: what was handled (text, empty when nothing) and whether the row is scored."""
        notes = [[] for _ in range(len(frame))]
        scored = np.ones(len(frame), dtype=bool)
        for c in self.columns:
            missing = frame[c].isna().to_numpy()
            sensitive = c in self.sensitive
            if sensitive and self.missing_sensitive == "quarantine":
                scored &= ~missing
            note = (
                f"{c} missing (sensitive: not scored, validate.missing_sensitive quarantine)"
                if sensitive and self.missing_sensitive == "quarantine"
                else f"{c} missing (imputed" + (", audited as its own group)" if sensitive else ")")
            )
            for i in np.flatnonzero(missing):
                notes[i].append(note)
        for c in self.categorical:
            labels = category_labels(frame[c])
            for i in np.flatnonzero(self._unseen(frame[c], c)):
                notes[i].append(f"{c}={labels[i]!r} unseen in training (no level's column)")
        return np.array(["; ".join(n) for n in notes], dtype=object), scored

    def _unseen(self, values: pd.Series, column: str) -> np.ndarray:
        labels = category_labels(values)
        known = set(self.levels[column])
        return np.array([v is not None and v not in known for v in labels], dtype=bool)

    def _bad_value(self, values: pd.Series, column: str):
        """The first value of the wrong type in `values`, or None."""
        if column in self.numeric:
            if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
                return None
            ok = lambda v: v is None or isinstance(v, (int, float, bool, np.number)) or v is pd.NA  # noqa: E731
        else:
            ok = lambda v: not isinstance(v, (list, dict, tuple, set))  # noqa: E731
        return next((v for v in values.tolist() if not ok(v)), None)

    def _listed(self, columns=None) -> str:
        return ", ".join(f"{c} ({self.kind(c)})" for c in (self.columns if columns is None else columns))


def serve(predictor, contract: InputContract, frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The served answer to the raw rows `frame`: the predictor's outputs per row (null where a row is not scored)
    with its `flags`, and the request's columns the model ignored. A request outside the contract raises
    ContractError."""
    ignored = contract.check(frame)
    flags, scored = contract.flags(frame)
    out = served_predictions(predictor, frame[contract.columns], contract.numeric, contract.categorical)
    if not scored.all():
        out = out.astype({c: object for c in out.columns})
        out.loc[~scored, :] = None
    out["flags"] = flags
    return out, ignored
