#!/usr/bin/env bash
# ringcast against nginx + Nchan and against the physical floor on one broadcast scenario, same
# load tool, in one run (docs/performance.md). The floor is ringcast-bare-sender
# (bench/compare/bare_sender.cpp): one thread that writes the same frame ringcast would send with
# one send() per connection and does nothing else. For each size, each server is started fresh on
# loopback, measured with ringcast-load and stopped:
#   WebSocket clients that never send (--idle 100), one broadcast channel, a steady publish rate.
# Reported per server: memory per idle connection (RSS and PSS summed over all its processes,
# after the clients connected vs before, no message sent yet), server CPU per broadcast, time for
# a broadcast to reach every client (p50, max), delivery latency p99, lost and duplicate messages.
#
#   bench/compare/compare.sh [--sizes 1000,5000,15000] [--publish-rate 5] [--publish-for 20]
#                            [--out DIR] [--build DIR]
# The markdown tables (ratios ringcast/Nchan, ringcast/floor, Nchan/floor) go to stdout; every raw
# JSON report to --out.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build-release  # the one Release tree (scripts/run.sh)
sizes=1000,5000,15000
publish_rate=5
publish_for=20 # seconds of publishing per run
out=
while (($#)); do
  case $1 in
    --sizes) sizes=$2 ;;
    --publish-rate) publish_rate=$2 ;;
    --publish-for) publish_for=$2 ;;
    --out) out=$2 ;;
    --build) build=$2 ;;
    -h | --help)
      sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "compare.sh: unknown argument '$1'" >&2
      exit 2
      ;;
  esac
  shift 2
done

nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x $nginx_bin ]] || { echo "compare.sh: nginx not found (apt-get install nginx libnginx-mod-nchan)" >&2; exit 1; }
[[ -f /usr/lib/nginx/modules/ngx_nchan_module.so ]] || { echo "compare.sh: libnginx-mod-nchan is not installed" >&2; exit 1; }

if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRINGCAST_BUILD_TESTS=OFF \
    -DRINGCAST_BUILD_BENCH=ON >&2
elif ! grep -q 'ringcast-bare-sender' "$build/build.ninja"; then
  cmake -S "$root" -B "$build" -DRINGCAST_BUILD_BENCH=ON >&2 # the bare sender is a bench target
fi
ninja -C "$build" ringcast ringcast-load ringcast-bare-sender >&2
ringcast=$build/server/ringcast
load=$build/loadtest/ringcast-load
bare_sender=$build/bench/ringcast-bare-sender

work=$(mktemp -d /tmp/ringcast-compare.XXXXXX)
chmod 755 "$work"
out=${out:-$work/results}
mkdir -p "$out"
server_pid=

source "$root/loadtest/server_process.sh"
cleanup() {
  stop_server || true
  # Keep the results when they were written inside the scratch directory.
  if [[ $out == "$work/results" ]]; then
    echo "compare.sh: raw reports in $out" >&2
    find "$work" -mindepth 1 -maxdepth 1 ! -name results -exec rm -rf {} +
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ulimit -n "$(ulimit -Hn)"

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Sets server_pid, port and pids (every process of the server, comma separated).
start_ringcast_server() {
  RINGCAST_ADMIN_TOKEN=$token start_ringcast "$out/ringcast-$n.server.log" "$ringcast" \
    --threads 2 --max-connections-per-ip 0 --max-connections 19000 --idle-timeout 10m --session-ttl 10m --drain 0 || return 1
  pids=$server_pid
}

# The floor: one thread, no flags to match (it has no timeouts, history or limits).
start_floor_server() {
  RINGCAST_ADMIN_TOKEN=$token start_ringcast "$out/floor-$n.server.log" "$bare_sender" || return 1
  pids=$server_pid
}

start_nchan_server() {
  local dir=$work/nginx
  rm -rf "$dir"
  mkdir -p "$dir/tmp"
  chmod 777 "$dir/tmp"
  port=$(free_port)
  sed -e "s|@DIR@|$dir|g" -e "s|@PORT@|$port|g" "$here/nginx-nchan.conf.in" >"$dir/nginx.conf"
  "$nginx_bin" -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' 2>"$dir/stderr.log" &
  server_pid=$!
  for _ in $(seq 100); do
    curl -fs "http://127.0.0.1:$port/ready" >/dev/null 2>&1 && break
    sleep 0.1
  done
  curl -fs "http://127.0.0.1:$port/ready" >/dev/null || { cat "$dir/stderr.log" "$dir/error.log" >&2; return 1; }
  # The master and its workers (children of the process started here).
  local workers
  for _ in $(seq 50); do
    workers=$(pgrep -P "$server_pid" | paste -sd, -)
    [[ $(tr ',' '\n' <<<"$workers" | grep -c .) -ge 2 ]] && break
    sleep 0.1
  done
  pids=$server_pid,$workers
}

token=compare-$RANDOM$RANDOM
IFS=, read -ra size_list <<<"$sizes"
for n in "${size_list[@]}"; do
  # Ramp at 2000 connects/s, then 5 s for everyone to settle before the first publish.
  warmup=$(((n + 1999) / 2000 + 5))
  for kind in ringcast nchan floor; do
    "start_${kind}_server"
    echo "compare.sh: $kind $n clients (pids $pids, port $port); $(uptime | sed 's/.*load average/load average/')" >&2
    uptime >"$out/$kind-$n.uptime"
    status=0
    # The bare sender speaks ringcast's protocol: the load tool drives it as ringcast.
    load_kind=$kind
    [[ $kind == floor ]] && load_kind=ringcast
    RINGCAST_ADMIN_TOKEN=$token timeout 300 "$load" --server-kind "$load_kind" --target "127.0.0.1:$port" \
      --server-pid "$pids" --clients "$n" --mix ws --idle 100 --rate 2000 --procs 2 \
      --publish-rate "$publish_rate" --warmup "${warmup}s" --duration "$((warmup + publish_for))s" \
      --settle 3s >"$out/$kind-$n.json" 2>"$out/$kind-$n.log" || status=$?
    tail -n 9 "$out/$kind-$n.log" >&2
    ((status == 0)) || echo "compare.sh: $kind $n: ringcast-load exited $status" >&2
    kill -0 "$server_pid" 2>/dev/null || echo "compare.sh: $kind $n: the server died during the run" >&2
    stop_server || echo "compare.sh: $kind $n: the server did not stop cleanly" >&2
    sleep 2 # let the TIME_WAIT sockets and the other server's memory settle
  done
done

python3 "$here/table.py" "$out" "$sizes"
