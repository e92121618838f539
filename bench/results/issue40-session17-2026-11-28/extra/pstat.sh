#!/usr/bin/env bash
# pstat.sh KIND OUT [RATE] [CLIENTS]: perf stat of the server during the connect ramp
set -uo pipefail
kind=$1 out=$2 rate=${3:-2000} clients=${4:-5000}
root=/work/main; build=$root/build-release; here=$root/bench/compare
mkdir -p "$out"; out=$(cd "$out" && pwd)
source "$root/loadtest/server_process.sh"
ulimit -n "$(ulimit -Hn)"
token=tl-$RANDOM
load_kind=ringcast
case $kind in
  nchan)
    dir=$out/nginx; rm -rf "$dir"; mkdir -p "$dir/tmp"; chmod 777 "$dir/tmp"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    sed -e "s|@DIR@|$dir|g" -e "s|@PORT@|$port|g" -e "s|@SSL@||" -e "s|@TLS_FILES@||" "$here/nginx-nchan.conf.in" >"$dir/nginx.conf"
    /usr/sbin/nginx -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' 2>"$out/server.log" &
    server_pid=$!
    for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/ready" >/dev/null 2>&1 && break; sleep 0.1; done
    sleep 0.3
    pids=$(pgrep -P "$server_pid" | paste -sd, -); load_kind=nchan ;;
  floor)
    RINGCAST_ADMIN_TOKEN=$token start_ringcast "$out/server.log" "$build/bench/ringcast-bare-sender"; pids=$server_pid ;;
  *)
    RINGCAST_ADMIN_TOKEN=$token start_ringcast "$out/server.log" "$kind" --threads ${THREADS:-2} \
      --max-connections-per-ip 0 --max-connections 19000 --idle-timeout 10m --session-ttl 10m --drain 0 ${EXTRA:-}
    pids=$server_pid ;;
esac
perf stat -e task-clock,context-switches,cycles:u,cycles:k,instructions:u,instructions:k -p "$pids" -o "$out/stat.txt" &
sp=$!
sleep 0.5
RINGCAST_ADMIN_TOKEN=$token "$build/loadtest/ringcast-load" --server-kind "$load_kind" --target "127.0.0.1:$port" \
  --clients "$clients" --mix ws --idle 100 --rate "$rate" --procs 2 --publish-rate 0 --warmup "$((clients*1000/rate+500))ms" --duration "$((clients*1000/rate+1500))ms" --settle 0s >"$out/load.json" 2>"$out/load.log"
kill -INT $sp; wait $sp
if [[ $kind == nchan ]]; then kill $server_pid; wait $server_pid 2>/dev/null; else stop_server >/dev/null 2>&1; fi
python3 -c "
import json; d=json.load(open('$out/load.json')); u=d['upgrade_ms']; print('$(basename $kind) rate $rate: upgrade p50 %.3f p90 %.3f p99 %.3f' % (u['p50'], u.get('p90',0), u['p99']))"
grep -E "task-clock|switches|cycles|instructions" "$out/stat.txt" | awk -v n=$clients '{gsub(",","",$1); printf "  %-22s %8.2f per connect (us for msec)\n", $2, ($2=="msec"?$1*1000:$1)/n}'
