#!/usr/bin/env bash
# Renders, headless and offline, what a user looks at after `make run`: the MLflow registry page of the registered
# model and the `dvc plots diff` page (HEAD against the workspace), as PNGs in DIR (default screenshots/). Chromium
# from Debian's packages (`apt-get install chromium`); every request but to this machine goes to a closed proxy
# port, so a page that needs the internet shows blank. Run from the repository with .venv active.
set -euo pipefail
out=${1:-screenshots}
mkdir -p "$out"
port=${MLFLOW_PORT:-5077}
model=$(python -c "import json; print(json.load(open('reports/mlflow_run.json'))['registered_model'])")
shot() {  # url file width height
    chromium --headless --no-sandbox --disable-gpu --proxy-server=127.0.0.1:9 --window-size="$3,$4" \
        --virtual-time-budget=15000 --screenshot="$2" "$1" >/dev/null 2>&1
    echo "wrote $2"
}
dvc plots diff HEAD -o "$out/plots" >/dev/null
shot "file://$(realpath "$out/plots/index.html")" "$out/plots.png" 1400 2400
mlflow server --backend-store-uri "sqlite:///$PWD/mlflow.db" --host 127.0.0.1 --port "$port" >/dev/null 2>&1 &
server=$!
trap 'kill $server' EXIT
for _ in $(seq 60); do curl -fs "http://127.0.0.1:$port/health" >/dev/null && break; sleep 1; done
shot "http://127.0.0.1:$port/#/models/$model" "$out/registry.png" 1600 1200
