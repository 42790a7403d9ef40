"""MLflow pyfunc model, logged from code (no pickle): the deployed predictor (models/predictor: features -> model
-> calibrator -> decision rule) behind raw feature columns, under the input contract of pipeline/serving/contract.py.
Output per row: the calibrated probability of each class (`probability_<class>`), the decided class (`prediction`)
and whether the reject option lets the decision be made (`accepted`), or a regressor's `prediction` with its
interval `lower`, `upper`; `reasons`, the row's largest Shapley values with its values (pipeline/serving/reasons.py);
and `flags`, what the contract handled in the row. These are the evaluate stage's decisions and the explain stage's
attributions, by construction. Artifacts: the predictor's .json + .npz, input_contract.json and reasons.json. Load with
mlflow.pyfunc.load_model(model_uri)."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any, cast

import mlflow
import pandas as pd
from mlflow.pyfunc.model import PythonModel, PythonModelContext

from pipeline.serving.requests import ServingInputError, install

if TYPE_CHECKING:
    from mllib.deploy.predictor import DeployedPredictor
    from mllib.deploy.regressor import DeployedRegressor

logger = logging.getLogger("pipeline.serving")


class DeployedPredictorModel(PythonModel):
    def load_context(self, context: PythonModelContext) -> None:
        from pathlib import Path

        from mllib import io as mlio
        from pipeline.serving.contract import InputContract

        install()  # the request limits, checked before MLflow's scoring server parses a request (requests.py)
        self.predictor = cast("DeployedPredictor | DeployedRegressor", mlio.load(Path(context.artifacts["predictor"])))
        self.contract = InputContract.from_json(Path(context.artifacts["input_contract"]).read_text())
        reasons = context.artifacts.get("reasons")  # a model logged before reasons has none
        self.reasons = json.loads(Path(reasons).read_text()) if reasons else None

    def predict(
        self, context: PythonModelContext, model_input: pd.DataFrame, params: dict[str, Any] | None = None
    ) -> pd.DataFrame:
        from pipeline.serving.contract import ContractError, request_frame, serve

        try:
            out, ignored = serve(self.predictor, self.contract, request_frame(model_input), self.reasons)
        except ContractError as exc:
            raise ServingInputError(str(exc)) from None
        if ignored:
            logger.warning("served model: ignored column(s) the model does not use: %s", ", ".join(map(str, ignored)))
        return out


mlflow.models.set_model(DeployedPredictorModel())
