"""MLflow pyfunc model, logged from code (no pickle): the deployed predictor (models/predictor: features -> model
-> calibrator -> decision rule) behind raw feature columns. Output per row: the calibrated probability of each
class (`probability_<class>`), the decided class (`prediction`) and whether the reject option lets the decision be
made (`accepted`): the evaluate stage's decisions, by construction. Artifacts: the predictor's .json + .npz;
model_config: the raw feature columns. Load with mlflow.pyfunc.load_model(model_uri)."""

from __future__ import annotations

import mlflow
import pandas as pd
from mlflow.pyfunc import PythonModel


class DeployedPredictorModel(PythonModel):
    def load_context(self, context):
        from pathlib import Path

        from mllib import io as mlio

        self.predictor = mlio.load(Path(context.artifacts["predictor"]))
        self.numeric = list(context.model_config["numeric"])
        self.categorical = list(context.model_config["categorical"])

    def predict(self, context, model_input: pd.DataFrame, params=None) -> pd.DataFrame:
        from pipeline.core.frames import served_predictions

        return served_predictions(self.predictor, pd.DataFrame(model_input), self.numeric, self.categorical)


mlflow.models.set_model(DeployedPredictorModel())
