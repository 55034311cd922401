#!/usr/bin/env bash
# A real two-node Ray cluster on this machine: head on 127.0.0.2, a worker node on 127.0.0.3
# (Ray rewrites 127.0.0.1 to the external address, so loopback aliases keep it local).
#   cluster/local_cluster.sh start [PORT] [DASHBOARD_PORT]    then: ray job submit --address http://127.0.0.2:DASHBOARD_PORT ...
#   cluster/local_cluster.sh stop [PORT]
# `stop` stops only the cluster this script started on PORT (its processes carry
# TOOLATLAS_RAY_CLUSTER=PORT in their environment, and their descendants go with them): any other
# Ray instance on the machine (a test's, another cluster's) keeps running, unlike `ray stop`.
# Each node's agent listens on PORT+100 / PORT+101 (not Ray's fixed default, which any other Ray
# instance here already holds: a node whose agent cannot bind takes no job).
set -euo pipefail
RAY="${RAY:-$(dirname "$0")/../.venv/bin/ray}"
PORT="${2:-6390}"
DASHBOARD="${3:-8275}"
export RAY_AUTH_MODE="${RAY_AUTH_MODE:-disabled}"

cluster_pids() {  # the marked processes and every descendant of theirs
  local marked=() pid
  for pid in $(ps -eo pid=); do
    if { tr '\0' '\n' < "/proc/$pid/environ"; } 2>/dev/null | grep -qx "TOOLATLAS_RAY_CLUSTER=$PORT"; then
      marked+=("$pid")
    fi
  done
  [ ${#marked[@]} -gt 0 ] || return 0
  ps -eo pid=,ppid= | awk -v roots="${marked[*]}" '
    BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) keep[r[i]] = 1 }
    { parent[$1] = $2 }
    END {
      do { grew = 0; for (p in parent) if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; grew = 1 } } while (grew)
      for (p in keep) print p
    }'
}

case "${1:-start}" in
  start)
    export TOOLATLAS_RAY_CLUSTER="$PORT"
    "$RAY" start --head --node-ip-address 127.0.0.2 --port "$PORT" --dashboard-host 127.0.0.2 \
      --dashboard-port "$DASHBOARD" --dashboard-agent-listen-port $((PORT + 100)) --num-cpus 2 --disable-usage-stats
    "$RAY" start --address "127.0.0.2:$PORT" --node-ip-address 127.0.0.3 \
      --dashboard-agent-listen-port $((PORT + 101)) --num-cpus 2 --disable-usage-stats
    # the job server answers before a node's agent can take a job ("No available agent"): wait until
    # a trivial job is accepted, so the first real `ray job submit` does not race the start-up
    for _ in $(seq 120); do
      if "$RAY" job submit --address "http://127.0.0.2:$DASHBOARD" --no-wait -- true >/dev/null 2>&1; then
        exit 0
      fi
      sleep 1
    done
    echo "the cluster on port $PORT started, but its job server accepted no job within 120 s" >&2
    exit 1
    ;;
  stop)
    pids=$(cluster_pids)
    [ -n "$pids" ] || exit 0
    kill -TERM $pids 2>/dev/null || true
    for _ in $(seq 50); do
      alive=$(for p in $pids; do if [ -d "/proc/$p" ]; then echo "$p"; fi; done)
      [ -n "$alive" ] || exit 0
      sleep 0.1
    done
    kill -KILL $alive 2>/dev/null || true
    ;;
  *) echo "usage: $0 start [PORT] [DASHBOARD_PORT] | stop [PORT]" >&2; exit 2 ;;
esac
