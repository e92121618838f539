#!/usr/bin/env bash
# Paced against immediate broadcast, in one run (docs/performance.md, "Paced broadcast"): N idle
# WebSocket clients (19,900 by default: the descriptor hard limit here is 20,000 per process),
# one broadcast with "spread" 0 and one with "spread" 30 s, each mode twice, alternating, each on
# a freshly started Release server. Per run, from ringcast-load's report (arrivals, server
# timeline sampled from /proc about once a second, seconds counted from the publish):
#   memory: server PSS (and RSS) mid-window (t = spread/2) minus just before the publish;
#   CPU:    server CPU time (schedstat, in ns) from the publish to the end of the CPU span, minus
#           the idle rate of the `rest` seconds before the publish (10, or 20 with --timers
#           default) times that span, over the deliveries;
#   peak:   the busiest second of the arrival histogram against N / spread.
# The same sample times are used in both modes, so the immediate run is the baseline.
#
# The floor (--servers ringcast,floor, the default): the same runs against ringcast-bare-sender
# (bench/compare/bare_sender.cpp), one send() per turn at the first tick (--tick-ms) at or after it: what
# the kernel charges a sender for the same deliveries, immediate and paced (on loopback that
# includes the receiver's TCP input and the wake-up of a client that had gone to sleep).
#
# --timers picks the session timers of the server:
#   quiet    --heartbeat 10m --idle-timeout 10m --session-ttl 10m: no timer is due inside the
#            window, so the wheel never ticks in an immediate run; clients connect at 2,500/s;
#            CPU span: publish to spread + 1 s.
#   default  the server's own --heartbeat (25 s), --idle-timeout and --session-ttl, clients
#            connecting at N / 25 s, so that heartbeats fall due in every tick of the wheel in
#            both modes (~800 pings a second, all the time). A delivery postpones its session's
#            next ping by a whole heartbeat, so the pings inside the CPU span depend on when the
#            deliveries happened; the span runs to spread + 7.5 s (37.5 s = 1.5 heartbeats), where
#            an immediate broadcast and a paced one have each saved half a ping a session on
#            average, so the pings the idle rate accounts for match in both modes.
#
#   bench/paced/paced_bench.sh [--clients 19900] [--spread 30] [--repeats 2] [--out DIR]
#                              [--build DIR] [--timers quiet|default] [--servers ringcast,floor]
#                              [--tick-ms 100]
# --tick-ms goes to both servers: a paced turn is sent at the first tick at or after it.
# The table goes to stdout, progress to stderr, every raw JSON report to --out. Every load run is
# bounded by `timeout` and every server by stop_server, so the script ends by itself.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build-release  # the one Release tree (scripts/run.sh)
clients=19900
spread=30 # seconds
repeats=2
timers=quiet
servers=ringcast,floor
tick_ms=100 # the server's default
out=
while (($#)); do
  case $1 in
    --clients) clients=$2 ;;
    --spread) spread=$2 ;;
    --repeats) repeats=$2 ;;
    --out) out=$2 ;;
    --build) build=$2 ;;
    --timers) timers=$2 ;;
    --servers) servers=$2 ;;
    --tick-ms) tick_ms=$2 ;;
    -h | --help)
      awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"
      exit 0
      ;;
    *)
      echo "paced_bench.sh: unknown argument '$1'" >&2
      exit 2
      ;;
  esac
  shift 2
done
[[ $spread =~ ^[1-9][0-9]*$ ]] || { echo "paced_bench.sh: --spread: whole seconds > 0" >&2; exit 2; }
case $timers in
  quiet)
    timer_flags=(--idle-timeout 10m --session-ttl 10m --heartbeat 10m)
    rate=2500 rest=10 cpu_until=$((spread + 1)) after=3
    ;;
  default)
    timer_flags=()
    heartbeat=25 # the server's default --heartbeat
    # 20 s of idle rate, not 10: the pings make it ~0.5 s over the span, against ~0.2 s of deliveries.
    rate=$(((clients + heartbeat - 1) / heartbeat)) rest=20
    # 1.5 heartbeats after the publish, or 2.5, ... : the first such point after the window.
    cpu_until=$(python3 -c "import math; print((math.floor($spread / $heartbeat) + 0.5) * $heartbeat)")
    after=$(python3 -c "import math; print(math.ceil($cpu_until - $spread) + 3)")
    ;;
  *)
    echo "paced_bench.sh: --timers: quiet or default" >&2
    exit 2
    ;;
