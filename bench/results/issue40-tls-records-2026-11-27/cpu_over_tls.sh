#!/usr/bin/env bash
# CPU per delivery over TLS: main's binary against this branch's, alternately, twice each.
set -u
cd /work/wt-tls
for run in 1 2; do
  for which in before after; do
    bin=$PWD/build/server/ringcast; [[ $which == before ]] && bin=/tmp/x/ringcast-main
    port=$((18400 + run * 10 + ${#which}))
    $bin --listen 127.0.0.1:$port --threads 2 --max-connections 4000 --max-connections-per-ip 0 --idle-timeout 10m \
      --session-ttl 10m --drain 0 --tls-cert /tmp/x/cert.pem --tls-key /tmp/x/key.pem --admin-token tok > /tmp/x/srv-$which-$run.log 2>&1 &
    pid=$!
    sleep 1
    ./build/loadtest/ringcast-load --target 127.0.0.1:$port --tls-ca /tmp/x/cert.pem --clients 2000 --mix ws=100 \
      --idle 100 --rate 500 --duration 15s --warmup 8s --settle 2s --server-pid $pid --expect-zero-loss --admin-token tok > /tmp/x/load-$which-$run.json 2> /tmp/x/load-$which-$run.err
    echo "$which $run rc=$? load=$(cut -d' ' -f1 /proc/loadavg)"
    kill $pid; wait $pid 2>/dev/null
  done
done
