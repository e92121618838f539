#!/usr/bin/env bash
# Issue 29's benchmark (docs/performance.md, "Compression"): idle WebSocket clients that offer
# permessage-deflate, one broadcast channel, three realistic payloads (this directory: a 130 B
# promotion, a 400 B offer with URLs and prices, a 2 KB catalog update), against
#   ringcast-deflate  ringcast --compression on  (each message deflated once per node)
#   ringcast-plain    ringcast --compression off (the offer is refused: plain frames)
#   nchan-deflate     nginx + Nchan, nchan_deflate_message_for_websocket on
# Each server is started fresh for each client count and payload, measured with ringcast-load
# (--ws-deflate --payload FILE) and stopped. Reported: bytes on the wire per delivery (what the
# clients' sockets received, framing and compression included), server CPU per delivery, memory
# per idle connection (RSS and PSS after the clients connected vs before, nothing sent yet).
#
#   bench/compression/compression_bench.sh [--sizes 5000,15000]
#       [--payloads promo-130,offer-400,catalog-2k] [--publish-rate 1] [--publish-for 10]
#       [--settle 10]
#       [--out DIR] [--build DIR | --ringcast BIN --load BIN]
# The markdown table goes to stdout; every raw JSON report to --out. --ringcast and --load run
# binaries built already (nothing is built).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build-release  # the one Release tree (scripts/run.sh)
sizes=5000,15000
payloads=promo-130,offer-400,catalog-2k
# One broadcast a second: the load tool (two processes that inflate and parse every message) must
# keep up with 15,000 clients on a shared 2-core machine, or deliveries still in flight at the
# count show as lost and skew CPU per delivery.
publish_rate=1
publish_for=10 # seconds of publishing per run
settle=10      # seconds after publishing for late deliveries
out=
ringcast=
load=
while (($#)); do
  case $1 in
    --sizes) sizes=$2 ;;
    --payloads) payloads=$2 ;;
    --publish-rate) publish_rate=$2 ;;
    --publish-for) publish_for=$2 ;;
    --settle) settle=$2 ;;
    --out) out=$2 ;;
    --build) build=$2 ;;
    --ringcast) ringcast=$2 ;;
    --load) load=$2 ;;
    -h | --help)
      sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "compression_bench.sh: unknown argument '$1'" >&2
      exit 2
      ;;
  esac
  shift 2
done

nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x $nginx_bin ]] || { echo "compression_bench.sh: nginx not found (apt-get install nginx libnginx-mod-nchan)" >&2; exit 1; }
[[ -f /usr/lib/nginx/modules/ngx_nchan_module.so ]] || { echo "compression_bench.sh: libnginx-mod-nchan is not installed" >&2; exit 1; }

if [[ -z $ringcast || -z $load ]]; then
  if [[ ! -f $build/build.ninja ]]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRINGCAST_BUILD_TESTS=OFF \
      -DRINGCAST_BUILD_BENCH=OFF >&2
  fi
  ninja -C "$build" ringcast ringcast-load >&2
  ringcast=$build/server/ringcast
  load=$build/loadtest/ringcast-load
fi

work=$(mktemp -d /tmp/ringcast-compression.XXXXXX)
chmod 755 "$work"
out=${out:-$work/results}
mkdir -p "$out"
server_pid=

source "$root/loadtest/server_process.sh"
cleanup() {
  stop_server || true
  if [[ $out == "$work/results" ]]; then
    echo "compression_bench.sh: raw reports in $out" >&2
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

# Each sets server_pid, port and pids (every process of the server, comma separated).
start_ringcast_server() { # on|off
  RINGCAST_ADMIN_TOKEN=$token start_ringcast "$out/$name.server.log" "$ringcast" \
    --threads 2 --max-connections-per-ip 0 --max-connections 19000 --idle-timeout 10m --session-ttl 10m --drain 0 \
    --compression "$1" || return 1
  pids=$server_pid
}

# bench/compare's configuration (two workers, like --threads 2), with Nchan's deflate on: a
# message is deflated once when published and sent so to every client that negotiated it.
start_nchan_server() {
  local dir=$work/nginx
  rm -rf "$dir"
  mkdir -p "$dir/tmp"
  chmod 777 "$dir/tmp"
  port=$(free_port)
  sed -e "s|@DIR@|$dir|g" -e "s|@PORT@|$port|g" \
    -e 's|^\( *\)nchan_publisher http;|&\n\1nchan_deflate_message_for_websocket on;|' \
    "$root/bench/compare/nginx-nchan.conf.in" >"$dir/nginx.conf"
  grep -q nchan_deflate_message_for_websocket "$dir/nginx.conf"
  "$nginx_bin" -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' 2>"$dir/stderr.log" &
  server_pid=$!
  for _ in $(seq 100); do
    curl -fs "http://127.0.0.1:$port/ready" >/dev/null 2>&1 && break
    sleep 0.1
  done
  curl -fs "http://127.0.0.1:$port/ready" >/dev/null || { cat "$dir/stderr.log" "$dir/error.log" >&2; return 1; }
  local workers
  for _ in $(seq 50); do
    workers=$(pgrep -P "$server_pid" | paste -sd, -)
    [[ $(tr ',' '\n' <<<"$workers" | grep -c .) -ge 2 ]] && break
    sleep 0.1
  done
  pids=$server_pid,$workers
}

token=compression-$RANDOM$RANDOM
IFS=, read -ra size_list <<<"$sizes"
IFS=, read -ra payload_list <<<"$payloads"
for n in "${size_list[@]}"; do
  # Ramp at 3000 connects/s, then 5 s for everyone to settle before the first publish.
  warmup=$(((n + 2999) / 3000 + 5))
  for payload in "${payload_list[@]}"; do
    [[ -f $here/$payload.json ]] || { echo "compression_bench.sh: no $here/$payload.json" >&2; exit 2; }
    for kind in ringcast-deflate ringcast-plain nchan-deflate; do
      name=$kind-$n-$payload
      case $kind in
        ringcast-deflate) start_ringcast_server on ;;
        ringcast-plain) start_ringcast_server off ;;
        nchan-deflate) start_nchan_server ;;
      esac
      echo "compression_bench.sh: $name (pids $pids, port $port); $(uptime | sed 's/.*load average/load average/')" >&2
      uptime >"$out/$name.uptime"
      status=0
      RINGCAST_ADMIN_TOKEN=$token timeout 300 "$load" --server-kind "${kind%-*}" \
        --target "127.0.0.1:$port" --server-pid "$pids" --clients "$n" --mix ws --idle 100 \
        --rate 3000 --procs 2 --ws-deflate --payload "$here/$payload.json" \
        --publish-rate "$publish_rate" --warmup "${warmup}s" --duration "$((warmup + publish_for))s" \
        --settle "${settle}s" >"$out/$name.json" 2>"$out/$name.log" || status=$?
      grep -E '^  (ws wire|messages|server) ' "$out/$name.log" >&2 || true
      ((status == 0)) || echo "compression_bench.sh: $name: ringcast-load exited $status" >&2
      kill -0 "$server_pid" 2>/dev/null || echo "compression_bench.sh: $name: the server died during the run" >&2
      stop_server || echo "compression_bench.sh: $name: the server did not stop cleanly" >&2
      sleep 2 # let the TIME_WAIT sockets and the other server's memory settle
    done
  done
done

python3 "$here/table.py" "$out" "$sizes" "$payloads"
