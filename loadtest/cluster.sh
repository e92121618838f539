#!/usr/bin/env bash
# Several ringcast nodes sharing one Redis (docs/scaling.md) under one load run:
# starts redis-server and NODES nodes on free loopback ports, drives them with ringcast-load
# --targets (client i on node i mod NODES, publishes through the first), stops everything.
#
#   loadtest/cluster.sh                                  # 3 nodes x 15,000 WebSocket clients
#   RINGCAST_NODES=2 loadtest/cluster.sh --clients 4000  # any ringcast-load flag overrides
#
# ringcast-load's flags replace the defaults below one by one (as in loadtest/run.sh); --targets,
# --admin-token and --server-pid are set here. Environment: RINGCAST_NODES (3), RINGCAST_THREADS
# per node (1), RINGCAST_BUILD_DIR (build-release), RINGCAST_MAX_CONNECTIONS per node (19000).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${RINGCAST_BUILD_DIR:-$root/build-release}
nodes=${RINGCAST_NODES:-3}
threads=${RINGCAST_THREADS:-1}
max_connections=${RINGCAST_MAX_CONNECTIONS:-19000}

declare -A want=(
  [--clients]=$((nodes * 15000)) [--mix]=ws [--idle]=100 [--rate]=3000 [--procs]=$nodes
  [--publish-rate]=2 [--duration]=60s [--warmup]=30s [--settle]=5s [--expect-zero-loss]=
)
order=(--clients --mix --idle --rate --procs --publish-rate --duration --warmup --settle
  --expect-zero-loss)
reserved=" --target --targets --admin-token --server-pid --server-kind "
source "$root/loadtest/flags.sh"
help_if_asked "${BASH_SOURCE[0]}" "$@"
merge_flags cluster.sh "$@"

build_load_tools "$root" "$build"
source "$root/loadtest/server_process.sh"

work=$(mktemp -d /tmp/ringcast-cluster.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ulimit -n "$(ulimit -Hn)"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly yes \
  --appendfsync always --dir "$work" >"$work/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done

export RINGCAST_ADMIN_TOKEN=cluster-$RANDOM$RANDOM
targets=()
server_pids=()
for i in $(seq "$nodes"); do
  start_ringcast "$work/node$i.log" "$build/server/ringcast" --threads "$threads" --max-connections-per-ip 0 \
    --redis "redis://127.0.0.1:$redis_port/0" --max-connections "$max_connections" \
    --idle-timeout 10m --session-ttl 10m --drain 0 || exit 1
  pids+=("$server_pid")
  server_pids+=("$server_pid")
  targets+=("127.0.0.1:$port")
done
echo "cluster.sh: redis :$redis_port, nodes ${targets[*]} (pids ${server_pids[*]}); $(uptime | sed 's/.*load average/load average/')" >&2

status=0
joined=$(IFS=,; echo "${targets[*]}")
joined_pids=$(IFS=,; echo "${server_pids[*]}")
echo "cluster.sh: ringcast-load ${load_args[*]}" >&2
"$build/loadtest/ringcast-load" --targets "$joined" \
  --server-pid "$joined_pids" "${load_args[@]}" || status=$?
# Each node must still be up, then exit 0 by itself after SIGTERM with no sanitizer report
# (stop_server, loadtest/server_process.sh).
for i in "${!server_pids[@]}"; do
  server_pid=${server_pids[$i]}
  server_log=$work/node$((i + 1)).log
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "cluster.sh: node $((i + 1)) died during the run" >&2
    status=1
  fi
  stop_server || { echo "cluster.sh: node $((i + 1)) did not stop cleanly" >&2; tail -n 20 "$server_log" >&2; status=1; }
done
exit "$status"
