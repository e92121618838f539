#!/usr/bin/env bash
# ringcast-load's bytes on the wire per delivery (docs/loadtest.md), read from the sockets: idle
# WebSocket clients receive a 2 KB catalog update (bench/compression/catalog-2k.json), without
# and with --ws-deflate. Plain, a delivery costs at least its frame (envelope and WebSocket
# header); offered permessage-deflate, well under half of it. Nothing lost either way.
#   tests/loadtest/ws_wire_e2e.sh <ringcast binary> <ringcast-load binary>
set -euo pipefail

server=${1:?usage: ws_wire_e2e.sh <ringcast> <ringcast-load>}
load=${2:?usage: ws_wire_e2e.sh <ringcast> <ringcast-load>}
payload=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../bench/compression" && pwd)/catalog-2k.json
source "$(dirname "${BASH_SOURCE[0]}")/../../loadtest/server_process.sh"
use_scratch_dir ws-wire

export RINGCAST_ADMIN_TOKEN=wire-$RANDOM$RANDOM
start_ringcast "$work/server.log" "$server" --threads 2 --max-connections-per-ip 0 --idle-timeout 2m --session-ttl 2m \
  --drain 0 || { echo "ws_wire_e2e: the server did not start" >&2; exit 1; }
for mode in plain deflate; do
  flags=()
  [[ $mode == deflate ]] && flags=(--ws-deflate)
  timeout 60 "$load" --target "127.0.0.1:$port" --clients 40 --mix ws --idle 100 --rate 200 \
    --publish-rate 10 --duration 3s --warmup 1s --settle 1s --payload "$payload" \
    --expect-zero-loss "${flags[@]}" >"$work/$mode.json" 2>"$work/$mode.log" ||
    { cat "$work/$mode.log" >&2; exit 1; }
done
python3 - "$work/plain.json" "$work/deflate.json" "$(wc -c <"$payload")" <<'PY'
import json, sys
plain, deflate = (json.load(open(p)) for p in sys.argv[1:3])
payload = int(sys.argv[3])
p, d = plain["ws_wire"], deflate["ws_wire"]
print("ws_wire_e2e:", json.dumps({"plain": p, "deflate": d, "payload_file_bytes": payload}))
ok = plain["config"]["ws_deflate"] is False and deflate["config"]["ws_deflate"] is True
for r in (plain, deflate):
    w = r["ws_wire"]
    # Every delivery was read after the hello and counted: 40 clients x every publish.
    ok = ok and w["messages"] == r["messages"]["received"] == r["messages"]["expected"] > 0
# The plain frame carries the payload, its t and seq, the envelope and a 4-byte header.
ok = ok and payload + 60 < p["bytes_per_delivery"] < payload + 200
ok = ok and d["bytes_per_delivery"] < p["bytes_per_delivery"] / 2
sys.exit(0 if ok else 1)
PY
