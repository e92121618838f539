#!/usr/bin/env bash
# ringcast against nginx + Nchan and against the physical floor on one broadcast scenario, same
# load tool, in one run (docs/performance.md, section 2). The floor is ringcast-bare-sender
# (bench/compare/bare_sender.cpp): one thread that writes the same frame ringcast would send with
# one send() per connection and does nothing else; it is measured before and after the servers.
# For each size and repeat, in turn: the floor, ringcast (and --before's binary), nginx + Nchan,
# the floor again, each started fresh on loopback, measured with ringcast-load and stopped:
#   WebSocket clients that never send (--idle 100), connecting at a paced 2,000/s, one broadcast
#   channel, a steady publish rate.
# Reported per run: memory per idle connection (RSS and PSS summed over all its processes, after
# the clients connected vs before, no message sent yet), server CPU per delivery and its ratio
# to the floor's (the mean of the floor before and after), handshake time at the client (TCP
# connect to the first server message: p50, p99), the time for a broadcast to reach its last
# client (p50 over broadcasts) against the issue-40 limit 1.2 × N × floor ÷ 2 loops, lost.
# --doors adds the two doors of the same binary side by side (issue 38): ringcast WebSocket clients
# joined to channel "sale" in their URL (ringcast_channel) and Pusher clients (pusher-js's frames,
# the load tool's Pusher mode) subscribed to it (pusher), the publishes going to that channel.
# --tls-sizes adds the TLS leg: PSS and RSS per idle WSS (wss://, P-256 certificate), ringcast
# against nginx + Nchan over TLS, sampled once every client has connected.
#
#   bench/compare/compare.sh [--sizes 1000,5000,15000] [--repeats 1] [--publish-rate 5]
#                            [--publish-for 20] [--tls-sizes 5000] [--before BINARY]
#                            [--doors] [--arrival read|kernel] [--smoke] [--out DIR]
#                            [--build DIR] [--no-build]
# --before BINARY: another ringcast binary (the build before a change) measured beside this one.
# --arrival kernel: the last delivery is when the bytes reached each client's socket (the kernel's
# receive time), the clients at idle priority while publishing (ringcast-load --arrival).
# --sizes '' with --tls-sizes: the TLS leg alone.
# --smoke: the CI figure (scripts/test.sh, CTest compare_smoke): 500 clients, 40 broadcasts, no
# TLS leg, Nchan only if its module is installed; about 25 s.
# The markdown tables go to stdout and to table.md in --out, with every raw JSON report.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build-release  # the one Release tree (scripts/run.sh)
sizes=1000,5000,15000
repeats=1
publish_rate=5
publish_for=20 # seconds of publishing per run
tls_sizes=
before=
arrival=read
smoke=0
doors=0
build_it=1
out=
while (($#)); do
  case $1 in
    --sizes) sizes=$2 ;;
    --repeats) repeats=$2 ;;
    --publish-rate) publish_rate=$2 ;;
    --publish-for) publish_for=$2 ;;
    --tls-sizes) tls_sizes=$2 ;;
    --before) before=$2 ;;
    --arrival) arrival=$2 ;;
    --out) out=$2 ;;
    --build) build=$2 ;;
    --smoke | --no-build | --doors)
      case $1 in --smoke) smoke=1 ;; --no-build) build_it=0 ;; --doors) doors=1 ;; esac
      shift
      continue
      ;;
    -h | --help)
      sed -n '2,31p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "compare.sh: unknown argument '$1'" >&2
      exit 2
      ;;
  esac
  shift 2
done

# Phases in seconds: settle before the first publish (after the paced ramp), after the last,
# and between two servers (TIME_WAIT sockets and the other server's memory).
settle_before=5 settle_after=3 pause=2
if ((smoke)); then
  sizes=500 repeats=1 publish_rate=20 publish_for=2 tls_sizes=
  settle_before=1 settle_after=1 pause=0.5
fi

nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
nchan=1
if [[ ! -x $nginx_bin || ! -f /usr/lib/nginx/modules/ngx_nchan_module.so ]]; then
  ((smoke)) || { echo "compare.sh: nginx + Nchan not found (apt-get install nginx libnginx-mod-nchan)" >&2; exit 1; }
  nchan=0
  echo "compare.sh: nginx + Nchan not installed: its rows are skipped" >&2
fi

if ((build_it)); then
  if [[ ! -f $build/build.ninja ]]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRINGCAST_BUILD_TESTS=OFF \
      -DRINGCAST_BUILD_BENCH=ON >&2
  elif ! grep -q 'ringcast-bare-sender' "$build/build.ninja"; then
    cmake -S "$root" -B "$build" -DRINGCAST_BUILD_BENCH=ON >&2 # the bare sender is a bench target
  fi
  ninja -C "$build" ringcast ringcast-load ringcast-bare-sender >&2
