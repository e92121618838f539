#!/bin/bash
# What promotions in force cost a connect (docs/performance.md §10): starts the server, publishes
# STICKY sticky broadcasts (ttl 1h), connects CLIENTS WebSocket clients without `since` with
# ringcast-load, and prints the server's CPU time over the run (schedstat, µs) and the load tool's
# memory per idle connection. Run it with 0 and with 10, alternately, several times.
#   bench/sticky/connect_cost.sh STICKY CLIENTS [BUILD_DIR]
set -euo pipefail
sticky=${1:?sticky messages in force}
clients=${2:?clients}
build=${3:-build}
ulimit -n "$(ulimit -Hn)"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
out=$(mktemp -d)
"$build/server/ringcast" --listen "127.0.0.1:$port" --admin-token t --threads 2 \
  --max-connections 30000 --log-level warn >"$out/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$out"' EXIT
for _ in $(seq 50); do curl -sf "127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
for i in $(seq 1 "$sticky"); do
  curl -sf -H "Authorization: Bearer t" "127.0.0.1:$port/admin/publish" -d \
    "{\"data\":{\"title\":\"Promotion $i in force\",\"text\":\"20% off every air conditioner until tonight\",\"code\":\"COOL$i\"},\"ttl\":\"1h\",\"sticky\":true}" >/dev/null
done
cpu_us() { cat /proc/$pid/task/*/schedstat | awk '{s += $1} END {printf "%d", s / 1000}'; }
before=$(cpu_us)
# The clients count the sticky messages as `foreign` (not published during the run): expected.
"$build/loadtest/ringcast-load" --target "127.0.0.1:$port" --admin-token t --clients "$clients" \
  --rate 1000 --publish-rate 1 --warmup "${WARMUP:-5s}" --duration "${DURATION:-7s}" --settle 1s --server-pid "$pid" \
  >"$out/load.json" 2>"$out/load.err" || true
after=$(cpu_us)
python3 - "$out/load.json" "$sticky" "$clients" "$((after - before))" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["server"]
print(f"sticky={sys.argv[2]} clients={sys.argv[3]} server_cpu_us={sys.argv[4]} "
      f"rss_per_idle_connection={s['rss_per_idle_connection_bytes']:.0f} "
      f"pss_per_idle_connection={s['pss_per_idle_connection_bytes']:.0f} "
      f"connected={s['connected_at_publish']} foreign={d['messages']['foreign']}")
PY
