#!/usr/bin/env bash
# Renders, headless and offline, what a user looks at after `make run` and the README's experiments: the report's
# first screen (1400 x 900), the MLflow experiment's landing page, its runs table, the compare view of its three
# latest parent runs, the registered model's page and its latest version's page, and the `dvc plots diff` page (PLOTS_REVS, default HEAD against the
# workspace), as PNGs in DIR (default screenshots/). Chromium from Debian's packages (`apt-get install chromium`); every request but to
# this machine goes to a closed proxy port, so a page that needs the internet shows blank. Run from the repository
# (or a clone where scripts/check_readme_experiments.py --keep ran the README's experiments) with .venv active.
set -euo pipefail
out=${1:-screenshots}
mkdir -p "$out"
port=${MLFLOW_PORT:-5077}
shot() {  # url file width height
    chromium --headless --no-sandbox --disable-gpu --proxy-server=127.0.0.1:9 --window-size="$3,$4" \
        --virtual-time-budget=20000 --screenshot="$2" "$1" >/dev/null 2>&1
    echo "wrote $2"
}
# PLOTS_REVS: the revisions to compare (default HEAD against the workspace), e.g. two experiments' names
# shellcheck disable=SC2086
dvc plots diff ${PLOTS_REVS:-HEAD} -o "$out/plots" >/dev/null
# the report's first screen: the verdict panel, on a 1400 x 900 window
shot "file://$(realpath reports/report.html)" "$out/report.png" 1400 900
shot "file://$(realpath "$out/plots/index.html")" "$out/plots.png" 1400 5200
mlflow server --backend-store-uri "sqlite:///$PWD/mlflow.db" --host 127.0.0.1 --port "$port" >/dev/null 2>&1 &
server=$!
trap 'kill $server' EXIT
for _ in $(seq 60); do curl -fs "http://127.0.0.1:$port/health" >/dev/null && break; sleep 1; done
# the experiment, its three latest parent runs, the registered model and its latest version, from the store
read -r experiment runs model version headline < <(MLFLOW_TRACKING_URI="http://127.0.0.1:$port" python - <<'EOF'
import json
from mlflow import MlflowClient
record = json.load(open("reports/mlflow_run.json"))  # the names track used (from the data, or tracking's)
client = MlflowClient()
experiment = client.get_experiment_by_name(record["experiment"]).experiment_id
runs = client.search_runs([experiment], "tags.`pipeline.role` = 'parent'", max_results=3,
                          order_by=["attributes.start_time DESC"])
latest = max(client.search_model_versions(f"name = '{record['registered_model']}'"), key=lambda v: int(v.version))
headline = next(m for m in ("test.roc_auc", "test.roc_auc_ovr", "test.r2") if m in runs[0].data.metrics)
print(experiment, json.dumps([r.info.run_id for r in runs]).replace(" ", ""), record["registered_model"],
      latest.version, headline)
EOF
)
base="http://127.0.0.1:$port/#"
shot "$base/experiments/$experiment?workflowType=machine_learning" "$out/experiment.png" 1600 1000
shot "$base/experiments/$experiment/runs?workflowType=machine_learning&orderByKey=metrics.%60$headline%60&orderByAsc=false" \
    "$out/runs.png" 1600 1000
shot "$base/compare-runs?runs=$runs&experiments=[\"$experiment\"]" "$out/compare.png" 1600 2000
shot "$base/models/$model" "$out/registry.png" 1600 1000
shot "$base/models/$model/versions/$version" "$out/version.png" 1600 1400
