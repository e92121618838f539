#!/usr/bin/env bash
# End-to-end: a small mixed load against the real server, asserting that no message is lost or
# duplicated; then a shorter one over TLS (wss://, https://) against a self-signed certificate,
# and a check that a certificate the client does not trust fails the handshake. Registered with
# CTest (label loadtest); small enough to pass under ASan+UBSan.
#   tests/loadtest/e2e.sh <ringcast binary> <ringcast-load binary>
set -euo pipefail

server=${1:?usage: e2e.sh <ringcast> <ringcast-load>}
load=${2:?usage: e2e.sh <ringcast> <ringcast-load>}
source "$(dirname "${BASH_SOURCE[0]}")/../../loadtest/server_process.sh"
use_scratch_dir e2e

token=e2e-$RANDOM$RANDOM
export RINGCAST_ADMIN_TOKEN=$token
status=0

# check_report NAME REPORT TLS: the report must show that something was actually checked, over
# the connections asked for (TLS: off or verified), and nothing lost or duplicated.
check_report() {
  python3 - "$@" <<'PY'
import json, sys
name, path, tls = sys.argv[1:4]
r = json.load(open(path))
m, c, e = r["messages"], r["connections"], r["errors"]
ok = m["published"] >= 20 and m["expected"] > 0 and m["received"] == m["expected"] \
    and m["lost"] == 0 and m["duplicates"] == 0 and c["churned"] > 0 and c["polls"] > 0 \
    and (c["sessions_reused"] or 0) > 0 and r["config"]["tls"] == tls \
    and e.get("tls_handshake", 0) == 0 and e.get("publish_tls_handshake", 0) == 0
print(f"e2e {name}:", json.dumps({"messages": m, "churned": c["churned"], "polls": c["polls"],
                                  "sessions_reused": c["sessions_reused"],
                                  "errors": e, "tls": r["config"]["tls"]}))
sys.exit(0 if ok else 1)
PY
}

# finish_server NAME LOG: after a run, the server must still be up and stop cleanly (SIGTERM drains,
# then exit 0); prints its log when anything failed.
finish_server() {
  local name=$1 log=$2
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "e2e $name: the server exited during the run" >&2
    status=1
  fi
  stop_server || status=1
  if ((status != 0)); then
    echo "e2e $name: FAILED (status $status); server log:" >&2
    cat "$log" >&2
    exit "$status"
  fi
}

# 1. Plain: 200 clients, 10 %/s churn, 5 s. Port 0: the kernel picks a free one, read back from
# the log. Short poll timeout so that the long-poll clients also see `timeout` replies.
start_ringcast "$work/server.log" "$server" --threads 2 --max-connections-per-ip 0 --max-connections 2000 \
  --poll-timeout 3s --idle-timeout 2m --session-ttl 2m --drain 0 ||
  { echo "e2e: the server did not start" >&2; exit 1; }
timeout 120 "$load" --target "127.0.0.1:$port" --clients 200 \
  --mix ws=60,sse=25,poll=15 --rate 200 --churn 10 --idle 10 --ping-interval 1s \
  --publish-rate 20 --duration 5s --warmup 1500ms --settle 3s --max-retry 2s \
  --server-pid "$server_pid" --expect-zero-loss >"$work/report.json" || status=$?
((status != 0)) || check_report plain "$work/report.json" off || status=1
finish_server plain "$work/server.log"

# 2. TLS: a self-signed certificate for 127.0.0.1, which the clients verify (--tls-ca); 60 mixed
# clients with churn for 3 s, every connection (clients, publisher, stats) over TLS.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
  -subj /CN=ringcast-e2e -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>"$work/openssl.log" ||
  { cat "$work/openssl.log" >&2; exit 1; }
# Another one, which the server does not use: a client trusting only it must refuse the server.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
  -subj /CN=ringcast-e2e-other -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$work/other-key.pem" -out "$work/other.pem" 2>"$work/openssl.log" ||
  { cat "$work/openssl.log" >&2; exit 1; }
start_ringcast "$work/server-tls.log" "$server" --threads 2 --max-connections-per-ip 0 --max-connections 2000 \
  --poll-timeout 2s --idle-timeout 2m --session-ttl 2m --drain 0 \
  --tls-cert "$work/cert.pem" --tls-key "$work/key.pem" ||
  { echo "e2e: the TLS server did not start" >&2; exit 1; }
timeout 60 "$load" --target "127.0.0.1:$port" --tls-ca "$work/cert.pem" --clients 60 \
  --mix ws=50,sse=30,poll=20 --rate 200 --churn 10 --ping-interval 1s \
  --publish-rate 20 --duration 3s --warmup 1s --settle 2s --max-retry 2s \
  --server-pid "$server_pid" --expect-zero-loss >"$work/report-tls.json" || status=$?
((status != 0)) || check_report tls "$work/report-tls.json" verified || status=1
# The wrong CA: every connection fails its handshake, and is counted as such (no publishing).
timeout 30 "$load" --target "127.0.0.1:$port" --tls-ca "$work/other.pem" --clients 5 \
  --publish-rate 0 --duration 1s --warmup 500ms --settle 0 \
  >"$work/report-untrusted.json" 2>"$work/untrusted.log" || status=$?
if ((status == 0)) && ! python3 - "$work/report-untrusted.json" <<'PY'; then
import json, sys
r = json.load(open(sys.argv[1]))
e = r["errors"]
print("e2e untrusted:", json.dumps({"errors": e, "connects": r["connections"]["connects"]}))
sys.exit(0 if e.get("tls_handshake", 0) >= 5 and r["connections"]["connects"] == 0 else 1)
PY
  status=1
fi
finish_server tls "$work/server-tls.log"
exit 0
