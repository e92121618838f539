#!/usr/bin/env bash
# loadtest/cluster.sh's own example, `RINGCAST_NODES=2 loadtest/cluster.sh --clients 4000`, with
# a short run (--duration/--warmup/--settle also override): it must run, the report must show
# the overridden client count, nothing lost; and the script must refuse what it sets itself and
# stray words (exit 2). Usage: cluster_example.sh BUILD_DIR
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:?usage: cluster_example.sh BUILD_DIR}" && pwd)
fail() {
  echo "cluster_example: FAIL: $*" >&2
  exit 1
}
status=0
out=$(RINGCAST_BUILD_DIR=$build "$src/loadtest/cluster.sh" --targets 127.0.0.1:1 2>&1) || status=$?
[[ $status == 2 && $out == *"--targets is set by this script"* ]] || fail "--targets: $status $out"
status=0
out=$(RINGCAST_BUILD_DIR=$build "$src/loadtest/cluster.sh" 4000 2>&1) || status=$?
[[ $status == 2 && $out == *"unexpected argument '4000'"* ]] || fail "stray word: $status $out"

report=$(mktemp /tmp/ringcast-cluster-report.XXXXXX)
trap 'rm -f "$report"' EXIT
RINGCAST_NODES=2 RINGCAST_BUILD_DIR=$build timeout 240 "$src/loadtest/cluster.sh" --clients 4000 \
  --duration 5s --warmup 4s --settle 2s --rate 2000 >"$report" || fail "cluster.sh exited $?"
python3 - "$report" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cfg = r.get("config", r)
clients = cfg.get("clients")
assert clients == 4000, f"clients {clients} in the report, not 4000"
m = r["messages"]
assert m["lost"] == 0 and m["duplicates"] == 0, m
assert m["published"] > 0 and m["received"] > 0, m
print(f"cluster_example: ok: 2 nodes, 4000 clients, published {m['published']}, "
      f"received {m['received']}, lost 0")
PY
