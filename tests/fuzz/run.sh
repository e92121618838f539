#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in build-fuzz and fuzzes each one for a bounded time,
# starting from its checked-in corpus (tests/fuzz/corpus/<target>: seeds and past crashes).
# New interesting inputs go to build-fuzz/corpus/<target>, crashing ones to build-fuzz/crashes/.
# Exits non-zero if any target crashes or fails a property check.
#   FUZZ_SECONDS  total fuzzing time, shared equally by the targets (default 60)
#   FUZZ_BUILD    build directory (default build-fuzz)
#   FUZZ_JOBS     parallel compile jobs (default: one per core)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${FUZZ_BUILD:-$root/build-fuzz}
total=${FUZZ_SECONDS:-60}
targets=(client_params message_id client_message publish_request kick_request duration config
  history ws_codec)

CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRINGCAST_FUZZ=ON -DRINGCAST_BUILD_TESTS=OFF -DRINGCAST_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --target fuzz_targets --parallel "${FUZZ_JOBS:-$(nproc)}"

each=$((total / ${#targets[@]}))
((each > 0)) || each=1
failed=()
for t in "${targets[@]}"; do
  mkdir -p "$build/corpus/$t" "$build/crashes"
  echo "== fuzz_$t for ${each} s"
  if ! "$build/tests/fuzz/fuzz_$t" -max_total_time="$each" -max_len=4096 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$build/crashes/$t-" \
    "$build/corpus/$t" "$root/tests/fuzz/corpus/$t" 2>"$build/fuzz_$t.log"; then
    tail -n 40 "$build/fuzz_$t.log"
    failed+=("$t")
  fi
  grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$build/fuzz_$t.log" || true
done
if ((${#failed[@]})); then
  echo "fuzzing failed: ${failed[*]} (inputs in $build/crashes)" >&2
  exit 1
fi
echo "== every target fuzzed without a crash"
