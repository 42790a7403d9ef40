"""MLflow: the track stage's run and the model registry, the monitor's runs (imported by those two stages only; serving
loads the model).

runs.py       the run, its params, metrics, artifacts and child runs; resuming a state
registry.py   the registered version: the gate's decision, its tags and description, the aliases of the workspace
naming.py     what a run says about itself: its name, description and the params that define it
promotion.py  the registry's gate: which version may become `champion`, and the words a version says it in
store.py      the store is never silently replaced: what track wrote (mlflow-ledger.json), copies of a sqlite store
monitor_run.py  the monitor's run, tagged with the model version it checked
"""

import os

# MLflow's INFO lines (creating a store's tables, validating the input example) would follow the run's summary at the
# end of `dvc repro`; its warnings stay. Read when mlflow is first imported, which is after this package; a user's
# MLFLOW_LOGGING_LEVEL wins.
os.environ.setdefault("MLFLOW_LOGGING_LEVEL", "WARNING")