fi
ringcast=$build/server/ringcast
load=$build/loadtest/ringcast-load
bare_sender=$build/bench/ringcast-bare-sender

work=$(mktemp -d /tmp/ringcast-compare.XXXXXX)
chmod 755 "$work"
out=${out:-$work/results}
mkdir -p "$out"
server_pid=
load_pid=

source "$root/loadtest/server_process.sh"
cleanup() {
  [[ -n $load_pid ]] && kill -TERM -- "-$load_pid" 2>/dev/null
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

# A P-256 certificate for 127.0.0.1, as docs/security.md makes one (the TLS leg only).
cert=$work/cert.pem key=$work/key.pem
if [[ -n $tls_sizes ]]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$key" -out "$cert" 2>/dev/null
fi

# start_KIND_server LOG [tls]: sets server_pid, port and pids (every process of the server,
# comma separated). --max-connections: every client of the largest size (19,900 with the hard
# limit of 20,000 descriptors this machine gives), with room for the server's own descriptors.
ringcast_flags=(--threads 2 --max-connections-per-ip 0 --max-connections "$(($(ulimit -n) - 64))"
  --idle-timeout 10m --session-ttl 10m --drain 0)
start_ringcast_server() {
  local tls=()
  [[ ${2:-} == tls ]] && tls=(--tls-cert "$cert" --tls-key "$key")
  RINGCAST_ADMIN_TOKEN=$token start_ringcast "$1" "$ringcast" "${ringcast_flags[@]}" "${tls[@]}" || return 1
  pids=$server_pid
}
start_ringcast_before_server() {
  local tls=()
  [[ ${2:-} == tls ]] && tls=(--tls-cert "$cert" --tls-key "$key")
  RINGCAST_ADMIN_TOKEN=$token start_ringcast "$1" "$before" "${ringcast_flags[@]}" "${tls[@]}" || return 1
  pids=$server_pid
}

# The same binary with its Pusher door open, for both rows of --doors.
pusher_app=(--pusher-app-id compare --pusher-key compare-key --pusher-secret compare-secret)
start_ringcast_channel_server() {
  RINGCAST_ADMIN_TOKEN=$token start_ringcast "$1" "$ringcast" "${ringcast_flags[@]}" "${pusher_app[@]}" || return 1
  pids=$server_pid
}
start_pusher_server() { start_ringcast_channel_server "$@"; }

# The floor: one thread, no flags to match (it has no timeouts, history or limits).
start_floor_server() {
  RINGCAST_ADMIN_TOKEN=$token start_ringcast "$1" "$bare_sender" || return 1
  pids=$server_pid
}

start_nchan_server() {
  local dir=$work/nginx ssl= tls_files=
  if [[ ${2:-} == tls ]]; then
    ssl=ssl
    tls_files="ssl_certificate $cert; ssl_certificate_key $key;"
  fi
  rm -rf "$dir"
  mkdir -p "$dir/tmp"
  chmod 777 "$dir/tmp"
  port=$(free_port)
  sed -e "s|@DIR@|$dir|g" -e "s|@PORT@|$port|g" -e "s|@SSL@|$ssl|" -e "s|@TLS_FILES@|$tls_files|" \
    "$here/nginx-nchan.conf.in" >"$dir/nginx.conf"
  "$nginx_bin" -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' 2>"$dir/stderr.log" &
  server_pid=$!
  local scheme=http
  [[ -n $ssl ]] && scheme=https
  for _ in $(seq 100); do
    curl -kfs "$scheme://127.0.0.1:$port/ready" >/dev/null 2>&1 && break
    sleep 0.1
  done
  curl -kfs "$scheme://127.0.0.1:$port/ready" >/dev/null || { cat "$dir/stderr.log" "$dir/error.log" >&2; return 1; }
  # The master and its workers (children of the process started here).
  local workers
  for _ in $(seq 50); do
    workers=$(pgrep -P "$server_pid" | paste -sd, -)
    [[ $(tr ',' '\n' <<<"$workers" | grep -c .) -ge 2 ]] && break
    sleep 0.1
  done
  pids=$server_pid,$workers
}

# The broadcast run: ringcast-load's JSON report to $out/KIND-N-REPEAT.json.
broadcast_run() {  # broadcast_run KIND N REPEAT
  local kind=$1 n=$2 r=$3 name=$1-$2-$3
  "start_${kind}_server" "$out/$name.server.log"
  echo "compare.sh: $name (pids $pids, port $port); $(uptime | sed 's/.*load average/load average/')" >&2
  uptime >"$out/$name.uptime"
  # Ramp at 2000 connects/s, then settle before the first publish.
  local warmup_ms=$(((n * 1000 + 1999) / 2000 + ${settle_before%.*} * 1000))
  local status=0
  # The bare sender speaks ringcast's protocol: the load tool drives it as ringcast.
  local load_kind=ringcast door=()
  [[ $kind == nchan ]] && load_kind=nchan
  [[ $kind == ringcast_channel ]] && door=(--channel sale)
  [[ $kind == pusher ]] && load_kind=pusher door=(--channel sale --pusher-key compare-key)
  RINGCAST_ADMIN_TOKEN=$token timeout 300 "$load" --server-kind "$load_kind" "${door[@]}" \
    --target "127.0.0.1:$port" --server-pid "$pids" --clients "$n" --mix ws --idle 100 --rate 2000 --procs 2 \
    --publish-rate "$publish_rate" --warmup "${warmup_ms}ms" \
    --duration "$((warmup_ms + publish_for * 1000))ms" \
    --settle "${settle_after}s" --arrival "$arrival" >"$out/$name.json" 2>"$out/$name.log" || status=$?
  tail -n 10 "$out/$name.log" >&2
  ((status == 0)) || echo "compare.sh: $name: ringcast-load exited $status" >&2
  kill -0 "$server_pid" 2>/dev/null || echo "compare.sh: $name: the server died during the run" >&2
  stop_server || echo "compare.sh: $name: the server did not stop cleanly" >&2
  sleep "$pause"
}

# Kilobytes of PSS and RSS summed over the comma-separated pids.
memory_kb() {
  local pss=0 rss=0 pid
  for pid in ${1//,/ }; do
    read -r p r < <(awk '/^Pss:/{p=$2} /^Rss:/{r=$2} END{print p, r}' "/proc/$pid/smaps_rollup")
    pss=$((pss + p)) rss=$((rss + r))
  done
  echo "$pss $rss"
}

# The TLS leg: N idle WSS connected at 2,000/s; memory sampled before, and 3 s after the last
# client connected (however long the handshakes took on a busy machine), to
# $out/KIND-N-REPEAT.tls.json.
tls_idle_run() {  # tls_idle_run KIND N REPEAT
  local kind=$1 n=$2 r=$3 name=$1-tls-$2-$3
  "start_${kind}_server" "$out/$name.server.log" tls
  local base connected
  base=$(memory_kb "$pids")
  local load_kind=ringcast
  [[ $kind == nchan ]] && load_kind=nchan
  # Its own process group: the load tool's workers are stopped with it.
  RINGCAST_ADMIN_TOKEN=$token setsid "$load" --tls --server-kind "$load_kind" --target "127.0.0.1:$port" \
    --clients "$n" --mix ws --idle 100 --rate 2000 --procs 2 --publish-rate 1 --warmup 10m \
    --duration 11m >/dev/null 2>"$out/$name.log" &
  load_pid=$!
  local deadline=$((SECONDS + 120))
  until grep -q "connected $n/$n" "$out/$name.log" || ((SECONDS > deadline)); do sleep 0.5; done
  sleep 3
  connected=$(grep -o 'connected [0-9]*/' "$out/$name.log" | tail -1 | tr -dc 0-9)
  read -r pss1 rss1 < <(memory_kb "$pids")
  read -r pss0 rss0 <<<"$base"
  kill -TERM -- "-$load_pid" 2>/dev/null || true
  wait "$load_pid" 2>/dev/null || true
  load_pid=
  printf '{"kind":"%s","clients":%d,"connected":%d,"pss_base_kb":%d,"pss_connected_kb":%d,"rss_base_kb":%d,"rss_connected_kb":%d}\n' \
    "$kind" "$n" "${connected:-0}" "$pss0" "$pss1" "$rss0" "$rss1" >"$out/$name.tls.json"
  echo "compare.sh: $name: ${connected:-0} connected, PSS $pss0 -> $pss1 KB" >&2
  stop_server || echo "compare.sh: $name: the server did not stop cleanly" >&2
  sleep "$pause"
}

servers=(ringcast)
[[ -n $before ]] && servers=(ringcast_before ringcast)
((nchan)) && servers+=(nchan)
((doors)) && servers+=(ringcast_channel pusher)
token=compare-$RANDOM$RANDOM
IFS=, read -ra size_list <<<"$sizes"
IFS=, read -ra tls_list <<<"$tls_sizes"
for ((r = 1; r <= repeats; r++)); do
  for n in "${size_list[@]}"; do
    broadcast_run floor "$n" "$r"
    for kind in "${servers[@]}"; do broadcast_run "$kind" "$n" "$r"; done
    broadcast_run floor "$n" "$r-after"
  done
  for n in "${tls_list[@]}"; do
    for kind in "${servers[@]}"; do
      [[ $kind == ringcast_channel || $kind == pusher ]] || tls_idle_run "$kind" "$n" "$r"
    done
  done
done

python3 "$here/table.py" "$out" "$sizes" "$repeats" "$tls_sizes" "$arrival" | tee "$out/table.md"
