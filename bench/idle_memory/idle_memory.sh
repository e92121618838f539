#!/usr/bin/env bash
# What one idle connection costs the server, per transport (docs/performance.md, "What an idle
# connection holds"): for each binary and each transport in turn, a fresh server on loopback
# (two threads, compare.sh's flags), N clients of that transport connecting at a paced 2,000/s
# through ringcast-load, nothing published; 3 s after the last one connected, the server's RSS
# and PSS against before the first, and glibc's own count of heap bytes in use (malloc_stats,
# called with gdb; --no-heap skips it). ws: WebSockets that never send; sse: event streams; poll:
# long-polls held by the server (each client's first poll is answered at once, the next is held).
#
#   bench/idle_memory/idle_memory.sh [--clients 5000] [--transports ws,sse,poll] [--repeats 1]
#                                    [--build DIR] [--no-heap] BINARY...
# BINARY: ringcast builds to compare (Release); --build: the tree whose ringcast-load is used.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build-release
clients=5000
transports=ws,sse,poll
repeats=1
heap=1
binaries=()
while (($#)); do
  case $1 in
    --clients) clients=$2 && shift ;;
    --transports) transports=$2 && shift ;;
    --repeats) repeats=$2 && shift ;;
    --build) build=$2 && shift ;;
    --no-heap) heap=0 ;;
    -h | --help)
      sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    -*)
      echo "idle_memory.sh: unknown flag '$1'" >&2
      exit 2
      ;;
    *) binaries+=("$1") ;;
  esac
  shift
done
((${#binaries[@]})) || { echo "idle_memory.sh: no ringcast binary given" >&2; exit 2; }
load=$build/loadtest/ringcast-load
[[ -x $load ]] || { echo "idle_memory.sh: $load not built (ninja -C $build ringcast-load)" >&2; exit 1; }
((heap)) && ! command -v gdb >/dev/null && { echo "idle_memory.sh: gdb not found (or --no-heap)" >&2; exit 1; }

work=$(mktemp -d /tmp/ringcast-idle-memory.XXXXXX)
server_pid=
load_pid=
source "$root/loadtest/server_process.sh"
cleanup() {
  [[ -n $load_pid ]] && kill -TERM -- "-$load_pid" 2>/dev/null
  stop_server >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ulimit -n "$(ulimit -Hn)"

memory_kb() {  # PSS and RSS of process $1, KB
  awk '/^Pss:/{p=$2} /^Rss:/{r=$2} END{print p, r}' "/proc/$1/smaps_rollup"
}
# glibc's "in use bytes" over every arena (malloc_stats writes to the server's stderr).
heap_in_use() {
  local log=$1 before
  before=$(wc -l <"$log")
  gdb -p "$server_pid" -batch -ex 'call (void) malloc_stats()' >/dev/null 2>&1 || return 0
  tail -n "+$((before + 1))" "$log" | awk '/^Total \(incl. mmap\):/{t=1} t && /in use bytes/{print $NF; exit}'
}

token=idle-memory-$RANDOM$RANDOM
printf '| binary | transport | clients | connected | RSS B/conn | PSS B/conn | heap in use B/conn |\n'
printf '|---|---|---:|---:|---:|---:|---:|\n'
IFS=, read -ra transport_list <<<"$transports"
for ((r = 1; r <= repeats; r++)); do
  for transport in "${transport_list[@]}"; do
    for binary in "${binaries[@]}"; do
      log=$work/server.log
      RINGCAST_ADMIN_TOKEN=$token start_ringcast "$log" "$binary" --threads 2 \
        --max-connections-per-ip 0 --max-connections 19000 --idle-timeout 10m --session-ttl 10m \
        --poll-timeout 120 --drain 0
      sleep 1
      read -r pss0 rss0 < <(memory_kb "$server_pid")
      heap0=
      ((heap)) && heap0=$(heap_in_use "$log")
      RINGCAST_ADMIN_TOKEN=$token setsid "$load" --target "127.0.0.1:$port" --clients "$clients" \
        --mix "$transport" --idle 100 --rate 2000 --procs 2 --publish-rate 1 --warmup 10m \
        --duration 11m >/dev/null 2>"$work/load.log" &
      load_pid=$!
      deadline=$((SECONDS + 120))
      until grep -q "connected $clients/$clients" "$work/load.log" || ((SECONDS > deadline)); do
        sleep 0.5
      done
      sleep 3
      connected=$(grep -o 'connected [0-9]*/' "$work/load.log" | tail -1 | tr -dc 0-9)
      connected=${connected:-0}
      read -r pss1 rss1 < <(memory_kb "$server_pid")
      heap1=
      ((heap)) && heap1=$(heap_in_use "$log")
      kill -TERM -- "-$load_pid" 2>/dev/null || true
      wait "$load_pid" 2>/dev/null || true
      load_pid=
      stop_server >/dev/null 2>&1 || echo "idle_memory.sh: $binary did not stop cleanly" >&2
      per() { ((connected)) && echo $(((($2 - $1) * ${3:-1024}) / connected)) || echo -; }
      heap_per=-
      [[ -n $heap0 && -n $heap1 ]] && heap_per=$(per "$heap0" "$heap1" 1)
      printf '| %s | %s | %d | %d | %s | %s | %s |\n' "$binary" "$transport" "$clients" "$connected" \
        "$(per "$rss0" "$rss1")" "$(per "$pss0" "$pss1")" "$heap_per"
      sleep 1
    done
  done
done
