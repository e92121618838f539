#!/usr/bin/env bash
# Builds ringcast and ringcast-load if needed, starts the server on a free loopback port, runs the
# default load scenario (docs/performance.md) and stops the server.
#
#   loadtest/run.sh                       # 10,000 mixed clients, churn, idle clients, 10 msg/s
#   loadtest/run.sh --clients 2000 --duration 20s --mix ws   # any ringcast-load flag overrides
#
# ringcast-load's flags (docs/loadtest.md) replace the defaults below one by one; --target,
# --admin-token and --server-pid are set here. The server is configured through the environment:
#   RINGCAST_THREADS (2)  RINGCAST_BUILD_DIR (build-release, the Release tree scripts/run.sh
#   builds too)  RINGCAST_SERVER_FLAGS (extra flags)
#   RINGCAST_RUN_TIMEOUT (seconds the load run may take, 900)
# The human summary goes to stderr, the JSON report to stdout. Exit status: the tool's.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${RINGCAST_BUILD_DIR:-$root/build-release}
threads=${RINGCAST_THREADS:-2}
run_timeout=${RINGCAST_RUN_TIMEOUT:-900}

# The default scenario: name -> value (an empty value is a flag without one).
declare -A want=(
  [--clients]=10000 [--mix]=ws=70,sse=20,poll=10 [--rate]=2000 [--churn]=1 [--idle]=10
  [--ping-interval]=20s [--publish-rate]=10 [--duration]=40s [--warmup]=10s [--settle]=3s
  [--procs]=2 [--expect-zero-loss]=
)
order=(--clients --mix --rate --churn --idle --ping-interval --publish-rate --duration --warmup
  --settle --procs --expect-zero-loss)
reserved=" --target --targets --admin-token --server-pid --server-kind "
source "$root/loadtest/flags.sh"
help_if_asked "${BASH_SOURCE[0]}" "$@"
merge_flags run.sh "$@"
clients=${want[--clients]}

server=$build/server/ringcast
load=$build/loadtest/ringcast-load
build_load_tools "$root" "$build"

work=$(mktemp -d /tmp/ringcast-run.XXXXXX)
server_pid=
source "$root/loadtest/server_process.sh"
stop_checked() {
  stop_server && return 0
  echo "run.sh: the server did not exit cleanly; its log:" >&2
  tail -n 50 "$work/server.log" >&2
  return 1
}
cleanup() {
  stop_server || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ulimit -n "$(ulimit -Hn)"
token=run-$RANDOM$RANDOM
# Timeouts well above the run so that only what the scenario asks for happens; --drain 0 lets the
# server exit as soon as the clients are gone.
export RINGCAST_ADMIN_TOKEN=$token
# shellcheck disable=SC2086
start_ringcast "$work/server.log" "$server" --threads "$threads" --max-connections-per-ip 0 \
  --max-connections $((clients + 2000)) --idle-timeout 10m --session-ttl 10m --drain 0 \
  ${RINGCAST_SERVER_FLAGS:-} || { echo "run.sh: server did not start" >&2; exit 1; }
echo "run.sh: ringcast pid $server_pid on 127.0.0.1:$port, --threads $threads; $(uptime | sed "s/.*load average/load average/")" >&2
echo "run.sh: ringcast-load ${load_args[*]}" >&2

status=0
RINGCAST_ADMIN_TOKEN=$token timeout "$run_timeout" "$load" --target "127.0.0.1:$port" \
  --server-pid "$server_pid" "${load_args[@]}" || status=$?
if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "run.sh: the server died during the run" >&2
  status=1
fi
stop_checked || status=1
exit "$status"
