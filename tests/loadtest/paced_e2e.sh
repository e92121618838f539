#!/usr/bin/env bash
# End-to-end: ringcast-load --spread against the real server. 200 mixed clients, one publish paced
# over 3 s: every client gets it once, the arrival histogram covers the 3 s window (every second of
# it has arrivals), sums to the deliveries, and no second holds
# more than 1.5x the mean; the server timeline spans the window. An immediate publish would put
# everything in second 0 and fail.
# With `floor`, the server is ringcast-bare-sender (bench/compare/bare_sender.cpp), the paced floor
# of bench/paced/paced_bench.sh, held to the same checks (WebSocket clients only: all it speaks).
#   tests/loadtest/paced_e2e.sh <ringcast or ringcast-bare-sender> <ringcast-load> [ringcast|floor]
set -euo pipefail

usage="usage: paced_e2e.sh <server> <ringcast-load> [ringcast|floor]"
server=${1:?$usage}
load=${2:?$usage}
kind=${3:-ringcast}
source "$(dirname "${BASH_SOURCE[0]}")/../../loadtest/server_process.sh"
use_scratch_dir paced-e2e

export RINGCAST_ADMIN_TOKEN=paced-e2e-$RANDOM$RANDOM
case $kind in
  ringcast)
    mix=ws=60,sse=25,poll=15
    start_ringcast "$work/server.log" "$server" --threads 2 --max-connections-per-ip 0 --max-connections 1000 \
      --idle-timeout 2m --session-ttl 2m --drain 0
    ;;
  floor)
    mix=ws
    start_ringcast "$work/server.log" "$server"
    ;;
  *)
    echo "$usage" >&2
    exit 2
    ;;
esac || { echo "paced e2e: the server did not start" >&2; exit 1; }
# One publish: at the end of the warmup (1.5 s), the next one would be due after --duration.
status=0
timeout 60 "$load" --target "127.0.0.1:$port" --clients 200 --mix "$mix" \
  --rate 400 --publish-rate 1 --warmup 1500ms --duration 2s --spread 3s --settle 1s \
  --server-pid "$server_pid" --expect-zero-loss >"$work/report.json" 2>"$work/load.log" ||
  status=$?
if ((status == 0)) && ! python3 - "$work/report.json" <<'PY'; then
import json, sys
r = json.load(open(sys.argv[1]))
m, a = r["messages"], r["arrivals"]
counts = a["counts"]
tl = sorted(r["server_timeline"], key=lambda x: x["t_s"])
print("paced e2e:", json.dumps({"messages": m, "arrivals": a}))
checks = {
    "one publish": m["published"] == 1,
    "every client got it": m["expected"] == 200 and m["received"] == 200 and m["lost"] == 0,
    "3 s window": a["window_s"] == 3,
    "sums to the deliveries": sum(counts) == a["deliveries"] == m["received"]
        and a["in_window"] + a["after_window"] == a["deliveries"],
    "every second of the window has arrivals": len(counts) >= 3 and all(c > 0 for c in counts[:3]),
    # Arrivals are binned by whole seconds after the publisher's stamp, which comes before the
    # server has the publish: what the last ticks of the window hand out may land just after it.
    # Three ticks' worth (100 ms each) is the allowance, enough for a sanitizer build's slower
    # request and loop (one tick's worth, ~7, was exceeded by 11 under ASan on a shared machine).
    "at most three ticks late": a["after_window"] <= 3 * 0.1 * a["deliveries"] / a["window_s"],
    "even": 0 < a["worst_to_mean"] <= 1.5,
    # The server sampled before the publish and after its window, its CPU time never going back.
    "server timeline spans the window": len(tl) >= 3 and tl[0]["t_s"] < 0 and tl[-1]["t_s"] >= 3
        and all(x["cpu_sched_s"] <= y["cpu_sched_s"] for x, y in zip(tl, tl[1:])),
}
failed = [k for k, ok in checks.items() if not ok]
print("paced e2e: failed:", failed if failed else "none")
sys.exit(1 if failed else 0)
PY
  status=1
fi
if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "paced e2e: the server exited during the run" >&2
  status=1
fi
stop_server || status=1
if ((status != 0)); then
  echo "paced e2e: FAILED; the load tool's log and the server's:" >&2
  cat "$work/load.log" "$work/server.log" >&2
fi
exit "$status"
