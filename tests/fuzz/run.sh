#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in build-fuzz, replays every checked-in corpus
# (tests/fuzz/corpus/<target>: seeds and past crashes) as CTest cases, then fuzzes each target for
# FUZZ_SECONDS starting from that corpus. New interesting inputs go to build-fuzz/corpus/<target>,
# crashing ones to build-fuzz/crashes/. Exits non-zero if a replay fails, a target crashes or fails
# a property check, or a target did not actually run.
#   tests/fuzz/run.sh [TARGET...]   the targets to fuzz (default: every one in tests/fuzz/CMakeLists.txt)
#   FUZZ_SECONDS  fuzzing time per target (default 30, as in CI; more for a longer local run:
#                 FUZZ_SECONDS=600 tests/fuzz/run.sh client_params)
#   FUZZ_BUILD    build directory (default build-fuzz)
#   FUZZ_JOBS     parallel compile jobs (default: one per core)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${FUZZ_BUILD:-$root/build-fuzz}
each=${FUZZ_SECONDS:-30}
[[ $each =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: FUZZ_SECONDS must be a positive number of seconds" >&2; exit 2; }

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "${launcher[@]}" -DRINGCAST_FUZZ=ON -DRINGCAST_BUILD_TESTS=OFF -DRINGCAST_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --target fuzz_targets --parallel "${FUZZ_JOBS:-$(nproc)}"

mapfile -t known <"$build/tests/fuzz/targets.txt"
targets=("$@")
((${#targets[@]})) || targets=("${known[@]}")
for t in "${targets[@]}"; do
  [[ " ${known[*]} " == *" $t "* ]] || { echo "run.sh: no fuzz target '$t' (targets: ${known[*]})" >&2; exit 2; }
done

echo "== corpus replay (CTest)"
ctest --test-dir "$build/tests/fuzz" --output-on-failure --no-tests=error -L '^fuzz$' \
  -R "^fuzz_($(IFS='|'; echo "${targets[*]}"))_corpus$"

failed=()
for t in "${targets[@]}"; do
  mkdir -p "$build/corpus/$t" "$build/crashes"
  echo "== fuzz_$t for ${each} s"
  if ! "$build/tests/fuzz/fuzz_$t" -max_total_time="$each" -max_len=4096 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$build/crashes/$t-" \
    "$build/corpus/$t" "$root/tests/fuzz/corpus/$t" 2>"$build/fuzz_$t.log"; then
    tail -n 40 "$build/fuzz_$t.log"
    failed+=("$t")
    continue
  fi
  # A run that stopped early or executed nothing is a failure too, not a pass.
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/fuzz_$t.log")
  took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$build/fuzz_$t.log")
  echo "   ${runs:-?} runs in ${took:-?} s"
  if ((${runs:-0} == 0 || ${took:-0} < each)); then
    echo "fuzz_$t did not fuzz for ${each} s:" >&2
    tail -n 20 "$build/fuzz_$t.log" >&2
    failed+=("$t")
  fi
done
if ((${#failed[@]})); then
  echo "fuzzing failed: ${failed[*]} (inputs in $build/crashes)" >&2
  exit 1
fi
echo "== every target fuzzed ${each} s without a crash: ${targets[*]}"
