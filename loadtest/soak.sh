#!/usr/bin/env bash
# A soak: loadtest/run.sh for a long time (default 15,000 clients with churn and idle clients for
# 10 minutes), sampling the server's RSS every 30 s, so a leak shows as a rising line.
#
#   loadtest/soak.sh                      # 15,000 clients, 10 min
#   loadtest/soak.sh --duration 120s      # any ringcast-load flag, as for run.sh
#
# Prints the RSS samples (after warm-up they should be flat) and run.sh's summary; exit status is
# run.sh's (non-zero on any lost or duplicate message, or a server that did not exit cleanly).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
log=$(mktemp /tmp/ringcast-soak.XXXXXX)
trap 'rm -f "$log"' EXIT

RINGCAST_RUN_TIMEOUT=${RINGCAST_RUN_TIMEOUT:-1200} "$here/run.sh" --clients 15000 --rate 1000 \
  --churn 1 --idle 10 --publish-rate 2 --duration 600s --warmup 30s "$@" 2> >(tee "$log" >&2) &
run=$!

pid=
for _ in $(seq 600); do
  pid=$(sed -n 's/^run.sh: ringcast pid \([0-9]*\) .*/\1/p' "$log")
  [[ -n $pid ]] && break
  kill -0 "$run" 2>/dev/null || break
  sleep 1
done
samples=()
if [[ -n $pid ]]; then
  start=$SECONDS
  while kill -0 "$pid" 2>/dev/null && kill -0 "$run" 2>/dev/null; do
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    [[ -n $rss ]] && samples+=("$((SECONDS - start))s:${rss}kB")
    sleep 30
  done
fi
status=0
wait "$run" || status=$?
echo "soak.sh: server RSS every 30 s: ${samples[*]}" >&2
exit "$status"
