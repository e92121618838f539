#!/usr/bin/env bash
# steer.sh KIND SPREAD_S (as root, under `taskset -c 0`): one load run of paced_bench.sh's quiet
# configuration with the receivers' input path off the sender's CPU: the server (ringcast or the
# floor, ringcast-bare-sender) on CPU 0, the clients on CPU 1, and loopback's receive processing
# steered to CPU 1 by RPS (/sys/class/net/lo/queues/rx-0/rps_cpus, restored on exit).
#   taskset -c 0 steer.sh ringcast|floor 0|30     (TAG=-2 for a second run)
set -euo pipefail
kind=$1 s=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd); work=/tmp/steer/$kind-$s${TAG:-}; rm -rf $work; mkdir -p $work
source $root/loadtest/server_process.sh
ulimit -n $(ulimit -Hn)
export RINGCAST_ADMIN_TOKEN=st$RANDOM
old=$(cat /sys/class/net/lo/queues/rx-0/rps_cpus)
echo ${RPS:-2} > /sys/class/net/lo/queues/rx-0/rps_cpus
trap 'echo $old > /sys/class/net/lo/queues/rx-0/rps_cpus; stop_server || true' EXIT
if [[ $kind == ringcast ]]; then
  start_ringcast $work/server.log $root/build-perf/server/ringcast --threads 2 --max-connections 19950 --idle-timeout 10m --session-ttl 10m --heartbeat 10m --drain 0
else
  start_ringcast $work/server.log $root/build-perf/bench/ringcast-bare-sender
fi
settle=$((s == 0 ? 33 : 3))
taskset -c 1 timeout 200 $root/build-perf/loadtest/ringcast-load --target 127.0.0.1:$port --server-pid $server_pid --clients 19900 --mix ws --idle 100 --rate 2500 --procs 2 --warmup 25s --duration 26s --publish-rate 0.5 --spread ${s}s --settle ${settle}s --expect-zero-loss > $work/report.json 2> $work/load.err || { tail $work/load.err; exit 1; }
python3 - $work/report.json "$root/bench/paced" <<'PY'
import json,sys
sys.path.insert(0, sys.argv[2])
import table
m=table.measure(sys.argv[1], 30, 31, 10)
print({k: m[k] for k in ('n','lost','cpu_window_s','cpu_us_per_delivery','worst_per_s','after_window')})
PY
