#!/usr/bin/env bash
# Issue 30's measurement (docs/performance.md, "Upgrade in place"): N clients (default 19,900:
# 80 % WebSocket, 15 % SSE, 5 % long-poll) on a server with --threads 2, R broadcasts a second
# (default 4: 80,000 deliveries a second, what the load tool keeps up with here beside the
# server; at 20 a second it falls behind and its backlog, not the server, makes the gaps), and
# after 15 s of steady publishing one of
#   upgrade  SIGUSR2: the binary (a copy of the same build) execs in place and keeps every
#            connection;
#   drain    SIGTERM with --drain 5: every client is told to reconnect within 5 s, the server
#            exits, and a new one is started on the same port as soon as it has (a restart);
#   steady   nothing: the baseline, the gaps of the publish interval and the fan-out's own jitter.
# Reported per run: the longest gap between two messages any client saw (ringcast-load's
# longest_gap_ms: the pause as the clients see it), the clients' reconnects (each a TCP + HTTP
# handshake, a session claim and a resume the server pays), messages lost or duplicated, the
# server's CPU in the 15 s after the signal against the 15 s of steady publishing before it (the
# upgrade's children, the checks of the new binary, included), the time until every client has a
# session again, and for the upgrade the server's own log line (connections moved, pause).
#
#   bench/upgrade/upgrade_bench.sh [--clients 19900] [--publish-rate 4] [--runs 2]
#       [--kinds steady,upgrade,drain]
#       [--out DIR] [--build DIR | --ringcast BIN --load BIN]
# The table goes to stdout; the raw reports and logs to --out.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build-release  # the one Release tree (scripts/run.sh)
clients=19900
publish_rate=4
runs=2
kinds=steady,upgrade,drain
out=
ringcast=
load=
while (($#)); do
  case $1 in
    --clients) clients=$2 ;;
    --publish-rate) publish_rate=$2 ;;
    --runs) runs=$2 ;;
    --kinds) kinds=$2 ;;
    --out) out=$2 ;;
    --build) build=$2 ;;
    --ringcast) ringcast=$2 ;;
    --load) load=$2 ;;
    -h | --help)
      sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "upgrade_bench.sh: unknown argument '$1'" >&2
      exit 2
      ;;
  esac
  shift 2
done

if [[ -z $ringcast || -z $load ]]; then
  if [[ ! -f $build/build.ninja ]]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRINGCAST_BUILD_TESTS=OFF \
      -DRINGCAST_BUILD_BENCH=OFF >&2
  fi
  ninja -C "$build" ringcast ringcast-load >&2
  ringcast=$build/server/ringcast
  load=$build/loadtest/ringcast-load
fi

