# Sourced by the scripts that run a server under load (loadtest/run.sh and cluster.sh,
# tests/loadtest/e2e.sh, bench/compare/compare.sh): start ringcast on a free loopback port, and
# stop a server.

# start_ringcast LOG BINARY [FLAGS...]: runs BINARY --listen 127.0.0.1:0 FLAGS (stderr to LOG,
# RINGCAST_ADMIN_TOKEN passed on) and waits for its "listening on" line. Sets server_pid and port;
# on failure prints the log and returns 1.
start_ringcast() {
  local log=$1 binary=$2
  shift 2
  # The log exists before the first look at it (the background shell opens it when it gets to it).
  : >"$log"
  "$binary" --listen 127.0.0.1:0 "$@" 2>"$log" &
  server_pid=$!
  server_log=$log
  port=
  for _ in $(seq 300); do
    port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$log")
    [[ -n $port ]] && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  cat "$log" >&2
  return 1
}

# stop_server: SIGTERM to server_pid, up to RINGCAST_STOP_WAIT_S (20) s to drain and exit, then
# SIGKILL. Succeeds only when the server exited by itself with status 0 and its log has no
# sanitizer report. Killed by that SIGTERM (143: it never drained), by the SIGKILL, or by anything
# else fails, and says so.
stop_server() {
  [[ -n ${server_pid:-} ]] || return 0
  local killed=0
  if kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    local deadline=$((SECONDS + ${RINGCAST_STOP_WAIT_S:-20}))
    while kill -0 "$server_pid" 2>/dev/null && ((SECONDS < deadline)); do
      sleep 0.1
    done
    if kill -0 "$server_pid" 2>/dev/null; then
      kill -KILL "$server_pid" 2>/dev/null || true
      killed=1
    fi
  fi
  local rc=0
  wait "$server_pid" 2>/dev/null || rc=$?
  server_pid=
  local ok=1
  if ((killed)); then
    echo "stop_server: the server did not exit within ${RINGCAST_STOP_WAIT_S:-20} s of SIGTERM; killed" >&2
    ok=0
  elif ((rc != 0)); then
    echo "stop_server: the server exited with status $rc$( ((rc > 128)) && echo " (signal $((rc - 128)))")" >&2
    ok=0
  fi
  if [[ -n ${server_log:-} && -f $server_log ]] &&
    grep -E 'ERROR: (Address|Leak|Memory)Sanitizer|WARNING: ThreadSanitizer|runtime error:' \
      "$server_log" >&2; then
    echo "stop_server: sanitizer report in $server_log" >&2
    ok=0
  fi
  ((ok))
}

# use_scratch_dir NAME: sets work to a new directory /tmp/ringcast-NAME.XXXXXX; when the script
# exits, the server it started (if any) is stopped and the directory removed. INT and TERM exit 130.
use_scratch_dir() {
  work=$(mktemp -d "/tmp/ringcast-$1.XXXXXX")
  server_pid=
  trap 'stop_server || true; rm -rf "$work"' EXIT
  trap 'exit 130' INT TERM
}
