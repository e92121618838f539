#!/usr/bin/env bash
# End-to-end: a small mixed load against the real server, asserting that no message is lost or
# duplicated. Registered with CTest (label loadtest); small enough to pass under ASan+UBSan.
#   tests/loadtest/e2e.sh <ringcast binary> <ringcast-load binary>
set -euo pipefail

server=${1:?usage: e2e.sh <ringcast> <ringcast-load>}
load=${2:?usage: e2e.sh <ringcast> <ringcast-load>}
work=$(mktemp -d /tmp/ringcast-e2e.XXXXXX)
server_pid=
source "$(dirname "${BASH_SOURCE[0]}")/../../loadtest/server_process.sh"
cleanup() {
  stop_server || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

token=e2e-$RANDOM$RANDOM
# Port 0: the kernel picks a free one, read back from the log. Short poll timeout so that the
# long-poll clients also see `timeout` replies within the run.
export RINGCAST_ADMIN_TOKEN=$token
start_ringcast "$work/server.log" "$server" --threads 2 --max-connections 2000 \
  --poll-timeout 3s --idle-timeout 2m --session-ttl 2m --drain 0 ||
  { echo "e2e: the server did not start" >&2; exit 1; }

status=0
RINGCAST_ADMIN_TOKEN=$token timeout 120 "$load" --target "127.0.0.1:$port" --clients 200 \
  --mix ws=60,sse=25,poll=15 --rate 200 --churn 10 --idle 10 --ping-interval 1s \
  --publish-rate 20 --duration 5s --warmup 1500ms --settle 3s --max-retry 2s \
  --server-pid "$server_pid" --expect-zero-loss >"$work/report.json" || status=$?

if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "e2e: the server exited during the run" >&2
  status=1
fi
# The report must show that something was actually checked.
if ((status == 0)) && ! python3 - "$work/report.json" <<'PY'; then
import json, sys
r = json.load(open(sys.argv[1]))
m, c = r["messages"], r["connections"]
ok = m["published"] >= 20 and m["expected"] > 0 and m["received"] == m["expected"] \
    and m["lost"] == 0 and m["duplicates"] == 0 and c["churned"] > 0 and c["polls"] > 0
print("e2e:", json.dumps({"messages": m, "churned": c["churned"], "polls": c["polls"]}))
sys.exit(0 if ok else 1)
PY
  status=1
fi
# A clean shutdown is part of the contract (SIGTERM drains, then exit 0).
stop_server || status=1
if ((status != 0)); then
  echo "e2e: FAILED (status $status); server log:" >&2
  cat "$work/server.log" >&2
fi
exit "$status"