work=$(mktemp -d /tmp/ringcast-upgrade-bench.XXXXXX)
out=${out:-$work/results}
mkdir -p "$out"
next=$work/ringcast-next # "the new build": a copy under another path
cp "$ringcast" "$next"
server_pid=
load_pid=
cleanup() {
  [[ -n $load_pid ]] && kill "$load_pid" 2>/dev/null
  [[ -n $server_pid ]] && kill -KILL "$server_pid" 2>/dev/null
  echo "upgrade_bench.sh: raw reports in $out" >&2
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ulimit -n "$(ulimit -Hn)"

token=upgrade-$RANDOM$RANDOM
warmup=$(((clients + 2999) / 3000 + 5)) # ramp at 3,000 connects/s, then 5 s to settle
steady=15                                # seconds of publishing before the signal, and after it
duration=$((warmup + 2 * steady + 5))
flags=(--threads 2 --max-connections $((clients + 50)) --idle-timeout 10m --session-ttl 10m
  --poll-timeout 20 --upgrade-binary "$next")

# cpu_ticks PID: utime + stime of the process and of its children it has waited for.
cpu_ticks() { awk '{print $14 + $15 + $16 + $17}' "/proc/$1/stat" 2>/dev/null || echo 0; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

start_server() { # LOG PORT [FLAGS...]
  local log=$1 port=$2
  shift 2
  RINGCAST_ADMIN_TOKEN=$token "$ringcast" --listen "127.0.0.1:$port" "$@" 2>"$log" &
  server_pid=$!
  for _ in $(seq 100); do
    grep -q "listening on" "$log" && return 0
    sleep 0.1
  done
  cat "$log" >&2
  return 1
}

sessions() { # PORT: the node's session count, or 0 while nothing answers
  curl -fs -H "Authorization: Bearer $token" "http://127.0.0.1:$1/admin/stats" 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["sessions"]["total"])' 2>/dev/null ||
    echo 0
}

IFS=, read -ra kind_list <<<"$kinds"
for run in $(seq "$runs"); do
  for kind in "${kind_list[@]}"; do
    name=$kind-$clients-run$run
    port=$(free_port)
    extra=()
    [[ $kind == drain ]] && extra=(--drain 5)
    start_server "$out/$name.server.log" "$port" "${flags[@]}" "${extra[@]}"
    echo "upgrade_bench.sh: $name (pid $server_pid, port $port); $(uptime | sed 's/.*load average/load average/')" >&2
    RINGCAST_ADMIN_TOKEN=$token timeout 600 "$load" --target "127.0.0.1:$port" \
      --clients "$clients" --mix ws=80,sse=15,poll=5 --idle 100 --rate 3000 --procs 2 \
      --publish-rate "$publish_rate" --warmup "${warmup}s" --duration "${duration}s" --settle 10s \
      --max-retry 5s >"$out/$name.json" 2>"$out/$name.log" &
    load_pid=$!
    sleep $((warmup + 1))
    before=$(cpu_ticks "$server_pid")
    sleep $((steady - 1))
    steady_ticks=$(($(cpu_ticks "$server_pid") - before))
    signalled=$(date +%s.%N)
    back_s=
    if [[ $kind == steady ]]; then
      before=$(cpu_ticks "$server_pid")
      sleep "$steady"
      after_ticks=$(($(cpu_ticks "$server_pid") - before))
      back_s=0
    elif [[ $kind == upgrade ]]; then
      before=$(cpu_ticks "$server_pid")
      kill -USR2 "$server_pid"
      for _ in $(seq 300); do
        grep -q "upgraded in place" "$out/$name.server.log" && break
        sleep 0.05
      done
      back_s=$(printf '%.3f' "$(echo "$(date +%s.%N) - $signalled" | bc)")
      sleep "$steady"
      after_ticks=$(($(cpu_ticks "$server_pid") - before))
    else
      old=$server_pid
      before=$(cpu_ticks "$old")
      kill -TERM "$old"
      last=$before
      while kill -0 "$old" 2>/dev/null; do # its CPU until it exits
        t=$(cpu_ticks "$old")
        ((t > 0)) && last=$t
        sleep 0.02
      done
      wait "$old" || echo "upgrade_bench.sh: $name: the drained server exited $?" >&2
      start_server "$out/$name.restarted.log" "$port" "${flags[@]}" "${extra[@]}"
      for _ in $(seq 600); do
        (($(sessions "$port") >= clients)) && break
        sleep 0.1
      done
      back_s=$(printf '%.3f' "$(echo "$(date +%s.%N) - $signalled" | bc)")
      rest=$(echo "$steady - $back_s" | bc)
      [[ $rest == -* ]] || sleep "$rest"
      after_ticks=$((last - before + $(cpu_ticks "$server_pid")))
    fi
    status=0
    wait "$load_pid" || status=$?
    load_pid=
    ((status == 0)) || echo "upgrade_bench.sh: $name: ringcast-load exited $status" >&2
    printf '{"kind":"%s","clients":%s,"run":%s,"steady_cpu_ticks":%s,"after_signal_cpu_ticks":%s,"back_s":%s,"log":"%s"}\n' \
      "$kind" "$clients" "$run" "$steady_ticks" "$after_ticks" "$back_s" \
      "$(grep -ho 'upgraded in place.*' "$out/$name.server.log" | tail -1)" >"$out/$name.measured.json"
    grep -E '^  (longest gap|messages|connections) ' "$out/$name.log" >&2 || true
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
    sleep 3 # let the TIME_WAIT sockets settle
  done
done

python3 "$here/table.py" "$out"
