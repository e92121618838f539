#!/usr/bin/env bash
# ustime.sh KIND OUT: user/system CPU of the server over a ramp of 10000 connects at 2000/s
set -uo pipefail
kind=$1 out=$2 rate=2000 clients=10000
root=/work/main; build=$root/build-release; here=$root/bench/compare
mkdir -p "$out"; out=$(cd "$out" && pwd)
source "$root/loadtest/server_process.sh"
ulimit -n "$(ulimit -Hn)"
token=tl-$RANDOM; load_kind=ringcast
case $kind in
  nchan)
    dir=$out/nginx; rm -rf "$dir"; mkdir -p "$dir/tmp"; chmod 777 "$dir/tmp"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    sed -e "s|@DIR@|$dir|g" -e "s|@PORT@|$port|g" -e "s|@SSL@||" -e "s|@TLS_FILES@||" "$here/nginx-nchan.conf.in" >"$dir/nginx.conf"
    /usr/sbin/nginx -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' 2>"$out/server.log" &
    server_pid=$!
    for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/ready" >/dev/null 2>&1 && break; sleep 0.1; done
    sleep 0.3; pids=$(pgrep -P "$server_pid" | paste -sd' ' -); load_kind=nchan ;;
  *) RINGCAST_ADMIN_TOKEN=$token start_ringcast "$out/server.log" "$kind" --threads 2 --max-connections-per-ip 0 --max-connections 19000 --idle-timeout 10m --session-ttl 10m --drain 0; pids=$server_pid ;;
esac
snap() { local u=0 s=0; for p in $pids; do read -r a b < <(awk '{print $14, $15}' /proc/$p/stat); u=$((u+a)); s=$((s+b)); done; echo "$u $s"; }
read -r u0 s0 < <(snap)
RINGCAST_ADMIN_TOKEN=$token "$build/loadtest/ringcast-load" --server-kind "$load_kind" --target "127.0.0.1:$port" \
  --clients "$clients" --mix ws --idle 100 --rate "$rate" --procs 2 --publish-rate 0 --warmup 5500ms --duration 6000ms --settle 0s >"$out/load.json" 2>"$out/load.log" &
lp=$!
sleep 5.3
read -r u1 s1 < <(snap)
wait $lp
if [[ $kind == nchan ]]; then kill $server_pid; wait $server_pid 2>/dev/null; else stop_server >/dev/null 2>&1; fi
echo "$(basename $kind): user $(( (u1-u0)*10000/clients )) us/connect, sys $(( (s1-s0)*10000/clients )) us/connect (ticks $((u1-u0)) $((s1-s0)))"
