"""Serving: the MLflow pyfunc model around the deployed predictor: raw rows in, the task's output out.

pyfunc_model.py  the pyfunc model MLflow logs from code; a request outside the contract is HTTP 400, one line
requests.py      the limits on a request's body (size, depth, values per row), checked before MLflow parses it
contract.py      the input contract: what a request must hold, and the per-row flags of what was handled
reasons.py       each answer's reasons: the row's largest Shapley values, as the explain stage computes them
workspace.py     the workspace model's contract from the training rows (track logs it; the monitor checks by it)
"""
