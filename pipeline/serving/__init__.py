"""Serving: the MLflow pyfunc model (pyfunc_model.py) around the deployed predictor: raw rows in, the task's output
out."""
