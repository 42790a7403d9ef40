#!/usr/bin/env bash
# A team's MLflow tracking server on PostgreSQL, for trying the setup on one machine (and for the integration test).
#
#   scripts/tracking-server.sh start DIR [DB_PORT] [MLFLOW_PORT]   # prints the tracking URI; runs in the background
#   scripts/tracking-server.sh stop DIR
#
# start: a PostgreSQL cluster in DIR/pgdata bound to 127.0.0.1 (Debian's package: `apt-get install postgresql`),
# a database `mlflow`, and `mlflow server` with that database as the backend store and DIR/artifacts as the
# artifact store (served through the server, so clients need no access to the folder). Point the pipeline at it
# with MLFLOW_TRACKING_URI=http://127.0.0.1:MLFLOW_PORT or params.yaml tracking.uri. Run as root, PostgreSQL runs
# as the postgres user, who must be able to reach DIR (e.g. a folder directly under /tmp). A shared deployment would use
# a managed PostgreSQL, an object store or a DVC remote path for artifacts, and authentication in front.
set -euo pipefail
command=${1:?usage: $0 start|stop DIR [DB_PORT] [MLFLOW_PORT]}
dir=$(realpath -m "${2:?usage: $0 start|stop DIR [DB_PORT] [MLFLOW_PORT]}")
db_port=${3:-55432}
mlflow_port=${4:-5055}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] || { echo "error: PostgreSQL is not installed; apt-get install postgresql" >&2; exit 1; }

as_postgres() {  # PostgreSQL refuses to run as root
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$command" in
  start)
    mkdir -p "$dir/artifacts"
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
    as_postgres "$bin/initdb" -D "$dir/pgdata" --auth=trust --username=postgres >"$dir/initdb.log"
    as_postgres "$bin/pg_ctl" -D "$dir/pgdata" -l "$dir/postgres.log" -w \
      -o "-c listen_addresses=127.0.0.1 -p $db_port -k $dir" start >/dev/null
    as_postgres "$bin/createdb" -h 127.0.0.1 -p "$db_port" -U postgres mlflow
    nohup mlflow server --backend-store-uri "postgresql+psycopg2://postgres@127.0.0.1:$db_port/mlflow" \
      --artifacts-destination "$dir/artifacts" --host 127.0.0.1 --port "$mlflow_port" >"$dir/mlflow.log" 2>&1 &
    echo $! >"$dir/mlflow.pid"
    for _ in $(seq 120); do
      if curl -sf "http://127.0.0.1:$mlflow_port/health" >/dev/null; then
        echo "http://127.0.0.1:$mlflow_port"
        exit 0
      fi
      kill -0 "$(cat "$dir/mlflow.pid")" 2>/dev/null || break  # the server exited
      sleep 1
    done
    echo "error: the MLflow server did not start; see $dir/mlflow.log" >&2
    exit 1
    ;;
  stop)
    if [ -f "$dir/mlflow.pid" ]; then kill "$(cat "$dir/mlflow.pid")" 2>/dev/null || true; rm -f "$dir/mlflow.pid"; fi
    as_postgres "$bin/pg_ctl" -D "$dir/pgdata" -m fast -w stop >/dev/null 2>&1 || true
    ;;
  *)
    echo "usage: $0 start|stop DIR [DB_PORT] [MLFLOW_PORT]" >&2
    exit 1
    ;;
esac
