#!/usr/bin/env bash
# The runs of docs/performance.md §9, "Against the floor": bench/paced/paced_bench.sh with both
# servers (ringcast and ringcast-bare-sender), one script run per argument, one after the other.
#   runs.sh NAME:TICK_MS:REPEATS ...   e.g. runs.sh tick100a:100:2 tick100b:100:2 tick500:500:2
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
for spec in "$@"; do
  IFS=: read -r name tick repeats <<<"$spec"
  echo "$name: start $(date +%T) load $(uptime | sed 's/.*load average: //')" >>"$here/runs.log"
  "$root/bench/paced/paced_bench.sh" --build "${BUILD:-$root/build-perf}" --tick-ms "$tick" \
    --repeats "$repeats" --out "$here/$name" >"$here/$name.md" 2>"$here/$name.log"
  echo "$name: end $(date +%T) load $(uptime | sed 's/.*load average: //')" >>"$here/runs.log"
done
