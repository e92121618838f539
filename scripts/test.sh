#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test:
#   plain  a plain build: unit tests, the integration suite against the real binary, browser
#          tests, a small load-test run, a benchmark smoke run; the Debian package built,
#          unpacked, installed and its unit verified;
#   asan   the same under AddressSanitizer + UndefinedBehaviorSanitizer;
#   tsan   the server under ThreadSanitizer with the integration suite (its threads share state);
#   fuzz   every libFuzzer target replays its corpus, then fuzzes for 30 s.
# RINGCAST_TEST_STAGES=plain,asan picks stages (default: all four, in that order); a name that is
# not a stage, or an empty list, is refused (exit 2) before anything runs. CI (.ci/run) runs all.
set -euo pipefail
cd "$(dirname "$0")/.."

all_stages=(plain asan tsan fuzz)
usage_error() {
  echo "test.sh: $*" >&2
  exit 2
}
selected=${RINGCAST_TEST_STAGES-$(IFS=,; echo "${all_stages[*]}")}
IFS=, read -ra stages <<<"$selected"
((${#stages[@]})) ||
  usage_error "RINGCAST_TEST_STAGES is empty; stages are: ${all_stages[*]}"
for stage in "${stages[@]}"; do
  [[ " ${all_stages[*]} " == *" $stage "* ]] ||
    usage_error "unknown stage '$stage' in RINGCAST_TEST_STAGES='$selected'; stages are: ${all_stages[*]}"
done
wants() { [[ ",$selected," == *",$1,"* ]]; }
# The suites test the real server with the pages built into it: the stand-in server and on-disk
# pages are for a developer running one suite by hand (tests/browser/README.md), never for this.
for developer_only in RINGCAST_FAKE RINGCAST_WEB_ROOT RINGCAST_BIN; do
  [[ -z ${!developer_only:-} ]] ||
    usage_error "$developer_only is set: test.sh tests the binaries it builds; unset it"
done

scripts/deps.sh test
# The Node test suites' packages (ws, playwright-core), and the client package's build and test
# tools (clients/js: esbuild, typescript, react), exactly as locked.
npm ci --prefix tests --no-audit --no-fund --loglevel=error
npm ci --prefix clients/js --no-audit --no-fund --loglevel=error

jobs=$(nproc)
configure() {  # configure BUILD_DIR [cmake args...]
  local dir=$1
  shift
  local launcher=()
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  cmake -S . -B "$dir" -G Ninja "${launcher[@]}" "$@" >/dev/null
}
# Every ctest call fails when nothing matches (--no-tests=error): a stale build without tests, or a
# test that lost its label, must not pass with nothing run.
ctest_checked() {  # ctest_checked BUILD_DIR [ctest args...]
  local dir=$1
  shift
  ctest --test-dir "$dir" --output-on-failure --no-tests=error --timeout 400 "$@"
}
# Unit tests in parallel; the suites that start servers one label at a time and one at a time
# (each runs its own files concurrently), so that timeouts they measure are not skewed by a loaded
# machine. Each label must match at least one test.
serial_labels=(integration browser loadtest client_js)
run_ctest() {  # run_ctest BUILD_DIR LABEL...   (LABELs: the serial suites this build has)
  local dir=$1
  shift
  ctest_checked "$dir" -LE "^($(IFS='|'; echo "${serial_labels[*]}"))$" -j "$jobs"
  for label in "$@"; do
    ctest_checked "$dir" -L "^${label}$"
  done
}

start=$SECONDS
if wants plain; then
  echo "== plain build"
  # Configured for the Debian layout: the package test (tests/package) builds the .deb from it.
  configure build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr
  cmake --build build -j "$jobs"
  echo "== clang-tidy (.clang-tidy)"
  scripts/tidy.sh build
  # client_js (the npm package) here only: it tests the client, not the server's memory use.
  run_ctest build integration browser loadtest client_js
  # A figure, not a check (bench/compare/compare.sh --smoke, CTest compare_smoke): a regression
  # of issue 40's figures shows here.
  echo "== bench/compare smoke figures (500 idle WebSockets; RelWithDebInfo)"
  cat build/bench/compare-smoke/table.md
fi
if wants asan; then
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer"
  configure build-asan -DCMAKE_BUILD_TYPE=Debug -DRINGCAST_SANITIZE=address,undefined \
    -DRINGCAST_BUILD_BENCH=OFF
  cmake --build build-asan -j "$jobs"
  run_ctest build-asan integration browser loadtest
fi
if wants tsan; then
  echo "== ThreadSanitizer: the server (several event loops) under the integration suite"
  configure build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRINGCAST_SANITIZE=thread \
    -DRINGCAST_BUILD_BENCH=OFF
  cmake --build build-tsan -j "$jobs" --target ringcast
  # Not the adversarial files: they bound memory and CPU, which TSan's shadow memory inflates.
  mapfile -t suite < <(ls tests/integration/*.test.mjs | grep -v /adversarial)
  ((${#suite[@]})) || usage_error "no integration test files"
  # Bounded like CTest's runs of the same suite: a test that hangs fails with its name instead of
  # holding CI until its own limit.
  RINGCAST_BIN="$PWD/build-tsan/server/ringcast" timeout --kill-after=30 1200 \
    node --test --test-concurrency=2 --test-timeout=300000 --test-reporter=spec "${suite[@]}"
fi
if wants fuzz; then
  echo "== libFuzzer targets (clang, ASan + UBSan): corpus replay, then 30 s each"
  FUZZ_SECONDS=30 tests/fuzz/run.sh
fi
echo "== all tests passed in $((SECONDS - start)) s (stages: $selected)"
