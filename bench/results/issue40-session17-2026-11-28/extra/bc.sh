#!/usr/bin/env bash
# bc.sh BIN OUT N: compare.sh's broadcast run for one ringcast binary
set -uo pipefail
bin=$1 out=$2 n=${3:-19900}
mkdir -p "$out"; out=$(cd "$out" && pwd)
source /work/main/loadtest/server_process.sh
ulimit -n "$(ulimit -Hn)"
token=bc-$RANDOM
RINGCAST_ADMIN_TOKEN=$token start_ringcast "$out/server.log" "$bin" --threads 2 --max-connections-per-ip 0 --max-connections $(( $(ulimit -n) - 64 )) --idle-timeout 10m --session-ttl 10m --drain 0 ${EXTRA:-}
warmup_ms=$(((n * 1000 + 1999) / 2000 + 5000))
RINGCAST_ADMIN_TOKEN=$token timeout 300 /work/main/build-release/loadtest/ringcast-load --server-kind ringcast --target "127.0.0.1:$port" --server-pid "$server_pid" --clients "$n" --mix ws --idle 100 --rate 2000 --procs 2 --publish-rate 5 --warmup "${warmup_ms}ms" --duration "$((warmup_ms + 10000))ms" --settle 3s --arrival kernel > "$out/load.json" 2> "$out/load.log"
stop_server
grep -E "reach all|longest gap" "$out/load.log" | sed "s|^|$(basename $bin): |"