esac
# The publish comes after the ramp (N / rate seconds, more on a loaded machine) and `rest` idle
# seconds that give the idle CPU rate.
warmup=$(((clients + rate - 1) / rate + 7 + rest))
declare -A binary=([ringcast]=$build/server/ringcast [floor]=$build/bench/ringcast-bare-sender)
load=$build/loadtest/ringcast-load
IFS=, read -ra kinds <<<"$servers"
needed=("$load")
for kind in "${kinds[@]}"; do
  [[ -n ${binary[$kind]:-} ]] || { echo "paced_bench.sh: --servers: ringcast and/or floor" >&2; exit 2; }
  needed+=("${binary[$kind]}")
done
for b in "${needed[@]}"; do
  [[ -x $b ]] || { echo "paced_bench.sh: $b missing (cmake --build $build --target ringcast ringcast-load ringcast-bare-sender, with -DRINGCAST_BUILD_BENCH=ON)" >&2; exit 2; }
done
work=$(mktemp -d /tmp/ringcast-paced.XXXXXX)
out=${out:-$work/out}
mkdir -p "$out"
server_pid=
source "$root/loadtest/server_process.sh"
cleanup() {
  stop_server || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ulimit -n "$(ulimit -Hn)"
if (($(ulimit -n) < clients + 50)); then
  echo "paced_bench.sh: ulimit -n $(ulimit -n) is too low for $clients connections in one server" >&2
  exit 2
fi
token=paced-$RANDOM$RANDOM
export RINGCAST_ADMIN_TOKEN=$token

# One publish at `warmup` (--publish-rate 0.5 with --duration warmup + 1 s sends exactly one).
# Both modes keep the clients connected for spread + `after` seconds after the publish.
run_one() { # ringcast|floor MODE_SPREAD_S REPEAT
  local kind=$1 s=$2 rep=$3 name="spread${2}s-run$3"
  [[ $kind == floor ]] && name=floor-$name
  local settle=$((s == 0 ? spread + after : after))
  if [[ $kind == ringcast ]]; then
    start_ringcast "$work/$name.log" "${binary[ringcast]}" --threads 2 --max-connections-per-ip 0 \
      --max-connections $((clients + 50)) "${timer_flags[@]}" --drain 0 --tick-ms "$tick_ms"
  else # no timers of its own: nothing runs between publishes but the paced walk
    start_ringcast "$work/$name.log" "${binary[floor]}" --tick-ms "$tick_ms"
  fi || { echo "paced_bench.sh: $kind did not start" >&2; exit 1; }
  echo "paced_bench.sh: $name: $kind pid $server_pid; $(uptime | sed 's/.*load average/load average/')" >&2
  local status=0
  timeout $((warmup + spread + after + 130)) "$load" --target "127.0.0.1:$port" \
    --server-pid "$server_pid" --clients "$clients" --mix ws --idle 100 --rate "$rate" --procs 2 \
    --warmup "${warmup}s" --duration "$((warmup + 1))s" --publish-rate 0.5 --spread "${s}s" \
    --settle "${settle}s" --expect-zero-loss >"$out/$name.json" 2>"$work/$name.err" || status=$?
  tail -n 12 "$work/$name.err" >&2
  stop_server || status=1
  echo "load_after=\"$(uptime | sed 's/.*load average: //')\"" >"$out/$name.load"
  ((status == 0)) || { echo "paced_bench.sh: $name failed (status $status)" >&2; exit 1; }
}

echo "paced_bench.sh: $clients clients, spread 0 vs ${spread}s, $repeats runs each, tick ${tick_ms} ms, timers $timers (${timer_flags[*]:-server defaults}), rate $rate/s, publish at ${warmup}s, CPU to +${cpu_until}s; nproc $(nproc); $(uptime | sed 's/.*load average/load average/')" >&2
for rep in $(seq "$repeats"); do
  for kind in "${kinds[@]}"; do
    run_one "$kind" 0 "$rep"
    run_one "$kind" "$spread" "$rep"
  done
done
python3 "$here/table.py" --spread "$spread" --cpu-until "$cpu_until" --idle-span "$rest" "$out"
