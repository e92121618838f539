#!/usr/bin/env bash
# docs/loadtest.md, "Example runs": the line that finds the server's PID for --server-pid, run as
# written (its port 8080 changed to the first server's) while two servers run: it must give the
# one PID of the server on that port (`pidof ringcast` gave both, which --server-pid cannot take).
#   tests/loadtest/docs_server_pid.sh <ringcast binary>
set -euo pipefail

server=${1:?usage: docs_server_pid.sh <ringcast>}
doc="$(dirname "${BASH_SOURCE[0]}")/../../docs/loadtest.md"
work=$(mktemp -d /tmp/ringcast-docs-pid.XXXXXX)
source "$(dirname "${BASH_SOURCE[0]}")/../../loadtest/server_process.sh"
first_pid= second_pid=
cleanup() {
  server_pid=$second_pid stop_server || true
  server_pid=$first_pid stop_server || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "docs_server_pid: $*" >&2
  exit 1
}

line=$(sed -n '/^## Example runs/,/^## /p' "$doc" | grep -m1 '^server=') ||
  fail "no 'server=…' line in docs/loadtest.md's Example runs"
grep -q -- '--server-pid "\$server"' "$doc" || fail "the examples do not pass --server-pid \"\$server\""
! grep -q 'pidof ringcast)' "$doc" || fail "an example still gives --server-pid \$(pidof ringcast)"

RINGCAST_ADMIN_TOKEN=docs start_ringcast "$work/first.log" "$server" --drain 0
first_pid=$server_pid first_port=$port
RINGCAST_ADMIN_TOKEN=docs start_ringcast "$work/second.log" "$server" --drain 0
second_pid=$server_pid
found=$(bash -c "${line//:8080/:$first_port}; echo \"\$server\"")
[[ $found == "$first_pid" ]] || fail "'$line' gave '$found', not the first server's PID $first_pid"
echo "docs_server_pid: the example's --server-pid is the one server on the port ($found)"
