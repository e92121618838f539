#!/usr/bin/env bash
# Installs what is missing, builds the server (Release), and runs it with the given flags.
#   scripts/run.sh --listen 127.0.0.1:8080 --admin-token s3cret
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build
cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DRINGCAST_BUILD_TESTS=OFF -DRINGCAST_BUILD_BENCH=OFF >/dev/null
cmake --build build-release -j "$(nproc)" --target ringcast
exec build-release/server/ringcast "$@"
