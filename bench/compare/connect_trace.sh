#!/usr/bin/env bash
# What a WebSocket connect costs the server in system calls, counted (docs/performance.md, section
# 16, "The connect path, second pass"): N idle WebSockets connect at 2,000/s (ringcast-load, as
# compare.sh drives it) while `perf trace -s` counts every system call of the server's processes
# and threads; the trace stops once every client is connected, before any of them leaves. Printed:
# calls per connect by system call, and epoll_wait returns (the loops' wake-ups) per connect.
#
#   bench/compare/connect_trace.sh [--clients 1000] [--build DIR] [--out DIR] KIND...
# KIND: ringcast (DIR/server/ringcast), nchan (nginx + Nchan, two workers), floor (the bare
# sender), or a path to another ringcast binary.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build-release
clients=1000
out=
kinds=()
while (($#)); do
  case $1 in
    --clients) clients=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) kinds+=("$1"); shift ;;
  esac
done
((${#kinds[@]})) || { echo "connect_trace.sh: name at least one KIND" >&2; exit 2; }
load=$build/loadtest/ringcast-load
work=$(mktemp -d /tmp/ringcast-trace.XXXXXX)
chmod 755 "$work"
out=${out:-$work}
mkdir -p "$out"
source "$root/loadtest/server_process.sh"
server_pid= trace_pid= load_pid=
cleanup() {
  [[ -n $trace_pid ]] && kill -INT "$trace_pid" 2>/dev/null
  [[ -n $load_pid ]] && kill -TERM -- "-$load_pid" 2>/dev/null
  stop_server || true
  [[ $out == "$work" ]] || rm -rf "$work"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)"
token=trace-$RANDOM$RANDOM

start_server() {  # start_server KIND LOG: sets server_pid, port, pids, load_kind
  local kind=$1 log=$2
  load_kind=ringcast
  case $kind in
    nchan)
      local dir=$work/nginx
      rm -rf "$dir" && mkdir -p "$dir/tmp" && chmod 777 "$dir/tmp"
      port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
      sed -e "s|@DIR@|$dir|g" -e "s|@PORT@|$port|g" -e "s|@SSL@||" -e "s|@TLS_FILES@||" \
        "$here/nginx-nchan.conf.in" >"$dir/nginx.conf"
      /usr/sbin/nginx -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' 2>"$log" &
      server_pid=$!
      for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/ready" >/dev/null 2>&1 && break; sleep 0.1; done
      sleep 0.3
      pids=$(pgrep -P "$server_pid" | paste -sd, -)  # the workers (the master accepts nothing)
      load_kind=nchan
      ;;
    floor)
      RINGCAST_ADMIN_TOKEN=$token start_ringcast "$log" "$build/bench/ringcast-bare-sender"
      pids=$server_pid
      ;;
    *)
      local binary=$build/server/ringcast
      [[ $kind == ringcast ]] || binary=$kind
      RINGCAST_ADMIN_TOKEN=$token start_ringcast "$log" "$binary" --threads 2 \
        --max-connections-per-ip 0 --max-connections 19000 --idle-timeout 10m --session-ttl 10m \
        --drain 0
      pids=$server_pid
      ;;
  esac
}

for kind in "${kinds[@]}"; do
  name=$(basename "$kind")
  start_server "$kind" "$out/$name.server.log"
  perf trace -s -p "$pids" -o "$out/$name.trace" 2>"$out/$name.perf.log" &
  trace_pid=$!
  sleep 1  # perf attaches
  : >"$out/$name.load.log"
  RINGCAST_ADMIN_TOKEN=$token setsid "$load" --server-kind "$load_kind" --target "127.0.0.1:$port" \
    --clients "$clients" --mix ws --idle 100 --rate 2000 --procs 2 --publish-rate 0 \
    --warmup 30s --duration 60s >/dev/null 2>"$out/$name.load.log" &
  load_pid=$!
  deadline=$((SECONDS + 60))
  until grep -q "connected $clients/$clients" "$out/$name.load.log" || ((SECONDS > deadline)); do
    sleep 0.05
  done
  kill -INT "$trace_pid"
  wait "$trace_pid" 2>/dev/null || true
  trace_pid=
  kill -TERM -- "-$load_pid" 2>/dev/null || true
  wait "$load_pid" 2>/dev/null || true
  load_pid=
  stop_server || true
  echo "connect_trace.sh: $name, $clients clients; $(uptime | sed 's/.*load average/load average/')"
  # perf drops events when a thread outruns its buffer: such a count is too low (rerun it).
  grep -i lost "$out/$name.perf.log" "$out/$name.trace" 2>/dev/null | sed 's/^/  perf: /' || true
  python3 - "$out/$name.trace" "$clients" <<'EOF'
import collections, re, sys
calls = collections.Counter()
for line in open(sys.argv[1]):
    m = re.match(r"\s+(\w+)\s+(\d+)\s+(\d+)\s+[\d.]+", line)
    if m and m.group(1) != "syscall":
        calls[m.group(1)] += int(m.group(2))
n = int(sys.argv[2])
total = sum(calls.values())
print(f"  all system calls: {total / n:.2f} per connect ({total})")
for name, count in calls.most_common():
    if count / n >= 0.05:
        print(f"  {name:16} {count / n:6.2f}")
EOF
  sleep 1
done
