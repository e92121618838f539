#!/usr/bin/env bash
# diag.sh KIND SPREAD_S [extra server flags]: one run with perf stat + perf record over publish..+31s
set -euo pipefail
kind=$1 s=$2; shift 2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd); work=/tmp/diag2/$kind-$s${TAG:-}; rm -rf $work; mkdir -p $work
source $root/loadtest/server_process.sh
ulimit -n $(ulimit -Hn)
export RINGCAST_ADMIN_TOKEN=diag$RANDOM
if [[ $kind == ringcast ]]; then
  start_ringcast $work/server.log $root/build-perf/server/ringcast --threads ${THREADS:-2} --max-connections 19950 --idle-timeout 10m --session-ttl 10m --heartbeat 10m --drain 0 "$@"
else
  start_ringcast $work/server.log $root/build-perf/bench/ringcast-bare-sender "$@"
fi
settle=$((s == 0 ? 33 : 3))
timeout 200 $root/build-perf/loadtest/ringcast-load --target 127.0.0.1:$port --server-pid $server_pid --clients 19900 --mix ws --idle 100 --rate 2500 --procs 2 --warmup 25s --duration 26s --publish-rate 0.5 --spread ${s}s --settle ${settle}s > $work/report.json 2> $work/load.err &
lp=$!
sleep 24.5
perf stat -e task-clock,context-switches,cpu-migrations -p $server_pid -o $work/stat.txt -- sleep 32 &
perf record -F 2999 -g -p $server_pid -o $work/perf.data -- sleep 32 > /dev/null 2>&1
wait $lp || true
stop_server || true
cat $work/stat.txt | grep -E "task-clock|context|migr"
perf report -i $work/perf.data --no-children --sort sym --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | grep '%' | head -30 > $work/top.txt
head -30 $work/top.txt
