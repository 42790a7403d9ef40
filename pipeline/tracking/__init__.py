"""MLflow: the track stage's run and the model registry (imported by the track stage only; serving loads the model).

runs.py       the run, its params, metrics, artifacts and child runs; resuming a state; the registered version
promotion.py  the registry's gate: which version may become `champion`
store.py      the store is never silently replaced: what track wrote (mlflow-ledger.json), copies of a sqlite store
"""
