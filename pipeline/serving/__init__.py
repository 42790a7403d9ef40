"""Serving: the MLflow pyfunc model that wraps the fitted feature transformer, classifier and calibrator."""
