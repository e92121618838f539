#!/usr/bin/env bash
# README's "Try it", command by command, against the built server (on a free port instead of
# 8080, and the binary instead of scripts/run.sh, which would build a release copy first): the
# python3-websockets client gets the publish curl sends, curl -N gets it over SSE, and the poll
# with `since` returns it. A README edit that breaks one of these commands fails here.
# Usage: tests/scripts/readme_try_it.sh RINGCAST_BINARY
set -euo pipefail
server_bin=$1
readme="$(dirname "$0")/../../README.md"
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "readme_try_it: $*" >&2
  exit 1
}

# The commands this test runs must still be the README's.
for command in "python3 -m websockets 'ws://127.0.0.1:8080/ws?user=alice&channels=haier'" \
  "curl -H 'Authorization: Bearer s3cret' \\" \
  "curl -N 'http://127.0.0.1:8080/sse?user=bob'" \
  "curl 'http://127.0.0.1:8080/poll?user=carol&since="; do
  grep -qF -- "$command" "$readme" || fail "README's Try it no longer has: $command"
done

"$server_bin" --listen 127.0.0.1:0 --admin-token s3cret 2>"$work/server.log" &
pids+=($!)
for _ in $(seq 100); do
  port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$work/server.log")
  [[ -n $port ]] && break
  sleep 0.05
done
[[ -n ${port:-} ]] || fail "the server did not start: $(cat "$work/server.log")"
base=127.0.0.1:$port

# Debian's interactive client exits when its input ends: keep its input open.
sleep 30 | /usr/bin/python3 -m websockets "ws://$base/ws?user=alice&channels=haier" >"$work/ws.out" 2>&1 &
pids+=($!)
curl -sN --max-time 10 "http://$base/sse?user=bob" >"$work/sse.out" &
pids+=($!)
for _ in $(seq 100); do
  grep -q '"type":"hello"' "$work/ws.out" 2>/dev/null && grep -q 'event: hello' "$work/sse.out" && break
  sleep 0.05
done
grep -q '"type":"hello"' "$work/ws.out" || fail "no hello on the WebSocket: $(cat "$work/ws.out")"

reply=$(curl -s -H 'Authorization: Bearer s3cret' \
  -d '{"data":{"title":"Spring sale","text":"-20% on everything"}}' \
  "http://$base/admin/publish")
[[ $reply =~ ^\{\"id\":([0-9]+),\"recipients\":2\}$ ]] || fail "publish answered: $reply"
id=${BASH_REMATCH[1]}
for _ in $(seq 100); do
  grep -q "\"id\":$id" "$work/ws.out" && grep -q "^id: $id" "$work/sse.out" && break
  sleep 0.05
done
grep -q "{\"type\":\"message\",\"id\":$id,\"channel\":\"\*\",.*\"data\":{\"title\":\"Spring sale\"" "$work/ws.out" ||
  fail "alice's socket did not print the message: $(cat "$work/ws.out")"
grep -q "^id: $id" "$work/sse.out" || fail "bob's SSE did not get it: $(cat "$work/sse.out")"
poll=$(curl -s --max-time 10 "http://$base/poll?user=carol&since=$((id - 1))")
[[ $poll == *"\"id\":$id"* && $poll == *'"Spring sale"'* ]] || fail "carol's poll: $poll"
echo "readme_try_it: the Try it commands work (message $id over WebSocket, SSE and long-poll)"
