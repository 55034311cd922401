#!/usr/bin/env bash
# A real two-node Ray cluster on this machine: head on 127.0.0.2, a worker node on 127.0.0.3
# (Ray rewrites 127.0.0.1 to the external address, so loopback aliases keep it local).
#   cluster/local_cluster.sh start [PORT] [DASHBOARD_PORT]    then: ray job submit --address http://127.0.0.2:DASHBOARD_PORT ...
#   cluster/local_cluster.sh stop
set -euo pipefail
RAY="${RAY:-$(dirname "$0")/../.venv/bin/ray}"
PORT="${2:-6390}"
DASHBOARD="${3:-8275}"
export RAY_AUTH_MODE="${RAY_AUTH_MODE:-disabled}"
case "${1:-start}" in
  start)
    "$RAY" start --head --node-ip-address 127.0.0.2 --port "$PORT" --dashboard-host 127.0.0.2 \
      --dashboard-port "$DASHBOARD" --num-cpus 2 --disable-usage-stats
    "$RAY" start --address "127.0.0.2:$PORT" --node-ip-address 127.0.0.3 --num-cpus 2 --disable-usage-stats
    ;;
  stop)
    "$RAY" stop --force
    ;;
  *) echo "usage: $0 start|stop [PORT] [DASHBOARD_PORT]" >&2; exit 2 ;;
esac
