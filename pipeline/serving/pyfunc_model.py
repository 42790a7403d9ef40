"""MLflow pyfunc model, logged from code (no pickle): raw feature columns in, calibrated probability and
decision out. Artifacts: the `models/` directory (mllib .json + .npz files); model_config: the column roles
and the decision threshold. Load with mlflow.pyfunc.load_model(model_uri)."""
from __future__ import annotations

import mlflow
import numpy as np
import pandas as pd
from mlflow.pyfunc import PythonModel


class CalibratedPipelineModel(PythonModel):
    def load_context(self, context):
        from pathlib import Path

        from mllib import io as mlio

        models = Path(context.artifacts["models"])
        self.transformer = mlio.load(models / "features")
        self.model = mlio.load(models / "model")
        self.calibrator = mlio.load(models / "calibrator")
        self.numeric = list(context.model_config["numeric"])
        self.categorical = list(context.model_config["categorical"])
        self.threshold = float(context.model_config["threshold"])

    def predict(self, context, model_input: pd.DataFrame, params=None) -> pd.DataFrame:
        from mllib.calibration import decision_scores
        from pipeline.frames import raw_matrix

        frame = pd.DataFrame(model_input)
        missing = [c for c in self.numeric + self.categorical if c not in frame.columns]
        if missing:
            raise ValueError(f"input is missing feature columns {missing}")
        score = decision_scores(self.model, self.transformer.transform(raw_matrix(frame, self.numeric, self.categorical)))
        probability = self.calibrator.transform(score)
        return pd.DataFrame({"probability": probability, "prediction": (probability >= self.threshold).astype(np.int64)})


mlflow.models.set_model(CalibratedPipelineModel())
