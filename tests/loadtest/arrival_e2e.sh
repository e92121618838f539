#!/usr/bin/env bash
# ringcast-load --arrival kernel against the real server (docs/loadtest.md): 100 idle WebSocket
# clients in two worker processes, 10 broadcasts a second for 3 s. Every message arrives once,
# stamped by the kernel (none booked at its read time), the report says which clock it used, and
# the latencies are real ones (above zero, under the run's length).
#   tests/loadtest/arrival_e2e.sh <ringcast binary> <ringcast-load binary>
set -euo pipefail

server=${1:?usage: arrival_e2e.sh <ringcast> <ringcast-load>}
load=${2:?usage: arrival_e2e.sh <ringcast> <ringcast-load>}
source "$(dirname "${BASH_SOURCE[0]}")/../../loadtest/server_process.sh"
use_scratch_dir arrival

export RINGCAST_ADMIN_TOKEN=arrival-$RANDOM$RANDOM
start_ringcast "$work/server.log" "$server" --threads 2 --max-connections-per-ip 0 --idle-timeout 2m \
  --session-ttl 2m --drain 0 || { echo "arrival_e2e: the server did not start" >&2; exit 1; }
timeout 60 "$load" --target "127.0.0.1:$port" --clients 100 --mix ws --idle 100 --rate 500 --procs 2 \
  --publish-rate 10 --duration 4s --warmup 1s --settle 1s --arrival kernel --expect-zero-loss \
  >"$work/kernel.json" 2>"$work/kernel.log" || { cat "$work/kernel.log" >&2; exit 1; }
python3 - "$work/kernel.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("arrival_e2e:", json.dumps({"config": r["config"]["arrival"], "latency_ms": r["latency_ms"],
                                  "messages": r["messages"], "errors": r["errors"]}))
m = r["messages"]
ok = r["config"]["arrival"] == "kernel"
ok = ok and m["received"] == m["expected"] > 0 and m["lost"] == 0
ok = ok and "arrival_unstamped" not in r["errors"]
ok = ok and 0 < r["latency_ms"]["p50"] <= r["latency_ms"]["max"] < 4000
sys.exit(0 if ok else 1)
PY
