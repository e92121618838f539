#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: a plain build, then the same suite under
# AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
# The Node test suites' packages (ws, playwright-core), exactly as locked.
npm ci --prefix tests --no-audit --no-fund --loglevel=error

jobs=$(nproc)
run_suite() {  # run_suite BUILD_DIR [cmake args...]
  local dir=$1
  shift
  cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
  ctest --test-dir "$dir" --output-on-failure -j "$jobs" --timeout 300
}

start=$SECONDS
echo "== plain build"
run_suite build -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "== AddressSanitizer + UndefinedBehaviorSanitizer"
run_suite build-asan -DCMAKE_BUILD_TYPE=Debug -DRINGCAST_SANITIZE=address,undefined -DRINGCAST_BUILD_BENCH=OFF
echo "== all tests passed in $((SECONDS - start)) s"
