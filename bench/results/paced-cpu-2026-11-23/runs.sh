#!/usr/bin/env bash
# The runs of docs/performance.md §9 "After the cheaper walk", one after the other: the branch's
# Release build (after) and a Release build of 9b67c16 (before, copied to /tmp/wtpc-before).
#   runs.sh TIMERS:WHICH:REPEATS ...     e.g. quiet:after:2 default:before:1
# Each TIMERS-WHICH.md is paced_bench.sh's table, raw reports in TIMERS-WHICH/, progress in .log.
set -u
cd "$(dirname "$0")/../../.."
res=bench/results/paced-cpu-2026-11-23
for case in "$@"; do
  IFS=: read -r timers which repeats <<<"$case"
  build=build
  [[ $which == before ]] && build=/tmp/wtpc-before
  name=$timers-$which
  echo "== $name ($repeats each) $(date +%T) $(uptime | sed 's/.*load average/load average/')" >>"$res/runs.log"
  bench/paced/paced_bench.sh --build "$build" --timers "$timers" --repeats "$repeats" \
    --out "$res/$name" >"$res/$name.md" 2>>"$res/$name.log"
  echo "   exit $? $(date +%T) $(uptime | sed 's/.*load average/load average/')" >>"$res/runs.log"
done
