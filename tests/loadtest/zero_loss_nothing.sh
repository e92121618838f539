#!/usr/bin/env bash
# ringcast-load --expect-zero-loss must fail when the run measured nothing (docs/loadtest.md):
# no server listening (no client connected, no publish acknowledged), and a wrong admin token
# (every publish refused with 401). Each case must exit 1 and say why on stderr. Then, without
# --expect-zero-loss, no admin token at all: warned, the 401s counted live, exit 1 all the same.
#   tests/loadtest/zero_loss_nothing.sh <ringcast binary> <ringcast-load binary>
set -euo pipefail

server=${1:?usage: zero_loss_nothing.sh <ringcast> <ringcast-load>}
load=${2:?usage: zero_loss_nothing.sh <ringcast> <ringcast-load>}
source "$(dirname "${BASH_SOURCE[0]}")/../../loadtest/server_process.sh"
use_scratch_dir zero-loss

# expect_failure NAME PATTERN LOAD_FLAGS...: ringcast-load exits 1 and its stderr matches PATTERN.
expect_failure() {
  local name=$1 pattern=$2 rc=0
  shift 2
  timeout 60 "$load" --clients 5 --publish-rate 10 --duration 1500ms --warmup 300ms --settle 200ms \
    --expect-zero-loss "$@" >"$work/$name.json" 2>"$work/$name.err" || rc=$?
  if ((rc != 1)) || ! grep -q -- "$pattern" "$work/$name.err"; then
    echo "zero_loss_nothing $name: expected exit 1 and '$pattern'; got exit $rc:" >&2
    cat "$work/$name.err" >&2
    exit 1
  fi
  echo "zero_loss_nothing $name: ok ($(grep -- '--expect-zero-loss' "$work/$name.err" | paste -sd';'))"
}

# 1. Nothing listens on the port (a server started and stopped there).
RINGCAST_ADMIN_TOKEN=zero-loss-token start_ringcast "$work/gone.log" "$server" --drain 0
gone=$port
stop_server
expect_failure no-server "no client connected" --target "127.0.0.1:$gone" --admin-token x
grep -q -- "no publish was acknowledged" "$work/no-server.err" ||
  { echo "zero_loss_nothing no-server: no word about the publishes" >&2; exit 1; }

# 2. A server up, but the wrong admin token: clients connect, every publish gets 401.
RINGCAST_ADMIN_TOKEN=zero-loss-token start_ringcast "$work/server.log" "$server" --drain 0
expect_failure wrong-token "no publish was acknowledged.*publish_http_401" \
  --target "127.0.0.1:$port" --admin-token wrong-token

# 3. No admin token at all, and no --expect-zero-loss: a warning before the run, the live line
# counts the 401s as errors, and the run exits 1 saying why (docs/loadtest.md, "Output").
rc=0
env -u RINGCAST_ADMIN_TOKEN timeout 60 "$load" --target "127.0.0.1:$port" --clients 5 --publish-rate 10 \
  --duration 2500ms --warmup 300ms --settle 200ms >"$work/no-token.json" 2>"$work/no-token.err" || rc=$?
no_token_fail() {
  echo "zero_loss_nothing no-token: $*; stderr:" >&2
  cat "$work/no-token.err" >&2
  exit 1
}
((rc == 1)) || no_token_fail "exit $rc, not 1"
grep -q '^ringcast-load: warning: no --admin-token and no RINGCAST_ADMIN_TOKEN' "$work/no-token.err" ||
  no_token_fail "no warning about the missing token"
grep -Eq '^\[ *[0-9.]+s\] connected .* published 0  errors [1-9]' "$work/no-token.err" ||
  no_token_fail "the live line does not count the refused publishes as errors"
grep -q '^ringcast-load: no publish was acknowledged (.*publish_http_401' "$work/no-token.err" ||
  no_token_fail "no word on why it failed"
echo "zero_loss_nothing no-token: ok (warned, live errors counted, exit 1)"
