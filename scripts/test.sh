#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test:
#   1. a plain build: unit tests, the integration suite against the real binary, browser tests,
#      a small load-test run; the Debian package built, unpacked, installed and its unit verified;
#   2. the same under AddressSanitizer + UndefinedBehaviorSanitizer;
#   3. the server under ThreadSanitizer with the integration suite (its threads share state);
#   4. a short libFuzzer run over every parser of outside input.
# RINGCAST_TEST_STAGES=plain,asan,tsan,fuzz picks stages (default: all).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
# The Node test suites' packages (ws, playwright-core), exactly as locked.
npm ci --prefix tests --no-audit --no-fund --loglevel=error

jobs=$(nproc)
stages=",${RINGCAST_TEST_STAGES:-plain,asan,tsan,fuzz},"
configure() {  # configure BUILD_DIR [cmake args...]
  local dir=$1
  shift
  cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
}
# Unit tests in parallel; the suites that start servers one at a time (each runs its own files
# concurrently), so that timeouts they measure are not skewed by a loaded machine.
run_ctest() {  # run_ctest BUILD_DIR [ctest args...]
  local dir=$1
  shift
  ctest --test-dir "$dir" --output-on-failure --timeout 400 -LE 'integration|browser|loadtest' -j "$jobs" "$@"
  ctest --test-dir "$dir" --output-on-failure --timeout 400 -L 'integration|browser|loadtest' "$@"
}

start=$SECONDS
if [[ $stages == *,plain,* ]]; then
  echo "== plain build"
  # Configured for the Debian layout: the package test (tests/package) builds the .deb from it.
  configure build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr
  cmake --build build -j "$jobs"
  run_ctest build
fi
if [[ $stages == *,asan,* ]]; then
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer"
  configure build-asan -DCMAKE_BUILD_TYPE=Debug -DRINGCAST_SANITIZE=address,undefined \
    -DRINGCAST_BUILD_BENCH=OFF
  cmake --build build-asan -j "$jobs"
  run_ctest build-asan
fi
if [[ $stages == *,tsan,* ]]; then
  echo "== ThreadSanitizer: the server (several event loops) under the integration suite"
  configure build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRINGCAST_SANITIZE=thread \
    -DRINGCAST_BUILD_BENCH=OFF
  cmake --build build-tsan -j "$jobs" --target ringcast
  # Not the adversarial files: they bound memory and CPU, which TSan's shadow memory inflates.
  suite=$(ls tests/integration/*.test.mjs | grep -v /adversarial)
  # shellcheck disable=SC2086
  RINGCAST_BIN="$PWD/build-tsan/server/ringcast" node --test --test-concurrency=2 $suite
fi
if [[ $stages == *,fuzz,* ]]; then
  echo "== libFuzzer targets (clang, ASan + UBSan), 60 s"
  FUZZ_SECONDS=60 tests/fuzz/run.sh
fi
echo "== all tests passed in $((SECONDS - start)) s"
