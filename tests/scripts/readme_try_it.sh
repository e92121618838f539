#!/usr/bin/env bash
# README's "Try it" run as written: its first block, pasted into bash as a newcomer would, with two
# mechanical substitutions only — the built binary for scripts/run.sh (which would build a release
# copy first: minutes) and a free port for 8080. The block must start the server, wait for it
# itself (no sleep added here), have the SSE client get the publish, schedule a promotion, publish a
# paced one and answer the long-poll (with the Spring sale; the paced one waits for carol's turn); then the WebSocket line of the second block gets a publish.
# First, with the port taken, the block must end by itself, saying why.
# A README edit that breaks one of these commands fails here.
# Usage: tests/scripts/readme_try_it.sh RINGCAST_BINARY
set -euo pipefail
server_bin=$1
readme="$(dirname "$0")/../../README.md"
work=$(mktemp -d)
pids=()
block_pgid=
cleanup() {
  [[ -n $block_pgid ]] && kill -- "-$block_pgid" 2>/dev/null || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "readme_try_it: $*" >&2
  echo "--- the block's output:" >&2
  cat "$work/block.out" >&2 2>/dev/null || true
  exit 1
}

# The Try it section's code blocks, one file each: try-1.sh, try-2.sh.
awk -v dir="$work" '
  /^## / { in_section = ($0 == "## Try it") }
  in_section && /^```sh$/ { n++; file = dir "/try-" n ".sh"; next }
  in_section && /^```$/ && file { file = ""; next }
  file { print > file }
' "$readme"
[[ -s $work/try-1.sh && -s $work/try-2.sh ]] || fail "README's Try it no longer has two sh blocks"
grep -q '^scripts/run.sh ' "$work/try-1.sh" || fail "the first block no longer starts scripts/run.sh"

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# try-N.sh with the port and the binary put in: run-N.sh.
substitute() {
  local port=$1 n
  for n in 1 2; do
    sed -e "s#^scripts/run.sh #$server_bin --listen 127.0.0.1:$port #" -e "s/127\.0\.0\.1:8080/127.0.0.1:$port/g" \
      "$work/try-$n.sh" >"$work/run-$n.sh"
  done
}

# 0. Port 8080 taken (by another web server): the block must end by itself, the server's error
# saying why and the wait saying that it stopped waiting, not loop for ever.
taken=$(free_port)
python3 -m http.server --bind 127.0.0.1 "$taken" >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$taken/" && break; sleep 0.1; done
substitute "$taken"
status=0
timeout 20 setsid bash "$work/run-1.sh" >"$work/block.out" 2>&1 </dev/null || status=$?
[[ $status -ne 124 ]] || fail "with port $taken taken, the block did not end within 20 s"
grep -q "error cannot listen on 127.0.0.1:$taken: Address already in use" "$work/block.out" ||
  fail "with port $taken taken, no error line saying so"
grep -q '^ringcast is not running: its error is above$' "$work/block.out" ||
  fail "with port $taken taken, the wait did not say that it stopped waiting"
kill "${pids[-1]}"
echo "readme_try_it: with the port taken the block ends, saying why"

port=$(free_port)
substitute "$port"

# 1. The first block in a shell of its own (its background jobs too), output as a terminal shows it.
setsid bash "$work/run-1.sh" >"$work/block.out" 2>&1 &
block_pgid=$!
pids+=($!)
# The block ends with the long-poll, whose reply lists messages.
for _ in $(seq 300); do
  grep -q '"messages"' "$work/block.out" 2>/dev/null && break
  sleep 0.1
done
out=$(cat "$work/block.out")
grep -qx 'ok' "$work/block.out" || fail "no 'ok' from the wait on /healthz"
[[ $out =~ \{\"id\":([0-9]+),\"recipients\":1\} ]] || fail "the first publish did not reach the one SSE client"
id=${BASH_REMATCH[1]}
# (curl's progress meter, shown because the output is a file, may run into a line: no ^ anchors)
grep -q "id: $id" "$work/block.out" || fail "the SSE client did not print message $id"
grep -q "data: {\"type\":\"message\",\"id\":$id,\"channel\":\"\*\",.*\"Spring sale\"" "$work/block.out" ||
  fail "the SSE client's message $id is not the Spring sale"
grep -q '{"scheduled":"[^"]*","at":[0-9]*}' "$work/block.out" || fail "the delayed publish was not scheduled"
[[ $(grep -c '"recipients":' "$work/block.out") -eq 3 ]] ||
  fail "expected three publishes (the sale, the sticky one, the paced one) answered with recipients"
grep -q '"Spring sale"' <(sed -n '/"messages"/p' "$work/block.out") || fail "the long-poll did not return the Spring sale"
# Its answer says "gap":true (that since is from before this server started): the README says why.
grep -q '"gap":true' <(sed -n '/"messages"/p' "$work/block.out") || fail "the long-poll no longer answers gap: true"
grep -A3 "^curl 'http://127.0.0.1:$port/poll" "$work/run-1.sh" | grep -q '^# .*"gap":true.*' ||
  fail "the README does not say why the long-poll answers \"gap\":true"

# 2. The WebSocket line, with Debian's python3 (the README's python3-websockets is its package).
# The interactive client exits when its input ends: keep it open.
python_line=$(grep -m1 '^python3 -m websockets ' "$work/run-2.sh") || fail "no websockets line in the second block"
sleep 30 | PATH="/usr/bin:$PATH" bash -c "$python_line" >"$work/ws.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
  grep -q '"type":"hello"' "$work/ws.out" 2>/dev/null && break
  sleep 0.05
done
grep -q '"type":"hello"' "$work/ws.out" || fail "no hello on the WebSocket: $(cat "$work/ws.out")"
publish=$(grep -m1 -A2 "^curl -H 'Authorization: Bearer s3cret' \\\\$" "$work/run-1.sh" | tr -d '\\\n')
reply=$(bash -c "curl -s ${publish#curl }")
[[ $reply =~ ^\{\"id\":([0-9]+),\"recipients\":2\}$ ]] || fail "publish again answered: $reply"
id=${BASH_REMATCH[1]}
for _ in $(seq 100); do
  grep -q "\"id\":$id" "$work/ws.out" && break
  sleep 0.05
done
grep -q "{\"type\":\"message\",\"id\":$id,\"channel\":\"\*\",.*\"data\":{\"title\":\"Spring sale\"" "$work/ws.out" ||
  fail "alice's socket did not print the message: $(cat "$work/ws.out")"
echo "readme_try_it: the Try it blocks work as written (SSE, scheduled, paced, long-poll; then WebSocket message $id)"
