#!/usr/bin/env bash
# Regenerates the benchmark results of docs/wheel.md from the current code: a Release build of
# wheel_bench in build-release (the one Release tree, shared with scripts/run.sh), the documented run, the raw JSON into bench/results/<date>.json and
# the Markdown tables (bench/table.py) into bench/results/<date>.md, both committed beside the
# tables they feed. Prints the tables and the load average before and after (the figures are CPU
# time per operation, but the wall-clock worst_tick rows include being preempted).
#   bench/run.sh [extra wheel_bench flags...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BENCH_BUILD:-$root/build-release}
stamp=${BENCH_STAMP:-$(date -u +%Y-%m-%d)}
out=$root/bench/results/$stamp

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
  -DRINGCAST_BUILD_TESTS=OFF -DRINGCAST_BUILD_BENCH=ON >/dev/null
echo "bench/run.sh: building wheel_bench in ${build#"$root"/}/ (Release)" >&2
cmake --build "$build" --target wheel_bench
echo "bench/run.sh: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo '+changes'); before: $(uptime)" >&2
"$build/bench/wheel_bench" --benchmark_min_time=0.2 --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true \
  --benchmark_out="$out.json" --benchmark_out_format=json "$@" >&2
echo "bench/run.sh: after: $(uptime)" >&2
python3 "$root/bench/smoke.py" --check "$out.json"
python3 "$root/bench/table.py" "$out.json" | tee "$out.md"
