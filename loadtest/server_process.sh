# Sourced by the scripts that run a server under load (loadtest/run.sh, tests/loadtest/e2e.sh,
# bench/compare/compare.sh): start ringcast on a free loopback port, and stop a server.

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

# stop_server: SIGTERM to server_pid, up to 20 s to drain and exit, then SIGKILL. Succeeds when it
# exited with status 0 or died of that SIGTERM (143); anything else (an abort, the kill) fails.
stop_server() {
  [[ -n ${server_pid:-} ]] || return 0
  if kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 100); do
      kill -0 "$server_pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -KILL "$server_pid" 2>/dev/null || true
  fi
  local rc=0
  wait "$server_pid" 2>/dev/null || rc=$?
  server_pid=
  ((rc == 0 || rc == 143))
}
